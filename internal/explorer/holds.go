//go:build vsched_explore

package explorer

import "unsafe"

// Holds reports whether the running thread holds the mutex at addr, by
// the explorer's own record of Lock and Unlock (xsync's Mutex.AssertHeld
// asks it inside a model). It is not a scheduling point. Once the
// execution is over, a thread that is leaving runs only its deferred
// calls and the record is no longer kept up to date: Holds then reports
// true. Call it only while [Active].
func Holds(addr unsafe.Pointer) bool {
	e := current
	if e.abort.Load() || e.outcome != running {
		return true
	}
	return e.mutexes[addr] == e.cur
}
