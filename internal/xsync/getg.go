//go:build amd64 || arm64

package xsync

// Getg returns an identifier of the calling goroutine: the address of its
// runtime g record, which stays the same while the goroutine lives and is
// never shared by two live goroutines (the runtime's getg()). The scheduler
// uses it to tell whether the caller of a public method is one of its own
// worker goroutines, as the runtime asks getg().m.p. The address may be
// reused by a goroutine started after this one exits.
//
// It costs one load on amd64 and arm64 ([GetgCheap]).
func Getg() uintptr

// GetgCheap reports whether [Getg] costs about as much as a load, so that a
// hot path may call it. Where it is false, Getg parses the goroutine's id
// out of a stack dump and only rare paths should call it.
const GetgCheap = true
