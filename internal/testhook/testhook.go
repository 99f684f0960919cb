// Package testhook gives this module's tests and verifiers the internals of
// the scheduler's packages that they check and that no user may reach: the
// packages fill its variables when they are initialized, and because this
// package is internal, only code inside this module can read them.
//
// A variable is nil until the package that fills it has been initialized;
// a test gets that for free by importing the package it tests.
package testhook

// Filled by package runq. q is a *runq.Queue[T] of any T.
var (
	// RunqStartAt makes the empty queue q start its free-running head
	// and tail counters at n, so that tests reach uint32 wraparound in
	// a few operations. It panics if q is not empty.
	RunqStartAt func(q any, n uint32)
	// RunqCounters returns q's head and tail counters, which tests check
	// stay within Size of each other and never move backwards. Only the
	// owner may call it, or anyone in a quiescent state.
	RunqCounters func(q any) (head, tail uint32)
)

// Filled by package kernel. k is a *kernel.Kernel.
var (
	// KernelModel is a kernel.Option for the explorer's models of the
	// scheduler's wakeup protocol: no monitor, so that its thread and its
	// rounds add nothing to the schedules explored.
	KernelModel any
	// NewManual returns a kernel of procs Ps without workers, driven by
	// its caller; see [Manual].
	NewManual func(procs int) (Manual, error)
	// MonitorPoll is the monitor's netpoll for the explorer's models, in
	// most of which the monitor does not run: one poll as if nobody had
	// polled for the monitor's longest gap. It reports whether the poll
	// woke a task.
	MonitorPoll func(k any) bool
	// MonitorOutOfDeepSleep reports whether k's monitor is not in its
	// deep sleep: awake, about to run after a wakeup, or in a timed round.
	MonitorOutOfDeepSleep func(k any) bool
)

// Manual is a kernel without workers, driven by one goroutine, its caller,
// as its only M: each Schedule call runs findRunnable on a P the caller
// chooses and runs the task it finds, synchronously. The property tests
// check it step by step against spec.Scheduler. A Manual has no monitor,
// no steal pause, and never parks.
type Manual interface {
	// Kernel returns the *kernel.Kernel, for Go and Stats.
	Kernel() any
	// Schedule runs findRunnable on P p with the steal randomness rand
	// and, if it finds a task, runs it to the end of its function and
	// carries out what it asked for. It reports whether a task ran and
	// whether it inherited the time slice. Only the goroutine that made
	// the Manual may call it, never from inside a task.
	Schedule(p int, rand func() uint32) (ran, inheritTime bool)
	// Local returns the number of tasks in P p's local queue, runnext
	// included.
	Local(p int) int
}

// GroupState is a group's state as GroupStateOf reads it.
type GroupState struct {
	Pending     int64 // tasks added and not finished, queued ones included
	Limited     bool  // the group has had a limit
	Active      int   // tasks counted against the limit, started and not finished
	Queued      int   // functions in the limit's queue
	Joins       int   // registered Join continuations
	Waiters     int   // blocked Waits
	RoomWaiters int   // GoWaits blocked on the limit
	Err         error // the first error
}

// Filled by package kernel. g is a *kernel.Group.
var (
	// GroupStateOf reads g's state under its lock.
	GroupStateOf func(g any) GroupState
)
