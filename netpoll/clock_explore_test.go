//go:build vsched_explore

package netpoll

import (
	"errors"
	"time"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
)

// Models of deadlines on the explorer's clock. A clock thread does what a
// blocked Poll does with the timers: it sleeps until the earliest armed
// deadline and then fires the timers that are due. Only a timeout ends its
// sleep, and the explorer lets the timeout come at every point the search
// allows (Config.Timeouts), and at once when every other thread is blocked,
// moving the model's clock on to the deadline. So each deadline fires at
// every point of the other threads' code: against the wait, readiness,
// Close and a change of the deadline.

// clockTimeouts is the timeouts a clock model may take while other threads
// could step; with every other thread blocked time passes anyway.
const clockTimeouts = 1

// clock fires p's deadlines on the model's clock, handing each waiter they
// wake to resume, until stop is set.
func clock(p *Poller, stop *xsync.Int32, resume func(*Waiter)) {
	var nap xsync.Note // never woken: only time ends its sleeps
	for stop.Load() == 0 {
		now := xsync.Nanotime()
		switch next := p.next.Load(); {
		case next != 0 && next <= now:
			for _, w := range p.runTimers(now, nil) {
				resume(w)
			}
		case next != 0:
			nap.SleepFor(time.Duration(next - now))
		default:
			nap.SleepFor(time.Hour) // nothing armed: wait for a deadline, or for stop
		}
	}
}

// parker is a task that waits for reading on a Desc the way the kernel
// runs one: when its wait parks, it sleeps until a notifier hands its
// Waiter on (the kernel would queue the task), then finishes the wait. A
// nil outcome without readiness (a deadline that was moved) sends it to
// wait again, as a task retries its I/O.
type parker struct {
	w       *Waiter
	resumed xsync.Note
	wakes   xsync.Int32
	outcome error
	at      int64 // the clock when the wait ended
}

// wait waits until the wait ends with an error, or with readiness when
// ready says one came.
func (t *parker) wait(d *Desc, ready *xsync.Int32) {
	t.w = NewWaiter(t)
	for {
		armed, err := d.PrepareWait(Read)
		if armed {
			if d.CommitWait(Read, t.w) {
				t.resumed.Sleep()
			}
			err = d.FinishWait(Read, t.w)
		}
		if err != nil || ready != nil && ready.Load() != 0 {
			t.outcome, t.at = err, xsync.Nanotime()
			return
		}
	}
}

// endedByDeadline asserts that the wait ended by the deadline due, and
// not before it.
func (t *parker) endedByDeadline(due int64) {
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the wait ended with %v, want the deadline", t.outcome)
	explore.Assertf(t.at >= due-slack, "the wait ended by the deadline at %d, before the deadline %d", t.at, due)
}

// resume is a notifier's hand-off of the waiter it took out of the slot.
func (t *parker) resume(w *Waiter) {
	if w == nil {
		return
	}
	explore.Assertf(w == t.w, "a notifier returned a waiter that is not the task's")
	t.wakes.Add(1)
	t.resumed.Wakeup()
}

// clockDesc is a Desc on a Poller without an epoll instance, whose ready
// function (Close's and a past deadline's hand-off) resumes t.
func clockDesc(t *parker) *Desc {
	p := &Poller{epfd: -1, evfd: -1}
	p.ready = t.resume
	d := &Desc{p: p, fd: -1}
	d.rt.idx, d.wt.idx = -1, -1
	p.register(d)
	return d
}

// setDeadline sets d's read deadline after from now and returns it on the
// model's clock.
func setDeadline(d *Desc, after time.Duration) int64 {
	at := xsync.Nanotime() + int64(after)
	err := d.SetReadDeadline(xsync.Now().Add(after))
	explore.Assertf(err == nil || errors.Is(err, ErrClosed), "SetReadDeadline: %v", err)
	return at
}

// slack is how far a deadline computed by setDeadline may lie from the
// one the Desc holds: the clock moves a nanosecond per reading.
const slack = int64(time.Microsecond)

// clockDeadline: a deadline set before the wait fires at any point of it,
// or once the task has parked. The wait ends by the deadline, not before.
func clockDeadline() {
	t := &parker{}
	d := clockDesc(t)
	due := setDeadline(d, time.Hour)
	var stop xsync.Int32
	c := explore.Go(func() { clock(d.p, &stop, t.resume) })
	t.wait(d, nil)
	stop.Store(1)
	c.Join()
	t.endedByDeadline(due)
	explore.Assertf(d.p.Waiters() == 0, "Waiters() = %d at the end", d.p.Waiters())
}

