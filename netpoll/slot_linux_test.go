//go:build linux

package netpoll

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// finishRecover runs FinishWait and turns its panic into an error.
func finishRecover(d *Desc, mode Mode, w *Waiter) (err error, panicked any) {
	defer func() { panicked = recover() }()
	return d.FinishWait(mode, w), nil
}

// A waiter woken by a deadline, whose task has not run its FinishWait yet,
// no longer holds the slot: the deadline is moved, and a second task arms
// and commits a wait on the same slot (PrepareWait does not say ErrBusy).
// The first task's FinishWait must not take the second one's waiter out of
// the slot (it would never be woken, and Waiters would drift).
func TestFinishWaitOfAWokenWaiterLeavesTheNextWaiterAlone(t *testing.T) {
	var readied []*Waiter
	p, err := New(func(w *Waiter) { readied = append(readied, w) })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a, b := socketpair(t)
	defer unix.Close(a)
	defer unix.Close(b)
	d, err := p.Register(a)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	// Task 1 parks.
	if armed, err := d.PrepareWait(Read); !armed || err != nil {
		t.Fatalf("PrepareWait 1: %v %v", armed, err)
	}
	w1 := NewWaiter("task1")
	if !d.CommitWait(Read, w1) {
		t.Fatal("CommitWait 1 failed")
	}
	// A deadline in the past wakes it; then the deadline is cleared.
	if err := d.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if len(readied) != 1 || readied[0] != w1 {
		t.Fatalf("readied %v, want task1", readied)
	}
	if err := d.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	// Task 2 waits on the same slot before task 1 has run.
	armed, err := d.PrepareWait(Read)
	if err == ErrBusy {
		return // the slot still belongs to task 1: fine
	}
	if !armed || err != nil {
		t.Fatalf("PrepareWait 2: %v %v", armed, err)
	}
	w2 := NewWaiter("task2")
	if !d.CommitWait(Read, w2) {
		t.Fatal("CommitWait 2 failed")
	}
	// Task 1 runs now.
	err1, pv := finishRecover(d, Read, w1)
	if pv != nil {
		t.Errorf("task 1's FinishWait panicked with task 2 parked on the slot: %v", pv)
	} else {
		t.Logf("task 1's FinishWait: %v", err1)
	}
	requireTask2Parked(t, p, d, w2)
}

// requireTask2Parked checks that, after task 1's FinishWait, task 2's
// waiter w2 still holds d's read slot and is counted.
func requireTask2Parked(t *testing.T, p *Poller, d *Desc, w2 *Waiter) {
	t.Helper()
	if got := d.r.state.Load(); got != w2 {
		t.Errorf("after task 1's last call the slot holds %p, want task 2's waiter %p: task 2 is lost", got, w2)
	}
	if n := p.Waiters(); n != 1 {
		t.Errorf("Waiters() = %d with task 2 parked, want 1", n)
	}
}

// The same with readiness instead of a deadline: task 1 is handed back by
// a Poll (the slot says ready), task 2 consumes the edge, finds nothing to
// read, and parks; task 1's FinishWait then runs.
func TestFinishWaitOfAPolledWaiterLeavesTheNextWaiterAlone(t *testing.T) {
	p := newTestPoller(t)
	a, b := socketpair(t)
	defer unix.Close(a)
	defer unix.Close(b)
	d, err := p.Register(a)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	// Consume the registration's first edges.
	p.Poll(0, nil)
	d.PrepareWait(Read)
	d.CancelWait(Read)
	for {
		armed, err := d.PrepareWait(Read)
		if err != nil {
			t.Fatal(err)
		}
		if armed {
			break
		}
	}
	w1 := NewWaiter("task1")
	if !d.CommitWait(Read, w1) {
		t.Fatal("CommitWait 1 failed")
	}
	if _, err := unix.Write(b, []byte("x")); err != nil {
		t.Fatal(err)
	}
	var got []*Waiter
	for i := 0; i < 100 && len(got) == 0; i++ {
		got = p.Poll(100*time.Millisecond, got)
	}
	if len(got) != 1 || got[0] != w1 {
		t.Fatalf("Poll returned %v, want task 1", got)
	}
	// Task 2 tries its read first: there is data, it reads it, and then
	// it sees the latched edge and consumes it, then parks.
	var buf [8]byte
	if _, err := unix.Read(a, buf[:]); err != nil {
		t.Fatal(err)
	}
	armed, err := d.PrepareWait(Read)
	if err == ErrBusy {
		return
	}
	if armed || err != nil {
		t.Fatalf("PrepareWait 2 (edge): %v %v", armed, err)
	}
	armed, err = d.PrepareWait(Read)
	if err == ErrBusy {
		return
	}
	if !armed || err != nil {
		t.Fatalf("PrepareWait 2: %v %v", armed, err)
	}
	w2 := NewWaiter("task2")
	if !d.CommitWait(Read, w2) {
		t.Fatal("CommitWait 2 failed")
	}
	_, pv := finishRecover(d, Read, w1)
	if pv != nil {
		t.Errorf("task 1's FinishWait panicked with task 2 parked on the slot: %v", pv)
	}
	requireTask2Parked(t, p, d, w2)
}

