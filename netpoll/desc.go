package netpoll

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/vsched/vsched/internal/pollproto"
	"github.com/vsched/vsched/internal/xsync"
)

// The scheduler's side of the package: what the kernel reaches through
// internal/pollproto, and how it stays safe.
//
// # Wait slots
//
// A slot holds one of four states, as the runtime's pollDesc.rg and wg do:
//
//  - nil: nothing pending, nobody waiting;
//  - ready: an edge arrived that nobody has consumed yet;
//  - wait: a task announced that it will park but has not committed;
//  - a *waiter: the task parked on it.
//
// The scheduler's side (prepareWait, commitWait, finishWait) is netpollblock
// split at gopark, with one difference: the runtime's woken goroutine clears
// its slot with a swap, which is safe because its fdMutex keeps a second
// reader out; here another task may wait on the slot as soon as a wait
// ended, so finishWait only consumes a latched edge, and the notifier
// records in the waiter how the wait ended. As in the runtime, prepareWait
// checks for close and an expired deadline, consumes a latched edge or moves
// nil to wait, and then checks for close and deadline again; the scheduler
// commits the park later, after the task's function has returned, by a CAS
// from wait to the waiter. If readiness, a deadline or Close changed the
// slot in between, the CAS fails and the task runs again at once, so no edge
// is lost however the two race. The notifier's side is netpollunblock:
// readiness moves any state but ready to ready, a deadline or Close moves
// wait or a waiter to nil, and whoever replaces a waiter returns it to be
// made runnable, exactly once.
//
// The ordering that makes close and deadlines safe is the runtime's: the
// waiter stores wait and then loads the error word; Close and a deadline
// store the error word and then load the slot. Every one of these is a
// sequentially consistent xsync operation, so one side sees the other.
//
// Poller.Waiters counts the tasks parked on slots: it rises when a commit
// succeeds and falls when a notifier takes a waiter out, so it is exact
// whenever nothing is in flight. The scheduler polls only while it is
// non-zero.
//
// # Deadline timers
//
// Each Desc has a read and a write deadline. A deadline is a timer in the
// Poller's heap, which poll runs: poll never sleeps past the earliest
// deadline, and setting a deadline earlier than the one a blocked poll
// sleeps towards breaks that poll. expire fires the passed deadlines without
// polling, for a scheduler that looks at them more often than it polls (the
// runtime's checkTimers). Every change of a deadline bumps its sequence
// number, and a timer that fires with an older one expires nothing, so a
// stale timer never expires a new deadline. A deadline in the past expires
// at once.
//
// A deadline moved later while its timer is armed leaves the timer where it
// is, as the runtime's timer.modify leaves a timer in its heap: the move
// takes only the Desc's lock, not the Poller's timer lock, and touches no
// heap. The timer fires at the old time, finds its sequence number stale and
// the timer still armed, and goes back into the heap at the new deadline. A
// server that moves an idle timeout before every wait so pays a pop and a
// push once per timeout period instead of a heap fix per request, and its
// tasks on different Ps do not meet at the timer lock; a blocked poll may
// wake once at the old time for nothing.
//
// # Stale events
//
// The epoll data word of a registration holds the Desc's index in the
// Poller's table and a sequence number unique to the registration; an event
// whose sequence no longer matches (the descriptor was closed, perhaps
// reused) is dropped. Go's garbage collector cannot see pointers held by the
// operating system, so the data word holds no pointer.
//
// # Breaks
//
// breakPoll writes to an eventfd registered with the epoll instance; a flag
// suppresses duplicate writes while one is pending, and only a poll that
// blocks drains it, as netpollBreak does.

// Errors of the package. Compare them with [errors.Is].
var (
	// ErrClosed is the outcome of a wait on a Desc closed meanwhile, and
	// the error of any use of a closed Desc or Poller.
	ErrClosed = errors.New("netpoll: closed")
	// ErrBusy is returned by kernel.Ctx.WaitRead and
	// kernel.Ctx.WaitWrite when another task already waits on the
	// descriptor in that direction: at most one waiter per direction.
	ErrBusy = errors.New("netpoll: a task already waits on this descriptor in this direction")
	// ErrUnsupported is wrapped by the errors of a kernel's Poller,
	// [Listen] and [Dial] on systems without a poller backend (everything
	// but Linux, for now).
	ErrUnsupported = errors.ErrUnsupported
	// ErrDeadlineExceeded is the outcome of a wait whose deadline passed.
	// It is os.ErrDeadlineExceeded, so errors.Is works with either.
	ErrDeadlineExceeded = os.ErrDeadlineExceeded
)