// clockDeadlineVsReady: readiness and the deadline race the wait; the wait
// ends by one of them, and by the deadline only once it has passed.
func clockDeadlineVsReady() {
	t := &parker{}
	d := clockDesc(t)
	due := setDeadline(d, time.Hour)
	var stop, ready xsync.Int32
	c := explore.Go(func() { clock(d.p, &stop, t.resume) })
	r := explore.Go(func() {
		ready.Store(1)
		t.resume(d.unblock(Read, true))
	})
	t.wait(d, &ready)
	r.Join()
	stop.Store(1)
	c.Join()
	if t.outcome != nil {
		t.endedByDeadline(due)
	}
	explore.Assertf(t.wakes.Load() <= 1, "the task was woken %d times", t.wakes.Load())
}

// clockDeadlineVsClose: Close and the deadline race the wait; the wait
// ends by one of them, and a closed Desc's timer stays quiet.
func clockDeadlineVsClose() {
	t := &parker{}
	d := clockDesc(t)
	due := setDeadline(d, time.Hour)
	var stop xsync.Int32
	c := explore.Go(func() { clock(d.p, &stop, t.resume) })
	cl := explore.Go(func() { d.Close() })
	t.wait(d, nil)
	cl.Join()
	stop.Store(1)
	c.Join()
	if !errors.Is(t.outcome, ErrClosed) {
		t.endedByDeadline(due)
	}
	explore.Assertf(t.wakes.Load() <= 1, "the task was woken %d times", t.wakes.Load())
}

// clockDeadlineMovedLater: a thread moves the deadline from one hour to
// two while the task waits and the clock runs. The wait ends by the
// deadline, and before the second hour only if the first may have passed
// before the move was done: a timer of the old deadline that fires after
// the move must not end the wait, and must not be lost either.
func clockDeadlineMovedLater() {
	t := &parker{}
	d := clockDesc(t)
	old := setDeadline(d, time.Hour)
	var stop xsync.Int32
	var movedAt, due int64
	c := explore.Go(func() { clock(d.p, &stop, t.resume) })
	m := explore.Go(func() {
		due = setDeadline(d, 2*time.Hour)
		movedAt = xsync.Nanotime() // in the step of the set's last unlock
	})
	t.wait(d, nil)
	m.Join()
	stop.Store(1)
	c.Join()
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the wait ended with %v, want the deadline", t.outcome)
	explore.Assertf(t.at >= due-slack || movedAt >= old,
		"the wait ended by the deadline at %d: the deadline had been moved from %d to %d at %d, before the old one passed",
		t.at, old, due, movedAt)
}

// clockDeadlineAgainAfterExpiry: a deadline fires and ends a wait; a new
// deadline, later than the one that fired, must fire again for the next
// wait.
func clockDeadlineAgainAfterExpiry() {
	t := &parker{}
	d := clockDesc(t)
	setDeadline(d, time.Hour)
	var stop xsync.Int32
	c := explore.Go(func() { clock(d.p, &stop, t.resume) })
	t.wait(d, nil)
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the first wait ended with %v, want the deadline", t.outcome)
	due := setDeadline(d, time.Hour)
	t.wakes.Store(0)
	t.wait(d, nil)
	stop.Store(1)
	c.Join()
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the second wait ended with %v, want the deadline", t.outcome)
	explore.Assertf(t.at >= due-slack, "the second wait ended at %d, before its deadline %d", t.at, due)
}

// waitVsPastDeadline: a deadline set in the past while the task waits ends
// the wait at once, whether the task has parked or not: no timer is left
// to do it later.
func waitVsPastDeadline() {
	t := &parker{}
	d := clockDesc(t)
	s := explore.Go(func() { setDeadline(d, -time.Second) })
	t.wait(d, nil)
	s.Join()
	explore.Assertf(errors.Is(t.outcome, ErrDeadlineExceeded), "the wait ended with %v, want the deadline", t.outcome)
	explore.Assertf(t.wakes.Load() <= 1, "the task was woken %d times", t.wakes.Load())
}

var clockModels = []struct {
	name  string
	model func()
}{
	{"ClockDeadline", clockDeadline},
	{"ClockDeadlineVsReady", clockDeadlineVsReady},
	{"ClockDeadlineVsClose", clockDeadlineVsClose},
	{"ClockDeadlineMovedLater", clockDeadlineMovedLater},
	{"ClockDeadlineAgainAfterExpiry", clockDeadlineAgainAfterExpiry},
	{"WaitVsPastDeadline", waitVsPastDeadline},
}