// armedWait registers one end of a new socket pair (registerSocket),
// consumes the registration's first edges and arms a read wait on it, as
// a task's run does before it asks for the wait; it returns the Desc and
// the other end.
func armedWait(t *testing.T, p *Poller) (d *Desc, peer int) {
	t.Helper()
	d, peer = registerSocket(t, p)
	p.Poll(0, nil)
	for {
		armed, err := d.PrepareWait(Read)
		if err != nil {
			t.Fatal(err)
		}
		if armed {
			return d, peer
		}
	}
}

// A task arms a read wait, the descriptor becomes readable and a Poll
// latches the edge, and then the task dies in the same run: its
// CancelWait must leave the edge in the slot, or the next task to wait
// parks on data that raises no new edge, and is never woken.
func TestCancelWaitLeavesALatchedEdgeForTheNextWait(t *testing.T) {
	p := newTestPoller(t)
	d, b := armedWait(t, p)
	if _, err := unix.Write(b, []byte("x")); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100 && d.r.state.Load() != pdReady; i++ {
		if got := p.Poll(100*time.Millisecond, nil); len(got) != 0 {
			t.Fatalf("Poll handed back %v for a wait nobody committed", got)
		}
	}
	if d.r.state.Load() != pdReady {
		t.Fatal("no Poll latched the edge")
	}
	d.CancelWait(Read)
	if armed, err := d.PrepareWait(Read); armed || err != nil {
		t.Fatalf("the next PrepareWait = %v, %v; want false, nil: the edge the dead task's wait saw is lost", armed, err)
	}
}

// A task arms a read wait, a deadline ends it before the commit and is
// then cleared, and a second task arms and commits a wait on the same
// slot; the first task then dies. Its CancelWait must leave the second
// task's waiter parked.
func TestCancelWaitLeavesTheNextWaiterAlone(t *testing.T) {
	p := newTestPoller(t)
	d, _ := armedWait(t, p)
	if err := d.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := d.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	armed, err := d.PrepareWait(Read)
	if !armed || err != nil {
		t.Fatalf("PrepareWait 2: %v %v", armed, err)
	}
	w2 := NewWaiter("task2")
	if !d.CommitWait(Read, w2) {
		t.Fatal("CommitWait 2 failed")
	}
	d.CancelWait(Read)
	requireTask2Parked(t, p, d, w2)
}

// A Poll sleeps until the earliest deadline and then fires it: a waiter
// whose read deadline is 200 ms away is handed back by the second Poll or
// so (a wait is whole milliseconds, rounded down, so the first may wake
// just short of the deadline and the next then sleeps past it), never
// after one short wake-up per Poll, which would keep an idle scheduler
// polling until the deadline.
func TestAPollSleepsUntilTheEarliestDeadlineAndFiresIt(t *testing.T) {
	p := newTestPoller(t)
	d, _ := armedWait(t, p)
	w := NewWaiter("task")
	if !d.CommitWait(Read, w) {
		t.Fatal("CommitWait failed")
	}
	if err := d.SetReadDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	const polls = 10
	for i := 1; i <= polls; i++ {
		got := p.Poll(time.Second, nil)
		if len(got) == 0 {
			continue
		}
		if len(got) != 1 || got[0] != w {
			t.Fatalf("Poll %d returned %v, want the waiter", i, got)
		}
		if err := d.FinishWait(Read, w); err != ErrDeadlineExceeded {
			t.Fatalf("FinishWait = %v, want ErrDeadlineExceeded", err)
		}
		t.Logf("the deadline fired in Poll %d", i)
		return
	}
	t.Fatalf("%d Polls of up to 1 s each did not fire a deadline 200 ms away: each woke early", polls)
}

