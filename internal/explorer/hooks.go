//go:build vsched_explore

package explorer

import "unsafe"

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