// Mode is the direction of a wait: [Read] or [Write].
type Mode uint8

const (
	Read  Mode = iota // readable, or the peer hung up, or an error
	Write             // writable, or an error
)

// String returns "read" or "write".
func (m Mode) String() string {
	if m == Read {
		return "read"
	}
	return "write"
}

// waiter is what a wait slot holds while a task is parked on it: the
// scheduler makes one per task and gets it back from Poller.poll, or from
// the ready function given to newPoller, once the wait is over.
type waiter = pollproto.Waiter

// The two non-nil states of a slot that are not a parked waiter (the
// runtime's pdReady and pdWait).
var (
	pdReady = &waiter{}
	pdWait  = &waiter{}
)

// The bits of Desc.info, read without the lock by prepareWait (the
// runtime's atomicInfo).
const (
	infoClosing = 1 << iota
	infoReadExpired
	infoWriteExpired
)

// slot is a read or write wait slot (the runtime's pollDesc.rg or wg).
type slot struct {
	state xsync.Pointer[waiter]
}

// Desc is a descriptor registered with a [Poller]: its read and write wait
// slots and deadlines. Make one with [Poller.Register]. All methods are
// safe for concurrent use.
type Desc struct {
	p   *Poller
	fd  int
	idx uint32 // index in p.table
	seq uint32 // the registration's tag in the epoll data word

	r, w slot
	// info is infoClosing | infoReadExpired | infoWriteExpired. Only
	// holders of mu change it, so they read it relaxed; every store and
	// checkErr's load are SC: Close, setDeadline and expire store a bit
	// and then look at the slot, prepareWait announces a wait and then
	// loads the bits, a store-buffering handshake (mutants
	// close-flag-release and checkerr-load-acquire break it).
	info xsync.Uint32
	// exc is 1 once a Poll has seen an exceptional condition on the
	// descriptor (see Exceptional).
	exc xsync.Uint32

	mu         xsync.Mutex // guards the fields below
	closing    bool
	rseq, wseq uint32 // bumped by every deadline change of the direction
	rt, wt     timer
}

func (d *Desc) slot(mode Mode) *slot {
	if mode == Read {
		return &d.r
	}
	return &d.w
}

// Exceptional reports whether a poll has seen an exceptional
// condition on the descriptor: the peer ended its side, a hangup, an error,
// or urgent (out-of-band) data (EPOLLRDHUP, EPOLLHUP, EPOLLERR, EPOLLPRI).
// It is set before the poll wakes the read waiter and stays set.
//
// It answers the one question an edge-triggered reader cannot answer from
// its own reads: whether a read shorter than its buffer drained the
// socket. TCP reads less than asked when its receive queue is empty, and
// also when the read stops at the peer's FIN, an error or the urgent mark.
// Data that arrives later raises a new edge; a FIN, an error or urgent
// data that came with the edge that woke the reader raises none. So a
// reader that reads short, and then finds Exceptional false, may wait for
// readability at once instead of reading until [ErrWouldBlock]; if
// Exceptional is true it must read on.
func (d *Desc) Exceptional() bool { return d.exc.Load() != 0 }

// Fd returns the descriptor's number.
func (d *Desc) Fd() int { return d.fd }

// Poller returns the Poller d is registered with.
func (d *Desc) Poller() *Poller { return d.p }

// String names the descriptor, for messages.
func (d *Desc) String() string { return fmt.Sprintf("netpoll.Desc(fd %d)", d.fd) }

// checkErr returns the error that ends a wait in mode now, if any
// (netpollcheckerr): closed, or the deadline has passed.
func (d *Desc) checkErr(mode Mode) error {
	info := d.info.Load()
	if info&infoClosing != 0 {
		return ErrClosed
	}
	expired := uint32(infoReadExpired)
	if mode == Write {
		expired = infoWriteExpired
	}
	if info&expired != 0 {
		return ErrDeadlineExceeded
	}
	return nil
}

