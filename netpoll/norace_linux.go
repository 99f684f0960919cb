//go:build linux && !race

package netpoll

import "unsafe"

// raceEnabled says whether the race detector is on; the raw system calls
// tell it what their buffers see (raw_linux.go).
const raceEnabled = false

func raceAcquire(unsafe.Pointer)         {}
func raceReleaseMerge(unsafe.Pointer)    {}
func raceReadRange(unsafe.Pointer, int)  {}
func raceWriteRange(unsafe.Pointer, int) {}
