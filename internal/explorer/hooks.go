//go:build vsched_explore

package explorer

import (
	"fmt"
	"time"
	"unsafe"
)

// Point is the scheduling point of an operation of internal/xsync: it
// returns once the calling thread may execute op on addr, and the returned
// event (nil unless the execution is traced) takes the values the operation
// read and wrote. skip is the number of stack frames between Point and the
// code whose source line the trace shows. Call it only while [Active].
func Point(op Op, addr unsafe.Pointer, skip int) *Event {
	return current.point(access{op: op, addr: addr}, skip)
}

// Thread is a thread of a model, started by [Go].
type Thread struct{ t *thread }

// Go starts fn as a new thread of the running model. skip is as for
// [Point]. Call it only while [Active].
func Go(fn func(), skip int) *Thread {
	e := current
	e.point(access{op: OpGo}, skip)
	return &Thread{e.spawn(fn)}
}

// Join waits until t has finished. skip is as for [Point].
func (t *Thread) Join(skip int) {
	current.point(access{op: OpJoin, join: t.t}, skip)
}

// ID is the thread's number in traces: T0 is the model function, the
// others count up in the order they were started.
func (t *Thread) ID() int { return t.t.id }

// SleepFor is the scheduling point of a timed sleep on the note at addr:
// it returns true once it has consumed a wakeup, or false when the
// explorer chose to end it by its timeout of d nanoseconds, which moves
// the execution's clock on by d (see Config.Timeouts). skip is as for
// [Point].
func SleepFor(addr unsafe.Pointer, d int64, skip int) bool {
	e := current
	ev := e.point(access{op: OpSleepFor, addr: addr, dur: d}, skip)
	t := e.cur
	if ev != nil {
		ev.Value = "woken"
		if t.timeout {
			ev.Value = fmt.Sprintf("timed out: clock +%v", time.Duration(d))
		}
	}
	return !t.timeout
}

// Now reads the clock of the running execution: [Epoch], plus the
// durations of the timeouts so far, plus 1 ns for each reading before this
// one, so that no two readings are equal, as with a real monotonic clock
// (code may tell "polled again since" by a changed time stamp). It is not
// a scheduling point, and the reduction does not treat two readings as
// conflicting: schedules that differ only in which of two threads read the
// clock first are explored once. Call it only while [Active].
func Now() int64 {
	e := current
	e.clock++
	return e.clock - 1
}

// Cleanup registers fn to run once the running execution is over, however
// it ended (finished, pruned, or failed), after every thread of it has
// exited and with the explorer no longer active: the place to release what
// an execution opened outside the explorer's control (descriptors, above
// all), which a thread cut short at a scheduling point never reaches.
// Cleanups run in the reverse order of registration. Call it only while
// [Active].
func Cleanup(fn func()) {
	e := current
	e.cleanups = append(e.cleanups, fn)
}

// Load is the scheduling point and the effect of a load of the atomic at
// addr with order ord: under SC it reads the real memory, under RC11 the
// store the search chooses. skip is as for [Point].
func Load(addr unsafe.Pointer, k Kind, ord Order, skip int) Value {
	e := current
	ev := e.point(access{op: OpLoad, addr: addr}, skip)
	if e.weak() {
		return e.weakLoad(e.cur, addr, k, e.order(ord, OpLoad, skip+1), ev)
	}
	v := readReal(addr, k)
	if ev != nil {
		ev.Value = "→ " + ev.show(v, k)
	}
	return v
}

// Store is the scheduling point and the effect of a store of v to the
// atomic at addr with order ord. skip is as for [Point].
func Store(addr unsafe.Pointer, k Kind, ord Order, v Value, skip int) {
	e := current
	ev := e.point(access{op: OpStore, addr: addr}, skip)
	if e.weak() {
		e.weakStore(e.cur, addr, k, e.order(ord, OpStore, skip+1), v, ev)
		return
	}
	old := readReal(addr, k)
	writeReal(addr, k, v)
	ev.stored(old, v, 0, k)
}

// Cas is the scheduling point and the effect of a compare-and-swap of the
// atomic at addr from old to new, with order ord on success. skip is as
// for [Point].
func Cas(addr unsafe.Pointer, k Kind, ord Order, old, new Value, skip int) bool {
	e := current
	ev := e.point(access{op: OpCas, addr: addr}, skip)
	var seen Value
	if e.weak() {
		seen = e.weakRMW(e.cur, addr, k, e.order(ord, OpCas, skip+1), casOp, new, old, ev)
	} else {
		seen = readReal(addr, k)
		if seen.equal(old) {
			writeReal(addr, k, new)
			ev.stored(seen, new, 0, k)
		}
	}
	if !seen.equal(old) {
		if e.ex.dpor {
			e.ex.stack[e.stepNode].readOnly = true // a failed Cas wrote nothing
		}
		if ev != nil {
			ev.Value = "fails: is " + ev.show(seen, k) + ", not " + ev.show(old, k)
		}
		return false
	}
	return true
}

// RMW is the scheduling point and the effect of a read-modify-write of the
// atomic at addr, an add or a swap of arg: it reads the latest store,
// stores what op makes of it, and returns what it read. skip is as for
// [Point].
func RMW(addr unsafe.Pointer, k Kind, ord Order, op RMWOp, arg Value, skip int) Value {
	e := current
	ev := e.point(access{op: OpRMW, addr: addr}, skip)
	if e.weak() {
		return e.weakRMW(e.cur, addr, k, e.order(ord, OpRMW, skip+1), op, arg, Value{}, ev)
	}
	old := readReal(addr, k)
	nv, _ := op.apply(old, k, arg, Value{})
	writeReal(addr, k, nv)
	ev.stored(old, nv, 0, k)
	return old
}

// Fence is the scheduling point and the effect of a sequentially
// consistent fence. skip is as for [Point].
func Fence(skip int) {
	e := current
	e.point(access{op: OpFence}, skip)
	if e.weak() {
		e.weakFence(e.cur)
	}
}