// The hot paths of a wait allocate nothing once the buffers are warm:
// PrepareWait, CommitWait, a Poll that hands the waiter back, FinishWait;
// and a Break drained by a blocking Poll.
func TestWaitCycleAndPollDoNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's instrumentation makes buffers escape")
	}
	p := newTestPoller(t)
	a, b := socketpair(t)
	defer unix.Close(a)
	defer unix.Close(b)
	d, err := p.Register(a)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := NewWaiter("task")
	list := make([]*Waiter, 0, MaxEvents)
	var buf [1]byte
	one := []byte{1}
	cycle := func() {
		for {
			armed, err := d.PrepareWait(Read)
			if err != nil {
				t.Fatal(err)
			}
			if armed {
				break
			}
		}
		if !d.CommitWait(Read, w) {
			t.Fatal("CommitWait failed")
		}
		unix.Write(b, one)
		for {
			list = p.Poll(time.Second, list[:0])
			if len(list) > 0 {
				break
			}
		}
		if err := d.FinishWait(Read, w); err != nil {
			t.Fatal(err)
		}
		unix.Read(a, buf[:])
	}
	cycle()
	if n := testing.AllocsPerRun(200, cycle); n != 0 {
		t.Errorf("a wait cycle (PrepareWait, CommitWait, Poll, FinishWait) allocates %v times", n)
	}
	brk := func() {
		p.Break()
		p.Poll(time.Second, list[:0])
	}
	brk()
	if n := testing.AllocsPerRun(200, brk); n != 0 {
		t.Errorf("Break and the blocking Poll that drains it allocate %v times", n)
	}
	nb := func() { p.Poll(0, list[:0]) }
	if n := testing.AllocsPerRun(200, nb); n != 0 {
		t.Errorf("a non-blocking Poll with nothing ready allocates %v times", n)
	}
	dl := func() {
		d.SetReadDeadline(time.Now().Add(time.Hour))
		d.SetReadDeadline(time.Time{})
	}
	dl()
	if n := testing.AllocsPerRun(200, dl); n != 0 {
		t.Errorf("setting and clearing a deadline allocates %v times", n)
	}
}

