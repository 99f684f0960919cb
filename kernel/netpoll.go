package kernel

import (
	"errors"
	"time"

	"github.com/vsched/vsched/internal/pollproto"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/netpoll"
)

// ErrForeignDesc is returned by [Ctx.WaitRead] and [Ctx.WaitWrite] for a
// [netpoll.Desc] that is not registered with this kernel's poller.
var ErrForeignDesc = errors.New("kernel: the descriptor is not registered with this kernel's Poller")

// pollOps is the scheduler's side of netpoll: the poller's Poll, Expire,
// Break and Close and the wait-slot protocol, which netpoll exports to
// the kernel alone.
var pollOps = pollproto.Get[*netpoll.Poller, *netpoll.Desc, netpoll.Mode]()

// pollMaxGap is how long the kernel may go without polling before the
// monitor polls (sysmon's 10 ms).
const pollMaxGap = 10 * time.Millisecond

// ioWait is a task's wait on a wait slot, from Ctx.WaitRead or WaitWrite
// until the run after it ended.
type ioWait struct {
	d     *netpoll.Desc // nil: no wait
	mode  netpoll.Mode
	armed bool  // the slot says wait: commit it, or finish it
	err   error // the outcome, when the wait ended before it was armed
}

// Poller returns the kernel's [netpoll.Poller], made at the first call.
// Register descriptors with it (or use [netpoll.Listen] and
// [netpoll.Dial]) and wait for them with [Ctx.WaitRead] and
// [Ctx.WaitWrite]. Once a Poller exists, the kernel polls it: before
// stealing, when an M goes idle (one M at a time, blocking until
// readiness, the earliest deadline or new work), and from the monitor when
// nobody has polled for 10 ms.
//
// Poller returns an error wrapping [netpoll.ErrUnsupported] on systems
// without a poller backend, and [ErrClosed] once the kernel has stopped.
// The kernel closes the Poller when it stops; its descriptors stay the
// caller's to close.
func (k *Kernel) Poller() (*netpoll.Poller, error) {
	if np := k.poller.Load(); np != nil {
		return np, nil
	}
	k.lock.Lock()
	defer k.lock.Unlock()
	if np := k.poller.Load(); np != nil {
		return np, nil
	}
	if k.state.Load() == stateStopped {
		return nil, ErrClosed
	}
	np, err := pollOps.New(k.netpollReady)
	if err != nil {
		return nil, err
	}
	k.poller.Store(np)
	return np, nil
}

// pollWaiters reports whether tasks wait on the kernel's poller.
func (k *Kernel) pollWaiters() bool {
	np := k.poller.Load()
	return np != nil && np.Waiters() > 0
}

// netpollReady makes a task woken outside a poll (by Desc.Close, or a
// deadline set in the past) runnable, as a Wake does.
func (k *Kernel) netpollReady(w *pollproto.Waiter) {
	k.ready(w.Task().(*g))
}

// WaitRead asks for the task to wait until d is readable (or its peer hung
// up, or it failed), its read deadline passes, or it is closed: when the
// task's function returns, the task parks on d's read slot, and its
// function runs again from the top once the wait is over; [Ctx.WaitErr]
// then tells which of the three ended it. This is the runtime's
// netpollblock: try the I/O first, and wait only when it would block.
//
// The wait commits only after the function has returned, so readiness that
// comes earlier is not lost: the task then runs again at once. An edge that
// arrived before WaitRead, and that nobody consumed, ends the wait at once
// too, as does a closed d or an expired deadline.
//
// WaitRead returns an error, and arranges nothing, when another task waits
// on d's read slot ([netpoll.ErrBusy]) or d belongs to another Poller
// ([ErrForeignDesc]). It panics when the task already asked to park, wait
// or yield in this run.
func (c *Ctx) WaitRead(d *netpoll.Desc) error { return c.wait("WaitRead", d, netpoll.Read) }

// WaitWrite is [Ctx.WaitRead] for writability and the write deadline.
func (c *Ctx) WaitWrite(d *netpoll.Desc) error { return c.wait("WaitWrite", d, netpoll.Write) }

func (c *Ctx) wait(op string, d *netpoll.Desc, mode netpoll.Mode) error {
	mp := c.running(op)
	gp := c.g
	if gp.parking || gp.yield || gp.waitAsked() {
		panic("kernel: Ctx." + op + " called after Ctx.Park, Ctx.Yield or another wait in the same run")
	}
	if d == nil || d.Poller() != mp.k.poller.Load() {
		return ErrForeignDesc
	}
	if x := gp.extra(); x.pw == nil {
		x.pw = pollproto.NewWaiter(gp)
	}
	armed, err := pollOps.PrepareWait(d, mode)
	if errors.Is(err, netpoll.ErrBusy) {
		return err
	}
	gp.x.req = ioWait{d: d, mode: mode, armed: armed, err: err}
	return nil
}

