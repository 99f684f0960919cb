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