// prepareWait is the scheduler's first half of a wait in mode (the
// runtime's netpollblock up to gopark). It reports wait when the slot now
// says a task is about to park; the scheduler must then call
// [Desc.commitWait] once the task's function has returned. Otherwise the
// wait is over already: err is nil when an edge was latched (the task
// should try its I/O again), [ErrClosed] or [ErrDeadlineExceeded] when one
// of those ended it, and [ErrBusy] when another task waits on the slot.
func (d *Desc) prepareWait(mode Mode) (wait bool, err error) {
	// Close and an expired deadline win over a latched edge, as in
	// poll_runtime_pollWait.
	if err := d.checkErr(mode); err != nil {
		return false, err
	}
	s := d.slot(mode)
	for {
		old := s.state.Load()
		switch {
		case old == pdReady:
			if s.state.Cas(pdReady, nil) {
				return false, nil
			}
		case old != nil:
			return false, ErrBusy
		case s.state.Cas(nil, pdWait):
			// Look for close and deadlines after announcing the wait:
			// they store their bit and then look at the slot.
			if err := d.checkErr(mode); err != nil {
				s.state.Swap(nil) // an edge that raced in is consumed by the retry
				return false, err
			}
			return true, nil
		}
	}
}

// commitWait parks w on the slot that [Desc.prepareWait] left in wait (the
// runtime's netpollblockcommit). It reports false when readiness, a
// deadline or Close came first: the task must then run again at once, and
// [Desc.finishWait] tells it why. After true, the slot owns w until a
// notifier returns it.
func (d *Desc) commitWait(mode Mode, w *waiter) bool {
	// Counted before the CAS, so that a notifier that takes w out at once
	// never takes the count below the number of parked waiters.
	d.p.waiters.Add(1)
	w.IOReady = false
	if d.slot(mode).state.Cas(pdWait, w) {
		return true
	}
	d.p.waiters.Add(-1)
	return false
}

// finishWait ends a wait whose commit of w failed, or whose waiter w was
// handed back (w may be nil when only one task ever waits on the slot),
// and returns its outcome: nil when the descriptor became
// ready, else [ErrClosed] or [ErrDeadlineExceeded]. It returns nil too for
// a wait ended by a deadline that was then moved: the task tries its I/O
// again and waits again if it must.
//
// It consumes a latched edge and touches no other state of the slot: once
// the wait is over, another task may already wait on the slot, and its
// waiter must stay there. (The runtime clears the slot with a swap; its
// fdMutex keeps a second reader out until then.)
func (d *Desc) finishWait(mode Mode, w *waiter) error {
	woken := w != nil && w.IOReady
	if w != nil {
		w.IOReady = false
	}
	if d.slot(mode).state.Cas(pdReady, nil) || woken {
		return nil
	}
	return d.checkErr(mode)
}

// cancelWait takes back a wait that [Desc.prepareWait] armed and nobody
// will commit (the task died before its function returned): the slot goes
// from wait back to nil. An edge or a close that came meanwhile stays in
// the slot for the next waiter.
func (d *Desc) cancelWait(mode Mode) {
	d.slot(mode).state.Cas(pdWait, nil)
}

// unblock is the notifier's side of a slot (the runtime's netpollunblock):
// readiness latches ready, a deadline or Close clears a wait. It returns
// the waiter it took out of the slot, which the caller must make runnable.
func (d *Desc) unblock(mode Mode, ioready bool) *waiter {
	s := d.slot(mode)
	for {
		old := s.state.Load()
		if old == pdReady || old == nil && !ioready {
			return nil
		}
		var next *waiter
		if ioready {
			next = pdReady
		}
		if s.state.Cas(old, next) {
			if old == nil || old == pdWait {
				return nil // the committer's CAS fails and sees the new state
			}
			d.p.waiters.Add(-1)
			old.IOReady = ioready
			return old
		}
	}
}

