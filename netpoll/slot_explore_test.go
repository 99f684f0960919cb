//go:build vsched_explore

package netpoll

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
)

// Models of the wait-slot protocol, run by the explorer over every
// interleaving of the real code of desc.go (each slot and error-word
// operation, and each lock, is a scheduling point). A task's wait is the
// kernel's: PrepareWait while its function runs, CommitWait after it
// returns, FinishWait in the run after the wait ended. The notifiers are
// Poll's readiness (unblock), a deadline's timer (expire) and Close.

// modelDesc is a Desc on a Poller without an epoll instance, whose ready
// function counts the waiters it is handed.
func modelDesc(readied *xsync.Int32) *Desc {
	p := &Poller{epfd: -1, evfd: -1, ready: func(*Waiter) { readied.Add(1) }}
	d := &Desc{p: p, fd: -1}
	d.rt.idx, d.wt.idx = -1, -1
	p.register(d)
	return d
}

// slotTask is a task that waits once for mode on d: it reports whether it
// parked and the outcome of the wait.
type slotTask struct {
	w       *Waiter
	parked  bool
	outcome error
	ended   bool // the wait ended without parking
}

func (t *slotTask) wait(d *Desc, mode Mode) {
	t.w = NewWaiter(t)
	armed, err := d.PrepareWait(mode)
	explore.Assertf(!errors.Is(err, ErrBusy), "PrepareWait: %v with one waiter", err)
	if !armed {
		t.ended, t.outcome = true, err
		return
	}
	// The task's function returns here; the kernel commits.
	if d.CommitWait(mode, t.w) {
		t.parked = true
		return
	}
	t.ended, t.outcome = true, d.FinishWait(mode, t.w)
}

// notified counts the wakes a notifier returned, asserting that each is
// the waiter's.
func notified(t *slotTask, w *Waiter, wakes *xsync.Int32) {
	if w != nil {
		explore.Assertf(w == t.w, "a notifier returned a waiter that is not the task's")
		wakes.Add(1)
	}
}

// checkEnd asserts the protocol's properties once every thread is done:
// a task that parked was woken exactly once (no lost readiness, no double
// wake), one that did not was woken never, and no waiter is counted.
func checkEnd(d *Desc, t *slotTask, wakes int32) {
	if t.parked {
		explore.Assertf(wakes == 1, "the task parked and was woken %d times, want exactly once", wakes)
		t.outcome = d.FinishWait(Read, t.w)
	} else {
		explore.Assertf(wakes == 0, "the task did not park but was woken %d times", wakes)
	}
	n := d.p.Waiters()
	explore.Assertf(n == 0, "Waiters() = %d once every wait ended, want 0", n)
}

// waitVsReady: readiness races the wait. Readiness always comes, so a
// task that parked must be woken, and the wait ends ready.
func waitVsReady() {
	var readied, wakes xsync.Int32
	d := modelDesc(&readied)
	t := &slotTask{}
	th := explore.Go(func() { t.wait(d, Read) })
	notified(t, d.unblock(Read, true), &wakes)
	th.Join()
	checkEnd(d, t, wakes.Load())
	explore.Assertf(t.outcome == nil, "the wait ended with %v although only readiness came", t.outcome)
}

// waitVsDeadlineVsReady: readiness and the deadline's timer race the wait.
func waitVsDeadlineVsReady() {
	var readied, wakes xsync.Int32
	d := modelDesc(&readied)
	d.rseq = 1 // the deadline the timer was set for
	t := &slotTask{}
	th := explore.Go(func() { t.wait(d, Read) })
	timer := explore.Go(func() { notified(t, d.expire(Read, 1), &wakes) })
	notified(t, d.unblock(Read, true), &wakes)
	th.Join()
	timer.Join()
	checkEnd(d, t, wakes.Load())
	explore.Assertf(t.outcome == nil || errors.Is(t.outcome, ErrDeadlineExceeded),
		"the wait ended with %v", t.outcome)
}

// waitVsClose: Close, and readiness if withReady, race the wait; Close
// hands a parked waiter to the ready function rather than returning it.
// Without readiness, only Close can end a parked wait.
func waitVsClose(withReady bool) func() {
	return func() { waitVsCloseModel(withReady) }
}

