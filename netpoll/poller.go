package netpoll

import (
	"container/heap"
	"math"

	"github.com/vsched/vsched/internal/xsync"
)

// MaxEvents is the most epoll events one poll collects, as the runtime's
// netpoll does.
const MaxEvents = 128

// Poller is an epoll instance with its registered descriptors, their
// deadline timers and a break eventfd (the runtime's netpoll state). A
// kernel makes one (kernel.Kernel.Poller) and polls it; sockets are made
// on it with [Listen] and [Dial], other descriptors join with
// [Poller.Register]. Its methods are safe for concurrent use.
type Poller struct {
	epfd, evfd int // -1 without a backend (a test's poller)
	wf         waitFile
	ready      func(*waiter)

	// A modelled sleep of a blocking wait (explorer build only).
	sleeping xsync.Uint32
	note     xsync.Note

	waiters xsync.Int32  // tasks parked on slots
	wakeSig xsync.Uint32 // a Break is pending (netpollWakeSig)
	closed  xsync.Uint32

	mu    xsync.Mutex // the table of registrations
	table []*Desc
	free  []uint32
	seq   uint32

	drain [8]byte // the eventfd's count, drained under mu

	tmu    xsync.Mutex // the timers, sleepUntil and evbufs
	timers timerHeap
	// next is the earliest deadline of timers (nanotime), 0 when there is
	// none: written under tmu whenever the heap changes, read without it
	// by Expire.
	next xsync.Int64
	// sleepUntil is when the Poll blocked now will return at the latest
	// (math.MaxInt64 for no limit), or 0 when no Poll blocks.
	sleepUntil int64
	evbufs     []*eventBuf

	// slept is [Poller.LastWaitSlept], which no ordering depends on. Only
	// the real wait sets it, not a model's.
	slept xsync.Hint
}

// Waiters returns the number of tasks parked on the Poller's slots (the
// runtime's netpollWaiters).
func (p *Poller) Waiters() int32 { return p.waiters.Load() }

// LastWaitSlept reports whether the last Poll that could block found
// nothing ready when it began and slept. A scheduler that is about to
// become the blocking poller may skip a non-blocking Poll while it holds:
// with readiness arriving no faster than polls can take it, that Poll
// would find nothing either, and the blocking one looks first anyway.
func (p *Poller) LastWaitSlept() bool { return p.slept.Load() }

// readyWaiter hands a waiter woken outside Poll (by Close or a deadline
// set in the past) to the scheduler.
func (p *Poller) readyWaiter(w *waiter) {
	if w != nil {
		p.ready(w)
	}
}

// register enters d in the table and gives it its index and tag.
func (p *Poller) register(d *Desc) {
	p.mu.Lock()
	p.seq++
	if p.seq == 0 {
		p.seq = 1
	}
	d.seq = p.seq
	if n := len(p.free); n > 0 {
		d.idx = p.free[n-1]
		p.free = p.free[:n-1]
		p.table[d.idx] = d
	} else {
		d.idx = uint32(len(p.table))
		p.table = append(p.table, d)
	}
	p.mu.Unlock()
}

// unregister frees d's index; an event still tagged with it is dropped.
func (p *Poller) unregister(d *Desc) {
	p.mu.Lock()
	if p.table[d.idx] == d {
		p.table[d.idx] = nil
		p.free = append(p.free, d.idx)
	}
	p.mu.Unlock()
}

// lookup returns the Desc an event's data word names, or nil for a stale
// event. Called with p.mu held.
func (p *Poller) lookupLocked(idx, seq uint32) *Desc {
	p.mu.AssertHeld("Poller.mu")
	if idx >= uint32(len(p.table)) {
		return nil
	}
	if d := p.table[idx]; d != nil && d.seq == seq {
		return d
	}
	return nil
}

// timer is a deadline of one direction of a Desc, in the Poller's heap.
//
// A deadline moved later while its timer is armed leaves the timer where
// it is (the runtime's timer.modify, which marks a timer in the heap
// timerModified under the timer's own lock and fixes the heap later): only
// due changes, under Desc.mu, and the Poller's lock and heap are not
// touched. The timer then fires at its old time with an older sequence
// number, and [Desc.expire], seeing it stale but still armed (due is not
// 0), puts it back at due. A server that moves an idle timeout before every request pays a
// pop and a push once per timeout period, not a heap fix per request.
type timer struct {
	d    *Desc
	mode Mode
	// when and seq are the timer's key in the heap (nanotime) and the
	// direction's deadline sequence it was armed with. Written under both
	// Desc.mu and Poller.tmu, so either lock reads them.
	when int64
	seq  uint32
	idx  int // in the heap, or -1; under tmu
	// due is the direction's deadline while the timer is armed, 0 when it
	// is not; under Desc.mu. The timer is armed from its arming until it
	// fires or is stopped: while it is in the heap, or taken out of it by
	// runTimers with its expire still to run. due is never earlier than
	// when.
	due int64
}

