//go:build !vsched_explore

package xsync

import (
	"runtime"
	"sync"
	"time"
)

// Mutex is a mutual exclusion lock; the zero value is unlocked. It guards
// shared scheduler state, as sched.lock does in the runtime.
type Mutex struct {
	holder holder // who holds mu, in the checked builds (AssertHeld)
	mu     sync.Mutex
}

// Lock locks m, blocking until it is available.
func (m *Mutex) Lock() {
	m.mu.Lock()
	m.holder.set()
}

// Unlock unlocks m. It is a run-time error if m is not locked.
func (m *Mutex) Unlock() {
	m.holder.clear()
	m.mu.Unlock()
}

// modelHolds is the explorer's answer to AssertHeld inside a model: the
// default build has no model.
func modelHolds(*Mutex) (inModel, held bool) { return false, false }

// Note is a one-shot park/unpark signal between two goroutines, the user-space
// stand-in for the runtime's note (notesleep/notewakeup) on which an idle M
// parks.
//
// Wakeup makes the current or the next Sleep return; each Sleep consumes one
// Wakeup. At most one Wakeup may be pending: a second Wakeup before a Sleep
// has consumed the first is a protocol bug and panics, because it means two
// goroutines each believe they own the right to wake the sleeper.
//
// The zero value is a Note with no Wakeup pending.
type Note struct {
	once  sync.Once
	ch    chan struct{}
	timer *time.Timer // SleepFor's, made on first use
}

func (n *Note) init() { n.once.Do(func() { n.ch = make(chan struct{}, 1) }) }

// Sleep blocks until Wakeup has been called, then consumes that Wakeup.
func (n *Note) Sleep() {
	n.init()
	<-n.ch
}

// SpinSleep is Sleep after a spin of up to d: it looks for the Wakeup,
// yielding the thread to other goroutines between looks (runtime.Gosched),
// and blocks only once d has passed without one. It is for a sleeper that
// is often woken soon after it starts to sleep: a goroutine that blocks may
// leave its thread with nothing to run, and the Go scheduler then puts the
// thread to sleep, so that the Wakeup waits for the operating system to
// wake a thread. The spin is CPU spent: goroutines ready on the same Go P
// run during it, but it keeps that P from polling the Go netpoller, each
// Gosched may wake an idle P's thread, and other processes lose the CPU.
func (n *Note) SpinSleep(d time.Duration) { n.spinSleep(d) }

// SleepFor is Sleep with a timeout: it returns true when it consumed a
// Wakeup and false when d passed first (the runtime's notetsleep). Only one
// goroutine may sleep on a Note at a time.
func (n *Note) SleepFor(d time.Duration) bool {
	return n.sleepFor(d)
}

// Wakeup makes the current or the next Sleep return. It does not block.
func (n *Note) Wakeup() {
	n.init()
	select {
	case n.ch <- struct{}{}:
	default:
		panic("xsync: Note.Wakeup: a wakeup is already pending (one-shot note woken twice)")
	}
}

// Spin is the hint a goroutine gives while it waits for another goroutine to
// make progress (a retry loop, a spinning worker between passes). The default
// build yields the processor with runtime.Gosched, the user-space stand-in
// for the runtime's osyield; the explorer build switches threads here, which
// is also how it bounds spin loops.
func Spin() { runtime.Gosched() }

// InModel reports whether the caller runs inside an explorer model: never
// in the default build. Time does not pass in a model, so code that only
// time can make useful (firing deadlines) skips itself there instead of
// adding scheduling points to every model.
func InModel() bool { return false }

// Go starts fn on a new goroutine. The scheduler starts its workers and its
// monitor through Go so that the explorer build can run them as threads it
// controls.
func Go(fn func()) { go fn() }

// Event is a one-shot broadcast: after Set, every Wait returns at once. The
// scheduler's Shutdown and Close wait on Events for the workers to stop.
// The zero value is an Event that is not set.
type Event struct {
	once sync.Once
	ch   chan struct{}
	set  sync.Once
}

func (e *Event) init() { e.once.Do(func() { e.ch = make(chan struct{}) }) }

// Set sets the event; later calls do nothing.
func (e *Event) Set() {
	e.init()
	e.set.Do(func() { close(e.ch) })
}

// Wait blocks until the event is set.
func (e *Event) Wait() { <-e.Done() }

// Done returns a channel that is closed when the event is set, for a select
// that also waits for something else (a context). The explorer build does
// not model it: a model must use Wait.
func (e *Event) Done() <-chan struct{} {
	e.init()
	return e.ch
}