// WaitErr returns how the wait that ended before this run ended: nil when
// the descriptor became ready (try the I/O again), an error matching
// [netpoll.ErrDeadlineExceeded] (which is os.ErrDeadlineExceeded) when
// its deadline passed, or [netpoll.ErrClosed] when it was closed. It
// returns nil in a run that did not follow a wait.
func (c *Ctx) WaitErr() error {
	c.running("WaitErr")
	if io := c.g.x; io != nil {
		return io.err
	}
	return nil
}

// commitWait ends gp's run that asked for a wait: the park commits by a CAS
// on the slot (netpollblockcommit), or, if the wait is over already, gp
// runs again at once from pp's resume slot. It reports whether gp parked;
// from then on the poller may run gp anywhere.
func (k *Kernel) commitWait(pp *p, gp *g) bool {
	if w := &gp.x.req; w.armed {
		if pollOps.CommitWait(w.d, w.mode, gp.x.pw) {
			return true
		}
	}
	if pp.resume != nil {
		throw("execute: the resume slot is full")
	}
	pp.resume = gp
	return false
}

// finishWait sets the outcome of a task's wait for the run about to begin.
func finishWait(io *gext) {
	w := &io.req
	io.err = w.err
	if w.armed {
		io.err = pollOps.FinishWait(w.d, w.mode, io.pw)
	}
	*w = ioWait{}
}

// cancelWait takes back the wait of a task that died in the run that asked
// for it.
func cancelWait(gp *g) {
	io := gp.x
	if io == nil {
		return
	}
	if w := &io.req; w.armed {
		pollOps.CancelWait(w.d, w.mode)
	}
	io.req = ioWait{}
}

// netpollToRun turns the waiters of a poll into tasks, in buf, stamping
// them runnable for the histograms while the polling M still owns them.
func (k *Kernel) netpollToRun(ws []*pollproto.Waiter, buf []*g) []*g {
	for i, w := range ws {
		gp := w.Task().(*g)
		k.stampReady(gp)
		buf = append(buf, gp)
		ws[i] = nil
	}
	return buf
}

// expireDeadlines makes the tasks whose passed deadlines findRunnable
// fired at its top (ws, from the poller's expire) runnable on pp
// (injectglist), as the runtime's checkTimers does with expired timers:
// only a P that runs out of work polls, so on a kernel whose Ps are all
// busy a deadline fires at the next findRunnable of any P rather than at
// the monitor's poll, up to pollMaxGap late. Executed only by pp's owner.
// Differs from the runtime: DESIGN.md §3.5.
func (k *Kernel) expireDeadlines(pp *p, ws []*pollproto.Waiter) {
	gs := k.netpollToRun(ws, pp.pollG[:0])
	pp.pollBuf = ws[:0]
	k.pollWakes.Add(uint64(len(gs)))
	k.injectglist(pp, gs)
	clear(gs)
	pp.pollG = gs[:0]
}

// pollNonBlocking is findRunnable's poll before stealing: only while tasks
// wait on the poller, no M blocks in it, no other M polls, and this M is not
// the blocking poller to be (pollsNext). It returns a task to run on pp and
// injects the rest.
func (k *Kernel) pollNonBlocking(pp *p) *g {
	np := k.poller.Load()
	if np == nil || np.Waiters() == 0 || k.lastpoll.Load() == 0 || k.pollsNext(np) || k.pollingNet.Swap(1) != 0 {
		return nil
	}
	ws := pollOps.Poll(np, 0, pp.pollBuf[:0])
	k.pollingNet.Store(0)
	if len(ws) == 0 {
		return nil
	}
	gs := k.netpollToRun(ws, pp.pollG[:0])
	pp.pollBuf = ws[:0]
	k.pollWakes.Add(uint64(len(gs)))
	gp := gs[0]
	k.injectglist(pp, gs[1:])
	clear(gs)
	pp.pollG = gs[:0]
	return gp
}

// pollsNext reports whether the M that is about to poll without blocking
// will be the blocking poller next anyway, with a wait that would look
// first: the kernel is not manual (a manual kernel's M never drops its P),
// every other P is idle (nothing to steal, and no other M to poll), the
// kernel runs (a stopping one polls only this way), and the last blocking
// wait found nothing and slept, so readiness comes no faster than polls
// take it. The non-blocking poll would then most likely find nothing, at
// the cost of a system call per round trip of a lone connection. Differs
// from the runtime: DESIGN.md §3.5.
func (k *Kernel) pollsNext(np *netpoll.Poller) bool {
	// LastWaitSlept before the loads of the kernel's state: in a model it
	// is false (a model's wait does not set it), and those loads would add
	// scheduling points.
	return !k.manual && np.LastWaitSlept() && k.npidle.Load() == int32(k.procs)-1 && k.state.Load() == stateRunning
}