// Close ends the registration: every task waiting on it runs again and
// sees [ErrClosed], later waits fail with it, and the
// descriptor is removed from the epoll instance. Close does not close the
// descriptor itself; [Conn.Close] and [Listener.Close] do. It returns
// ErrClosed when called again.
func (d *Desc) Close() error {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return ErrClosed
	}
	d.closing = true
	d.rseq++
	d.wseq++
	d.info.Store(d.info.LoadRelaxed() | infoClosing)
	rw := d.unblock(Read, false)
	ww := d.unblock(Write, false)
	d.mu.Unlock()
	d.p.stopTimer(&d.rt)
	d.p.stopTimer(&d.wt)
	d.p.deregister(d)
	d.p.readyWaiter(rw)
	d.p.readyWaiter(ww)
	return nil
}

// SetDeadline sets the read and the write deadline; see
// [Desc.SetReadDeadline].
func (d *Desc) SetDeadline(t time.Time) error {
	if err := d.SetReadDeadline(t); err != nil {
		return err
	}
	return d.SetWriteDeadline(t)
}

// SetReadDeadline sets the time after which a read wait ends with
// [ErrDeadlineExceeded]; the zero time means none. A time in the past
// expires the deadline at once, waking a task that waits. It returns
// [ErrClosed] after Close.
func (d *Desc) SetReadDeadline(t time.Time) error { return d.setDeadline(Read, t) }

// SetWriteDeadline is [Desc.SetReadDeadline] for writes.
func (d *Desc) SetWriteDeadline(t time.Time) error { return d.setDeadline(Write, t) }

func (d *Desc) setDeadline(mode Mode, t time.Time) error {
	var when int64 // 0: no deadline
	expired := false
	if !t.IsZero() {
		until := xsync.Until(t)
		expired = until <= 0
		when = xsync.Nanotime() + int64(until)
		if until > 0 && when < 0 {
			when = math.MaxInt64 // overflowed: too far ahead to ever fire
		}
		if when <= 0 {
			when = 1
		}
	}
	seq, tm, bit := &d.rseq, &d.rt, uint32(infoReadExpired)
	if mode == Write {
		seq, tm, bit = &d.wseq, &d.wt, infoWriteExpired
	}
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return ErrClosed
	}
	*seq++
	s := *seq
	var woken *waiter
	if expired {
		d.info.Store(d.info.LoadRelaxed() | bit)
		woken = d.unblock(mode, false)
	} else {
		d.info.Store(d.info.LoadRelaxed() &^ bit)
	}
	// The timer changes under d.mu too, so that concurrent changes reach
	// it in the order of their sequence numbers: else the timer could be
	// left with an older one, and the deadline never fire.
	switch {
	case expired || when == 0:
		if tm.due != 0 {
			d.p.stopTimer(tm) // nothing to stop if it is out to fire
			tm.due = 0
		}
	case tm.due != 0 && tm.when <= when:
		tm.due = when // moved later: the timer goes back in when it fires
	default:
		tm.due = when
		d.p.resetTimer(tm, d, mode, when, s)
	}
	d.mu.Unlock()
	d.p.readyWaiter(woken)
	return nil
}

// expire is a deadline's timer firing, after runTimers took it out of the
// heap with the sequence number it was armed with (the runtime's
// netpolldeadlineimpl): unless the deadline changed since (seq), it marks
// the direction expired and returns the waiter it wakes. A stale timer
// expires nothing; if the deadline was moved later while the timer stayed
// armed, it goes back into the heap at the new deadline.
func (d *Desc) expire(mode Mode, seq uint32) *waiter {
	cur, tm, bit := &d.rseq, &d.rt, uint32(infoReadExpired)
	if mode == Write {
		cur, tm, bit = &d.wseq, &d.wt, infoWriteExpired
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closing {
		return nil
	}
	if *cur != seq {
		// A stale timer. If the deadline is still set and the timer still
		// armed, the deadline was moved later, or moved while the timer
		// was out to fire: arm it at the deadline (a no-op for a timer
		// another change already put back).
		if tm.due != 0 {
			d.p.resetTimer(tm, d, mode, tm.due, *cur)
		}
		return nil
	}
	// A stale expire that ran since this timer was taken out may have put
	// it back with the current sequence number: take it out again rather
	// than leave it in the heap to fire a second time. (A second firing
	// that got as far as here anyway only sets the bit again.)
	tm.due = 0
	d.p.stopTimer(tm)
	d.info.Store(d.info.LoadRelaxed() | bit)
	return d.unblock(mode, false)
}