func waitVsCloseModel(withReady bool) {
	var readied, wakes xsync.Int32
	d := modelDesc(&readied)
	t := &slotTask{}
	th := explore.Go(func() { t.wait(d, Read) })
	closer := explore.Go(func() { d.Close() })
	if withReady {
		notified(t, d.unblock(Read, true), &wakes)
	}
	th.Join()
	closer.Join()
	checkEnd(d, t, wakes.Load()+readied.Load())
	explore.Assertf(t.outcome == nil || errors.Is(t.outcome, ErrClosed), "the wait ended with %v", t.outcome)
	_, err := d.PrepareWait(Read)
	explore.Assertf(errors.Is(err, ErrClosed) || err == nil, "a wait after Close: %v", err)
}

// waitVsDeadline: the deadline's timer alone races the wait.
func waitVsDeadline() {
	var readied, wakes xsync.Int32
	d := modelDesc(&readied)
	d.rseq = 1
	t := &slotTask{}
	th := explore.Go(func() { t.wait(d, Read) })
	notified(t, d.expire(Read, 1), &wakes)
	th.Join()
	checkEnd(d, t, wakes.Load())
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the wait ended with %v, want the deadline", t.outcome)
}

// staleTimerVsNewDeadline: the timer of a deadline fires while the
// deadline is moved later. Whichever comes first, the new deadline is not
// expired at the end: a stale timer does nothing.
func staleTimerVsNewDeadline() {
	var readied xsync.Int32
	d := modelDesc(&readied)
	d.rseq = 1
	timer := explore.Go(func() { d.expire(Read, 1) })
	err := d.SetReadDeadline(xsync.Now().Add(time.Hour))
	explore.Assertf(err == nil, "SetReadDeadline: %v", err)
	timer.Join()
	err = d.checkErr(Read)
	explore.Assertf(err == nil, "the moved deadline reads as %v after a stale timer fired", err)
	d.p.stopTimer(&d.rt)
}

// deadlineMovedLaterVsTimer: a deadline is moved later while its timer's
// time comes. Whether the timer fires first (the old deadline passed),
// finds the deadline moved, or is taken out to fire before the move and
// expires after it, the direction is not expired at the end and its timer
// is armed in the heap at or before the new deadline, so that it fires.
func deadlineMovedLaterVsTimer() {
	var readied xsync.Int32
	d := modelDesc(&readied)
	err := d.SetReadDeadline(xsync.Now().Add(time.Hour))
	explore.Assertf(err == nil, "SetReadDeadline: %v", err)
	old := d.rt.when
	timer := explore.Go(func() { d.p.runTimers(old, nil) })
	err = d.SetReadDeadline(xsync.Now().Add(2 * time.Hour))
	explore.Assertf(err == nil, "SetReadDeadline: %v", err)
	timer.Join()
	err = d.checkErr(Read)
	explore.Assertf(err == nil, "the moved deadline reads as %v at the end", err)
	d.p.tmu.Lock()
	inHeap := d.p.heapedLocked(&d.rt)
	d.p.tmu.Unlock()
	explore.Assertf(inHeap && d.rt.when <= d.rt.due && d.rt.due > old,
		"the moved deadline (%d, was %d) has its timer in the heap %v at %d: it would never fire",
		d.rt.due, old, inHeap, d.rt.when)
	explore.Assertf(readied.Load() == 0, "%d waiters readied with none waiting", readied.Load())
	d.p.stopTimer(&d.rt)
}