// pollBlocking is findRunnable's blocking poll by an M that has dropped its
// P: if tasks wait on the poller and no other M blocks in it, this M does,
// until readiness, the earliest deadline, or a break. polled reports that
// it did. Then it either holds a P again (acquired), with a task to run or
// none (the caller looks for work again), or it has none: the woken tasks
// went to the global queue with Ms started for them, and the M parks.
// Differs from the runtime: DESIGN.md §3.5.
func (k *Kernel) pollBlocking(mp *m) (gp *g, pp *p, polled bool) {
	np := k.poller.Load()
	if np == nil || np.Waiters() == 0 || k.lastpoll.Swap(0) == 0 {
		return nil, nil, false
	}
	if k.state.Load() != stateRunning {
		// No blocking poll once Shutdown or Close began: a drain must see
		// every task the poller woke, which a blocked poller would hold,
		// and the stop's one Break may have gone to the M that polled
		// before this one. (The state was stored before that Break, and
		// that poller returned before this M could become the poller, so
		// the state tells here.)
		k.lock.Lock()
		k.lastpoll.Store(nanotime())
		k.checkDrainedLocked()
		k.lock.Unlock()
		return nil, nil, true
	}
	ws := pollOps.Poll(np, -1, mp.pollBuf[:0])
	gs := k.netpollToRun(ws, mp.pollG[:0])
	clear(ws)
	mp.pollBuf = ws[:0]
	k.pollWakes.Add(uint64(len(gs)))
	defer func() {
		clear(gs)
		mp.pollG = gs[:0]
	}()
	k.lock.Lock()
	// Out of the poller only now, under the lock, with what it woke
	// queued below: a drain never finds the poller gone and its tasks
	// nowhere.
	k.lastpoll.Store(nanotime())
	if k.state.Load() == stateStopped {
		for _, gp := range gs {
			k.dropLocked(gp) // Close: the queued tasks are dropped
		}
		k.lock.Unlock()
		return nil, nil, true
	}
	pp = k.pidleget()
	if pp == nil {
		k.globrunqputbatchLocked(gs)
		if len(gs) == 0 {
			k.checkDrainedLocked()
		}
		k.lock.Unlock()
		k.injectglist(nil, gs)
		return nil, nil, true
	}
	k.lock.Unlock()
	k.acquirep(mp, pp)
	if len(gs) == 0 {
		return nil, pp, true
	}
	gp = gs[0]
	k.injectglist(pp, gs[1:])
	return gp, pp, true
}

// pollFromMonitor is the monitor's poll when nobody has polled for
// pollMaxGap (sysmon's): everything it wakes goes to the global queue, and
// an M is started per idle P. Executed only by the monitor. Differs from
// the runtime: DESIGN.md §3.5.
func (k *Kernel) pollFromMonitor(now int64) bool {
	np := k.poller.Load()
	if np == nil || np.Waiters() == 0 {
		return false
	}
	// Move lastpoll on as sysmon does, not to 0: an M going idle while
	// this poll runs must still become the blocking poller, or, with every
	// P idle, nobody polls once the monitor sleeps. pollingNet, held
	// until what the poll woke is queued, keeps a drain from finishing
	// before it is; so whoever releases it looks at the drain, as every
	// store that can complete the drain's conditions must.
	last := k.lastpoll.Load()
	if last == 0 || now-last < int64(pollMaxGap) || k.pollingNet.Swap(1) != 0 {
		return false
	}
	if !k.lastpoll.Cas(last, nanotime()) {
		// An M polled meanwhile. It may have been a draining M that took
		// lastpoll to 0 and back and saw pollingNet held: the drain is
		// this release's to finish.
		k.lock.Lock()
		k.pollingNet.Store(0)
		k.checkDrainedLocked()
		k.lock.Unlock()
		return false
	}
	ws := pollOps.Poll(np, 0, k.mon.pollBuf[:0])
	gs := k.netpollToRun(ws, k.mon.pollG[:0])
	clear(ws)
	k.mon.pollBuf = ws[:0]
	k.pollWakes.Add(uint64(len(gs)))
	k.lock.Lock()
	k.globrunqputbatchLocked(gs)
	k.pollingNet.Store(0)
	k.checkDrainedLocked()
	k.lock.Unlock()
	k.injectglist(nil, gs)
	clear(gs)
	k.mon.pollG = gs[:0]
	return len(gs) > 0
}

// nanotime is xsync.Nanotime, never 0: lastpoll's 0 means an M is in the
// poller.
func nanotime() int64 { return max(xsync.Nanotime(), 1) }
