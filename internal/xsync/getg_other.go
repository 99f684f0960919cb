//go:build !amd64 && !arm64

package xsync

import (
	"runtime"
	"strconv"
	"strings"
)

// Getg returns an identifier of the calling goroutine that stays the same
// while it lives and is never shared by two live goroutines. On this
// architecture it is the goroutine id parsed from the first line of a stack
// dump, which takes about a microsecond ([GetgCheap] is false).
func Getg() uintptr {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	if i := strings.IndexByte(s, ' '); i > 0 {
		if id, err := strconv.ParseUint(s[:i], 10, 64); err == nil {
			return uintptr(id)
		}
	}
	panic("xsync: Getg: cannot parse the goroutine id from " + strconv.Quote(s))
}

// GetgCheap reports whether [Getg] costs about as much as a load, so that a
// hot path may call it.
const GetgCheap = false