type timerHeap []*timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.idx = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.idx = -1
	return t
}

// heapedLocked reports whether t is in the heap. Called with tmu held.
func (p *Poller) heapedLocked(t *timer) bool {
	p.tmu.AssertHeld("Poller.tmu")
	return t.idx >= 0 && t.idx < len(p.timers) && p.timers[t.idx] == t
}

// resetTimer (re)arms t for when, and breaks a blocked Poll that would
// sleep past it.
func (p *Poller) resetTimer(t *timer, d *Desc, mode Mode, when int64, seq uint32) {
	p.tmu.Lock()
	t.d, t.mode, t.when, t.seq = d, mode, when, seq
	if p.heapedLocked(t) {
		heap.Fix(&p.timers, t.idx)
	} else {
		heap.Push(&p.timers, t)
	}
	p.publishNextLocked()
	brk := p.sleepUntil != 0 && when < p.sleepUntil
	p.tmu.Unlock()
	if brk {
		p.breakPoll()
	}
}

// stopTimer takes t out of the heap if it is there.
func (p *Poller) stopTimer(t *timer) {
	p.tmu.Lock()
	if p.heapedLocked(t) {
		heap.Remove(&p.timers, t.idx)
		p.publishNextLocked()
	}
	p.tmu.Unlock()
}

// publishNextLocked stores the earliest deadline in next. Called with tmu
// held, after a change to the heap.
func (p *Poller) publishNextLocked() {
	p.tmu.AssertHeld("Poller.tmu")
	var when int64
	if len(p.timers) > 0 {
		when = p.timers[0].when
	}
	p.next.Store(when)
}

// expired is a timer taken out of the heap to fire.
type expired struct {
	d    *Desc
	mode Mode
	seq  uint32
}

// runTimers fires every timer due at now, appending the waiters they wake
// to list. It takes the due timers out in batches and runs their expires
// outside tmu, until a batch finds none: a stale timer's expire may put it
// back already due (its deadline was moved later, to a time now past).
func (p *Poller) runTimers(now int64, list []*waiter) []*waiter {
	var due [16]expired
	for {
		n := 0
		p.tmu.Lock()
		for n < len(due) && len(p.timers) > 0 && p.timers[0].when <= now {
			t := heap.Pop(&p.timers).(*timer)
			due[n] = expired{t.d, t.mode, t.seq}
			n++
		}
		if n > 0 {
			p.publishNextLocked()
		}
		p.tmu.Unlock()
		if n == 0 {
			return list
		}
		for _, e := range due[:n] {
			if w := e.d.expire(e.mode, e.seq); w != nil {
				list = append(list, w)
			}
		}
	}
}

// expire fires the deadlines that have passed, without polling the
// descriptors, and returns the waiters they woke appended to list (the
// runtime's checkTimers). It is for a scheduler that looks at the
// deadlines more often than it polls: while no deadline is set it costs
// one atomic load, while one is set a clock read too. poll fires the
// deadlines as well. expire may run concurrently with poll.
func (p *Poller) expire(list []*waiter) []*waiter {
	if p.next.Load() == 0 {
		return list // small enough to inline: the usual case costs no call
	}
	return p.expireSlow(list)
}

// expireSlow is expire once a deadline is set. It loads next again: passing it
// from Expire would put Expire over the inlining budget.
func (p *Poller) expireSlow(list []*waiter) []*waiter {
	next := p.next.Load()
	if next == 0 || p.closed.Load() != 0 {
		return list
	}
	if now := xsync.Nanotime(); now >= next {
		return p.runTimers(now, list)
	}
	return list
}

// sleepStart computes how long a Poll of delay may block with the timers
// as they are (-1: no limit, 0: do not block), and records until when, so
// that an earlier deadline set meanwhile breaks it. now is the time the
// Poll read, or 0 when it read none (no deadline was set): sleepStart reads
// the clock then if it needs to.
func (p *Poller) sleepStart(now, delay int64) int64 {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	if now == 0 && (len(p.timers) > 0 || delay > 0) {
		now = xsync.Nanotime()
	}
	if len(p.timers) > 0 {
		next := p.timers[0].when - now
		if next <= 0 {
			return 0
		}
		if delay < 0 || next < delay {
			delay = next
		}
	}
	switch {
	case delay == 0:
	case delay < 0:
		p.sleepUntil = math.MaxInt64
	default:
		p.sleepUntil = now + delay
	}
	return delay
}

// sleepEnd records that the blocked Poll returned.
func (p *Poller) sleepEnd() {
	p.tmu.Lock()
	p.sleepUntil = 0
	p.tmu.Unlock()
}
