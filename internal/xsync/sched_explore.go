//go:build vsched_explore

package xsync

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/vsched/vsched/internal/explorer"
)

// direct is the skip of explorer.Point for the methods here, which call it
// directly: their callers are one frame closer than those of the atomics.
const direct = 1

// Mutex is a mutual exclusion lock; the zero value is unlocked. In a model
// the explorer keeps its state: Lock is a scheduling point that can run only
// while the mutex is free, and every thread blocked in Lock is how the
// explorer sees a deadlock.
type Mutex struct {
	holder holder // who holds mu outside a model (AssertHeld)
	mu     sync.Mutex
}

// Lock locks m, blocking until it is available.
func (m *Mutex) Lock() {
	if !explorer.Active() {
		m.mu.Lock()
		m.holder.set()
		return
	}
	explorer.Point(explorer.OpLock, unsafe.Pointer(m), direct)
}

// Unlock unlocks m. It is a run-time error if m is not locked.
func (m *Mutex) Unlock() {
	if !explorer.Active() {
		m.holder.clear()
		m.mu.Unlock()
		return
	}
	explorer.Point(explorer.OpUnlock, unsafe.Pointer(m), direct)
}

// modelHolds reports, inside a model, whether the running thread holds m:
// the explorer keeps each mutex's holder itself, since Lock there never
// touches mu.
func modelHolds(m *Mutex) (inModel, held bool) {
	if !explorer.Active() {
		return false, false
	}
	return true, explorer.Holds(unsafe.Pointer(m))
}

// Note is a one-shot park/unpark signal; see the default build for the
// contract. In a model Sleep can run only while a wakeup is pending, so a
// thread asleep with no wakeup coming is reported as a deadlock: a lost
// wakeup.
type Note struct {
	once  sync.Once
	ch    chan struct{}
	timer *time.Timer
}

func (n *Note) init() { n.once.Do(func() { n.ch = make(chan struct{}, 1) }) }

// Sleep blocks until Wakeup has been called, then consumes that Wakeup.
func (n *Note) Sleep() {
	if !explorer.Active() {
		n.init()
		<-n.ch
		return
	}
	explorer.Point(explorer.OpSleep, unsafe.Pointer(n), direct)
}

// SpinSleep is Sleep after a spin of up to d; see the default build. In a
// model it is Sleep: the spin only looks for a Wakeup, so it adds no
// interleaving that Sleep lacks.
func (n *Note) SpinSleep(d time.Duration) {
	if explorer.Active() {
		n.Sleep()
		return
	}
	n.spinSleep(d)
}

// SleepFor is Sleep with a timeout; see the default build. In a model it
// ends by a Wakeup, or by its timeout when the exploration allows one
// (explore.Config.Timeouts): the explorer then chooses, among the
// schedules it explores, the moments at which time passes, and the
// model's clock (Nanotime) moves on by d. With no timeout left, it ends
// only by a Wakeup, and a thread that waits for a timeout it is not
// given shows as a deadlock.
func (n *Note) SleepFor(d time.Duration) bool {
	if explorer.Active() {
		return explorer.SleepFor(unsafe.Pointer(n), int64(d), direct)
	}
	return n.sleepFor(d)
}

// Wakeup makes the current or the next Sleep return. It does not block.
func (n *Note) Wakeup() {
	if !explorer.Active() {
		n.init()
		select {
		case n.ch <- struct{}{}:
		default:
			panic("xsync: Note.Wakeup: a wakeup is already pending (one-shot note woken twice)")
		}
		return
	}
	explorer.Point(explorer.OpWakeup, unsafe.Pointer(n), direct)
}

// Spin is the hint a goroutine gives while it waits for another to make
// progress. In a model it is a free switch: the thread does not run again
// before another thread has taken a step, unless no other can.
func Spin() {
	if !explorer.Active() {
		runtime.Gosched()
		return
	}
	explorer.Point(explorer.OpSpin, nil, direct)
}

// InModel reports whether the caller runs inside an explorer model; see
// the default build.
func InModel() bool { return explorer.Active() }

// Go starts fn on a new goroutine; in a model, as a new thread of the
// explorer.
func Go(fn func()) {
	if !explorer.Active() {
		go fn()
		return
	}
	explorer.Go(fn, direct)
}

// Event is a one-shot broadcast; see the default build. In a model Set and
// Wait are scheduling points, and a Wait with no Set coming is reported as a
// deadlock. A model may have one waiter per Event at a time.
type Event struct {
	once  sync.Once
	ch    chan struct{}
	set   sync.Once
	state Uint32 // 1 once set, in a model
	note  Note   // a waiter in a model sleeps here
}

func (e *Event) init() { e.once.Do(func() { e.ch = make(chan struct{}) }) }

// Set sets the event; later calls do nothing.
func (e *Event) Set() {
	if explorer.Active() {
		if e.state.Swap(1) == 0 {
			e.note.Wakeup()
		}
		return
	}
	e.init()
	e.set.Do(func() { close(e.ch) })
}

// Wait blocks until the event is set.
func (e *Event) Wait() {
	if explorer.Active() {
		if e.state.Load() == 0 {
			e.note.Sleep()
		}
		return
	}
	<-e.Done()
}

// Done returns a channel that is closed when the event is set. It is not
// modelled: a model must use Wait.
func (e *Event) Done() <-chan struct{} {
	if explorer.Active() {
		panic("xsync: Event.Done is not modelled: a model must use Wait")
	}
	e.init()
	return e.ch
}
