// Package pollproto is the private protocol between the scheduler (package
// kernel) and its poller (package netpoll): the waiter a parked task leaves
// in a descriptor's wait slot, and the operations on the poller and the wait
// slots that only the scheduler may call. Package netpoll keeps them
// unexported and hands them over here when it is initialized; because this
// package is internal, no other module can reach them.
//
// The protocol itself, the four states of a wait slot and who moves a slot
// from which state to which, is described in netpoll's desc.go.
package pollproto

import "time"

// Waiter is what a wait slot holds while a task is parked on it. The
// scheduler makes one per task ([NewWaiter]) and gets it back from
// [Ops.Poll], [Ops.Expire] or the ready function given to [Ops.New] once
// the wait is over.
type Waiter struct {
	task any
	// IOReady is set by the notifier that takes the waiter out of its
	// slot: true for readiness, false for a deadline or a close. Only
	// netpoll reads and writes it; the notifier owns the waiter then, and
	// the scheduler's queues publish it to the task's next run.
	IOReady bool
}

// NewWaiter returns a Waiter for the scheduler's task; [Waiter.Task]
// returns it back.
func NewWaiter(task any) *Waiter { return &Waiter{task: task} }

// Task returns the task given to [NewWaiter].
func (w *Waiter) Task() any { return w.task }

// Ops are the scheduler's side of netpoll, on its poller type P, its
// descriptor type D and its direction type M. Each field's doc is the
// doc of the netpoll function it holds.
type Ops[P, D any, M ~uint8] struct {
	// New makes a poller whose ready function receives the waiters woken
	// outside a poll (by a Close, or a deadline set in the past).
	New func(ready func(*Waiter)) (P, error)
	// Poll waits up to delay (-1: no limit, 0: not at all) for readiness
	// and the deadlines, and appends the waiters they woke to list.
	Poll func(p P, delay time.Duration, list []*Waiter) []*Waiter
	// Expire fires the deadlines that have passed without polling.
	Expire func(p P, list []*Waiter) []*Waiter
	// Break wakes a Poll that blocks.
	Break func(p P)
	// Close closes the poller.
	Close func(p P) error

	// PrepareWait is the first half of a wait (netpollblock up to gopark).
	PrepareWait func(d D, mode M) (wait bool, err error)
	// CommitWait parks w on the slot PrepareWait armed (netpollblockcommit).
	CommitWait func(d D, mode M, w *Waiter) bool
	// FinishWait ends a wait and returns its outcome.
	FinishWait func(d D, mode M, w *Waiter) error
	// CancelWait takes back a wait nobody will commit.
	CancelWait func(d D, mode M)
}

var ops any

// Set records netpoll's operations. netpoll calls it once, from init.
func Set[P, D any, M ~uint8](o Ops[P, D, M]) {
	if ops != nil {
		panic("pollproto: Set called twice")
	}
	ops = o
}

// Get returns the operations netpoll recorded. It panics when netpoll has
// not been initialized, or with other types than netpoll's.
func Get[P, D any, M ~uint8]() Ops[P, D, M] {
	o, ok := ops.(Ops[P, D, M])
	if !ok {
		panic("pollproto: Get before netpoll's init, or with types that are not netpoll's")
	}
	return o
}