// Close's documentation says a blocked Poll must be broken first. Doing
// just that, Break and then Close, must let the Poll return, and the Poll
// must not read the break eventfd's number after Close: by then it may be
// another file's. Here the numbers are handed at once to two new eventfds
// holding a count; a Poll that drains either of them has read from a
// descriptor it does not own. A Poll that has not returned after
// hangGuardReview is reported as stuck (a bound on failure, not a timing
// assertion).
func TestBreakThenCloseLetsTheBlockedPollReturnAndNeverTouchesAReusedFd(t *testing.T) {
	const hangGuardReview = 5 * time.Second
	deadline := time.Now().Add(3 * time.Second)
	hits, stuck, iters := 0, 0, 0
	for i := 0; i < 300 && time.Now().Before(deadline) && stuck == 0; i++ {
		iters++
		p, err := New(func(*Waiter) {})
		if err != nil {
			t.Fatal(err)
		}
		epfd, evfd := p.epfd, p.evfd
		done := make(chan struct{})
		go func() {
			defer close(done)
			p.Poll(-1, nil)
		}()
		// Let the Poll get close to epoll_wait: a bounded spin on the
		// sleepUntil it records just before.
		for j := 0; j < 1_000_000; j++ {
			p.tmu.Lock()
			s := p.sleepUntil
			p.tmu.Unlock()
			if s != 0 {
				break
			}
		}
		p.Break()
		p.Close()
		e1, err1 := unix.Eventfd(5, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		e2, err2 := unix.Eventfd(5, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
		select {
		case <-done:
		case <-time.After(hangGuardReview):
			stuck++
		}
		for _, e := range []struct {
			fd  int
			err error
		}{{e1, err1}, {e2, err2}} {
			if e.err != nil {
				continue
			}
			var b [8]byte
			if _, err := unix.Read(e.fd, b[:]); err == unix.EAGAIN && (e.fd == evfd || e.fd == epfd) {
				hits++
			}
			unix.Close(e.fd)
		}
	}
	if stuck > 0 {
		t.Errorf("after %d rounds: a Poll broken by Break and then closed by Close stayed blocked in epoll_wait (on a closed epoll instance) for %v", iters, hangGuardReview)
	}
	if hits > 0 {
		t.Errorf("%d times in %d rounds a Poll broken and then closed drained another file's eventfd that reused its break descriptor's number", hits, iters)
	}
}

var _ = fmt.Sprint

// The runtime's pollWait looks at netpollcheckerr before netpollblock: on
// a closed descriptor, or after its deadline, the wait fails even when an
// edge is latched. PrepareWait consumes the latched edge first and reports
// the wait as ended by readiness.
func TestPrepareWaitReportsCloseAndAnExpiredDeadlineBeforeALatchedEdge(t *testing.T) {
	p := newTestPoller(t)
	a, b := socketpair(t)
	defer unix.Close(a)
	defer unix.Close(b)
	d, err := p.Register(a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.Write(b, []byte("x")); err != nil {
		t.Fatal(err)
	}
	p.Poll(0, nil) // latches the read edge (and the first write edge)
	if err := d.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if armed, err := d.PrepareWait(Read); err != ErrDeadlineExceeded {
		t.Errorf("PrepareWait(Read) after the read deadline passed, with an edge latched: %v, %v; want ErrDeadlineExceeded", armed, err)
	}
	d.Close()
	if armed, err := d.PrepareWait(Write); err != ErrClosed {
		t.Errorf("PrepareWait(Write) after Close, with an edge latched: %v, %v; want ErrClosed", armed, err)
	}
}

// Every public operation at once (Register, Close, deadlines set and
// moved, non-blocking and blocking Polls, Breaks, waits): no deadlock
// between Desc.mu, Poller.mu and Poller.tmu, no lost waiter, and the
// waiter count back to zero.
func TestConcurrentOperationsNeitherDeadlockNorLoseWaiters(t *testing.T) {
	var readied sync.Map
	p, err := New(func(w *Waiter) { readied.Store(w, true) })
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	const n = 5000
	end := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	// The one blocking poller, as a scheduler keeps.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			for _, w := range p.Poll(-1, nil) {
				readied.Store(w, true)
			}
		}
	}()
	var workers sync.WaitGroup
	for g := range 4 {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for i := 0; i < n && time.Now().Before(end); i++ {
				a, b := socketpair(t)
				d, err := p.Register(a)
				if err != nil {
					t.Error(err)
					return
				}
				d.SetReadDeadline(time.Now().Add(time.Duration(i%3) * time.Millisecond))
				armed, err := d.PrepareWait(Read)
				var w *Waiter
				if armed {
					w = NewWaiter(fmt.Sprint(g, i))
					if !d.CommitWait(Read, w) {
						w = nil
					}
				}
				switch i % 4 {
				case 0:
					unix.Write(b, []byte("x"))
				case 1:
					d.SetReadDeadline(time.Now().Add(-time.Second))
				case 2:
					p.Break()
				}
				d.Close()
				if w != nil {
					// Whoever ended the wait handed w back exactly once.
					for j := 0; ; j++ {
						if _, ok := readied.Load(w); ok {
							break
						}
						if j > 50_000_000 {
							t.Errorf("waiter %v never handed back", w.Task())
							break
						}
						runtime.Gosched()
					}
					d.FinishWait(Read, w)
				}
				unix.Close(a)
				unix.Close(b)
			}
		}()
	}
	done := make(chan struct{})
	go func() { workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: the operations did not finish")
	}
	close(stop)
	p.Break()
	fin := make(chan struct{})
	go func() { wg.Wait(); close(fin) }()
	select {
	case <-fin:
	case <-time.After(30 * time.Second):
		t.Fatal("deadlock: the workers or the poller did not finish")
	}
	if n := p.Waiters(); n != 0 {
		t.Errorf("Waiters() = %d at the end, want 0", n)
	}
}