// twoTimerRunsVsDeadlineChanges: two runs of the timers (two Polls, or a
// Poll and an Expire), each firing everything, take the timer out while
// its deadline is expired and then set again. A stale expire of one may
// put the timer back while the other's current one fires it. At the end
// the direction is either expired with its timer out of the heap and
// disarmed, or not expired with its timer armed in the heap at or before
// the deadline.
func twoTimerRunsVsDeadlineChanges() {
	var readied xsync.Int32
	d := modelDesc(&readied)
	err := d.SetReadDeadline(xsync.Now().Add(time.Hour))
	explore.Assertf(err == nil, "SetReadDeadline: %v", err)
	runs := []*explore.Thread{
		explore.Go(func() { d.p.runTimers(math.MaxInt64, nil) }),
		explore.Go(func() { d.p.runTimers(math.MaxInt64, nil) }),
	}
	for _, t := range []time.Time{xsync.Now().Add(-time.Second), xsync.Now().Add(2 * time.Hour)} {
		err := d.SetReadDeadline(t)
		explore.Assertf(err == nil, "SetReadDeadline: %v", err)
	}
	for _, r := range runs {
		r.Join()
	}
	expired := errors.Is(d.checkErr(Read), ErrDeadlineExceeded)
	d.p.tmu.Lock()
	inHeap := d.p.heapedLocked(&d.rt)
	d.p.tmu.Unlock()
	if expired {
		explore.Assertf(!inHeap && d.rt.due == 0, "the deadline expired, yet its timer is in the heap %v, armed for %d: it would fire again", inHeap, d.rt.due)
	} else {
		explore.Assertf(inHeap && d.rt.due != 0 && d.rt.when <= d.rt.due,
			"the deadline %d is set, but its timer is in the heap %v at %d: it would never fire", d.rt.due, inHeap, d.rt.when)
	}
	d.p.stopTimer(&d.rt)
}

// twoDirections: a reader// twoDirections: a reader and a writer wait on one Desc while readiness
// of both directions and Close race them; each is woken at most once, and
// exactly once if it parked.
func twoDirections() {
	var readied, rwakes, wwakes xsync.Int32
	d := modelDesc(&readied)
	r, w := &slotTask{}, &slotTask{}
	rt := explore.Go(func() { r.wait(d, Read) })
	wt := explore.Go(func() { w.wait(d, Write) })
	notified(r, d.unblock(Read, true), &rwakes)
	notified(w, d.unblock(Write, true), &wwakes)
	rt.Join()
	wt.Join()
	for _, c := range []struct {
		t     *slotTask
		wakes int32
	}{{r, rwakes.Load()}, {w, wwakes.Load()}} {
		if c.t.parked {
			explore.Assertf(c.wakes == 1, "a waiter parked and was woken %d times", c.wakes)
		} else {
			explore.Assertf(c.wakes == 0, "a waiter that did not park was woken %d times", c.wakes)
		}
	}
	explore.Assertf(d.p.Waiters() == 0, "Waiters() = %d at the end", d.p.Waiters())
}

var slotModels = []struct {
	name  string
	model func()
}{
	{"WaitVsReady", waitVsReady},
	{"WaitVsDeadlineVsReady", waitVsDeadlineVsReady},
	{"WaitVsDeadline", waitVsDeadline},
	{"WaitVsClose", waitVsClose(false)},
	{"WaitVsCloseVsReady", waitVsClose(true)},
	{"StaleTimerVsNewDeadline", staleTimerVsNewDeadline},
	{"DeadlineMovedLaterVsTimer", deadlineMovedLaterVsTimer},
	{"TwoTimerRunsVsDeadlineChanges", twoTimerRunsVsDeadlineChanges},
	{"TwoDirections", twoDirections},
}

// TestWaitSlotModels explores every model completely (no preemption
// bound: they are small), the clock models with time passing at every
// point (clockTimeouts).
func TestWaitSlotModels(t *testing.T) {
	runSlotModels(t, explore.Config{MaxPreemptions: explore.Unbounded})
}

// TestWaitSlotModelsRC11 explores the same models under the weak memory
// model: every schedule (no preemption bound) and the default stale
// choices.
func TestWaitSlotModelsRC11(t *testing.T) {
	runSlotModels(t, explore.Config{MaxPreemptions: explore.Unbounded, Memory: explore.RC11})
}

func runSlotModels(t *testing.T, cfg explore.Config) {
	for _, m := range slotModels {
		t.Run(m.name, func(t *testing.T) { cfg.Check(t, m.model) })
	}
	clockCfg := cfg
	clockCfg.Timeouts = clockTimeouts
	for _, m := range clockModels {
		t.Run(m.name, func(t *testing.T) { clockCfg.Check(t, m.model) })
	}
}
