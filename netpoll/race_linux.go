//go:build linux && race

package netpoll

import (
	"runtime"
	"unsafe"
)

// raceEnabled says whether the race detector is on; the raw system calls
// tell it what their buffers see (raw_linux.go).
const raceEnabled = true

func raceAcquire(addr unsafe.Pointer)           { runtime.RaceAcquire(addr) }
func raceReleaseMerge(addr unsafe.Pointer)      { runtime.RaceReleaseMerge(addr) }
func raceReadRange(addr unsafe.Pointer, n int)  { runtime.RaceReadRange(addr, n) }
func raceWriteRange(addr unsafe.Pointer, n int) { runtime.RaceWriteRange(addr, n) }
