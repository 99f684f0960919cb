package netpoll

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/vsched/vsched/internal/xsync"
)

// Errors of the package. Compare them with [errors.Is].
var (
	// ErrClosed is the outcome of a wait on a Desc closed meanwhile, and
	// the error of any use of a closed Desc or Poller.
	ErrClosed = errors.New("netpoll: closed")
	// ErrBusy is returned by [Desc.PrepareWait] when a task already waits
	// on the slot: at most one waiter per direction.
	ErrBusy = errors.New("netpoll: a task already waits on this descriptor in this direction")
	// ErrUnsupported is wrapped by the error of [New] on systems without a
	// poller backend (everything but Linux, for now).
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

// Waiter is what a wait slot holds while a task is parked on it: the
// scheduler makes one per task ([NewWaiter]) and gets it back from
// [Poller.Poll], or from the ready function given to [New], once the wait
// is over.
type Waiter struct {
	task any
	// ioready is set by the notifier that takes the waiter out of its
	// slot: true for readiness, false for a deadline or a close. The
	// notifier owns the waiter then; the scheduler's queues publish it.
	ioready bool
}

// NewWaiter returns a Waiter for the scheduler's task; [Waiter.Task]
// returns it back.
func NewWaiter(task any) *Waiter { return &Waiter{task: task} }

// Task returns the task given to [NewWaiter].
func (w *Waiter) Task() any { return w.task }

// The two non-nil states of a slot that are not a parked waiter (the
// runtime's pdReady and pdWait).
var (
	pdReady = &Waiter{}
	pdWait  = &Waiter{}
)

// The bits of Desc.info, read without the lock by PrepareWait (the
// runtime's atomicInfo).
const (
	infoClosing = 1 << iota
	infoReadExpired
	infoWriteExpired
)

// slot is a read or write wait slot (the runtime's pollDesc.rg or wg).
type slot struct {
	state xsync.Pointer[Waiter]
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
	// and then look at the slot, PrepareWait announces a wait and then
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

// Exceptional reports whether a [Poller.Poll] has seen an exceptional
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

// PrepareWait is the scheduler's first half of a wait in mode (the
// runtime's netpollblock up to gopark). It reports wait when the slot now
// says a task is about to park; the scheduler must then call
// [Desc.CommitWait] once the task's function has returned. Otherwise the
// wait is over already: err is nil when an edge was latched (the task
// should try its I/O again), [ErrClosed] or [ErrDeadlineExceeded] when one
// of those ended it, and [ErrBusy] when another task waits on the slot.
func (d *Desc) PrepareWait(mode Mode) (wait bool, err error) {
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

// CommitWait parks w on the slot that [Desc.PrepareWait] left in wait (the
// runtime's netpollblockcommit). It reports false when readiness, a
// deadline or Close came first: the task must then run again at once, and
// [Desc.FinishWait] tells it why. After true, the slot owns w until a
// notifier returns it.
func (d *Desc) CommitWait(mode Mode, w *Waiter) bool {
	// Counted before the CAS, so that a notifier that takes w out at once
	// never takes the count below the number of parked waiters.
	d.p.waiters.Add(1)
	w.ioready = false
	if d.slot(mode).state.Cas(pdWait, w) {
		return true
	}
	d.p.waiters.Add(-1)
	return false
}

// FinishWait ends a wait whose commit of w failed, or whose waiter w was
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
func (d *Desc) FinishWait(mode Mode, w *Waiter) error {
	woken := w != nil && w.ioready
	if w != nil {
		w.ioready = false
	}
	if d.slot(mode).state.Cas(pdReady, nil) || woken {
		return nil
	}
	return d.checkErr(mode)
}

// CancelWait takes back a wait that [Desc.PrepareWait] armed and nobody
// will commit (the task died before its function returned): the slot goes
// from wait back to nil. An edge or a close that came meanwhile stays in
// the slot for the next waiter.
func (d *Desc) CancelWait(mode Mode) {
	d.slot(mode).state.Cas(pdWait, nil)
}

// unblock is the notifier's side of a slot (the runtime's netpollunblock):
// readiness latches ready, a deadline or Close clears a wait. It returns
// the waiter it took out of the slot, which the caller must make runnable.
func (d *Desc) unblock(mode Mode, ioready bool) *Waiter {
	s := d.slot(mode)
	for {
		old := s.state.Load()
		if old == pdReady || old == nil && !ioready {
			return nil
		}
		var next *Waiter
		if ioready {
			next = pdReady
		}
		if s.state.Cas(old, next) {
			if old == nil || old == pdWait {
				return nil // the committer's CAS fails and sees the new state
			}
			d.p.waiters.Add(-1)
			old.ioready = ioready
			return old
		}
	}
}

// Close ends the registration: every waiter is woken with [ErrClosed]
// (through the Poller's ready function), later waits fail with it, and the
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
	var woken *Waiter
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
func (d *Desc) expire(mode Mode, seq uint32) *Waiter {
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
