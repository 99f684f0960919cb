//go:build race || vsched_explore

package xsync

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
)

// holder records who holds a Mutex outside an explorer model: the holding
// goroutine's Getg where that is cheap, else 1 (held by some goroutine).
// It is written by the holder only, after Lock and before Unlock, and read
// by AssertHeld; atomic, so that an assertion made without the lock is a
// failed check rather than a data race.
type holder struct{ g atomic.Uintptr }

func (h *holder) set() {
	if GetgCheap {
		h.g.Store(Getg())
	} else {
		h.g.Store(1)
	}
}

func (h *holder) clear() { h.g.Store(0) }

// heldByCaller reports whether the calling goroutine holds the mutex, or,
// where Getg is not cheap, whether some goroutine does.
func (h *holder) heldByCaller() bool {
	if GetgCheap {
		return h.g.Load() == Getg()
	}
	return h.g.Load() != 0
}

// AssertHeld checks that the calling goroutine holds m, as the runtime's
// assertLockHeld does; lock names m in the message (for example
// "sched.lock"). A function whose contract is "called with the lock held"
// calls it first. This build checks: inside an explorer model against the
// explorer's own record of the mutex's holder thread, elsewhere against
// the holder Lock recorded (the calling goroutine where [GetgCheap], else
// any goroutine). A failed check panics with a message that names the
// lock, the function that requires it and that function's caller.
func (m *Mutex) AssertHeld(lock string) {
	held := false
	if inModel, h := modelHolds(m); inModel {
		held = h
	} else {
		held = m.holder.heldByCaller()
	}
	if !held {
		panic(notHeld(lock))
	}
}

// notHeld is AssertHeld's message: the function that called AssertHeld
// and the call site that reached it without the lock.
func notHeld(lock string) string {
	var pcs [2]uintptr
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs[:])])
	fn, _ := frames.Next()
	caller, _ := frames.Next()
	who := "the calling goroutine"
	if !GetgCheap {
		who = "any goroutine"
	}
	return "xsync: " + shortFunc(fn.Function) + " requires " + lock + " held, and " + who +
		" does not hold it (called from " + shortFunc(caller.Function) + " at " +
		caller.File + ":" + strconv.Itoa(caller.Line) + ")"
}

// shortFunc drops the module path from a function name.
func shortFunc(name string) string {
	if name == "" {
		return "an unknown function"
	}
	return strings.TrimPrefix(name, "github.com/vsched/vsched/")
}
