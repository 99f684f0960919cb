//go:build linux

package netpoll

import (
	"errors"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func socketpair(t *testing.T) (int, int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	return fds[0], fds[1]
}

func newTestPoller(t *testing.T) *Poller {
	t.Helper()
	p, err := New(func(*Waiter) {})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestEventWithAStaleTagIsDropped makes the kernel go on reporting a
// registration that the Poller has ended, on a descriptor number reused by
// a new registration in the same table slot: only the new tag wakes.
func TestEventWithAStaleTagIsDropped(t *testing.T) {
	p := newTestPoller(t)
	x, peerX := socketpair(t)
	defer unix.Close(peerX)
	// A duplicate keeps x's socket, and so its epoll registration, alive
	// after x is closed: the kernel keeps reporting it with the old tag.
	dup, err := unix.Dup(x)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(dup)
	old, err := p.Register(x)
	if err != nil {
		t.Fatal(err)
	}
	p.unregister(old) // the table forgets it; epoll does not
	unix.Close(x)

	var u, peerU int
	for i := 0; ; i++ {
		if i == 100 {
			t.Skipf("no new socket got descriptor %d back", x)
		}
		u, peerU = socketpair(t)
		if u == x {
			break
		}
		unix.Close(u)
		unix.Close(peerU)
	}
	defer unix.Close(peerU)
	defer unix.Close(u)
	d, err := p.Register(u)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.idx != old.idx || d.seq == old.seq {
		t.Fatalf("the new registration has index %d, tag %d; the old one %d, %d: want the same index, a new tag",
			d.idx, d.seq, old.idx, old.seq)
	}
	if armed, err := d.PrepareWait(Read); !armed || err != nil {
		t.Fatalf("PrepareWait: %v, %v", armed, err)
	}
	w := NewWaiter("new")
	if !d.CommitWait(Read, w) {
		t.Fatal("CommitWait failed")
	}

	// Readiness of the old socket arrives with the old tag.
	if _, err := unix.Write(peerX, []byte("old")); err != nil {
		t.Fatal(err)
	}
	if ws := p.Poll(0, nil); len(ws) != 0 {
		t.Fatalf("an event of the ended registration woke %d waiters", len(ws))
	}
	if s := d.r.state.Load(); s != w {
		t.Fatalf("an event of the ended registration changed the new read slot (%p, want the waiter %p)", s, w)
	}
	if s := old.r.state.Load(); s != nil {
		t.Fatalf("an event of the ended registration reached its Desc (read slot %p)", s)
	}

	// Readiness of the new one wakes its waiter.
	if _, err := unix.Write(peerU, []byte("new")); err != nil {
		t.Fatal(err)
	}
	var ws []*Waiter
	for i := 0; i < 100 && len(ws) == 0; i++ {
		ws = p.Poll(100*time.Millisecond, ws)
	}
	if len(ws) != 1 || ws[0] != w {
		t.Fatalf("an event of the new registration woke %d waiters, want its own", len(ws))
	}
}

// registerSocket registers one end of a new socketpair with p and returns
// its Desc and the other end; the Desc and both ends are closed when t
// ends.
func registerSocket(t *testing.T, p *Poller) (*Desc, int) {
	t.Helper()
	x, y := socketpair(t)
	t.Cleanup(func() { unix.Close(x); unix.Close(y) })
	d, err := p.Register(x)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, y
}

// TestConcurrentDeadlineChangesLeaveTheTimerOfTheLastOne sets one
// deadline from two goroutines: whichever change came last, the timer
// must be armed in the heap at or before that deadline, else that
// deadline never fires.
func TestConcurrentDeadlineChangesLeaveTheTimerOfTheLastOne(t *testing.T) {
	p := newTestPoller(t)
	d, _ := registerSocket(t, p)
	for round := range 2000 {
		var wg sync.WaitGroup
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.Now().Add(time.Hour)
				if g == 1 && round%2 == 0 {
					t = time.Now().Add(-time.Second) // expired: no timer
				}
				d.SetReadDeadline(t)
			}()
		}
		wg.Wait()
		d.mu.Lock()
		seq, expired := d.rseq, d.info.Load()&infoReadExpired != 0
		due := d.rt.due
		d.mu.Unlock()
		p.tmu.Lock()
		inHeap := p.heapedLocked(&d.rt)
		when := d.rt.when
		p.tmu.Unlock()
		switch {
		case expired && (inHeap || due != 0):
			t.Fatalf("round %d: the last change expired the deadline, yet its timer is armed", round)
		case !expired && (!inHeap || due == 0 || when > due):
			t.Fatalf("round %d: the deadline %d (sequence %d) has its timer in the heap %v at %d: it will never fire", round, due, seq, inHeap, when)
		}
	}
}

// TestRunTimersFiresAMovedDeadlineThatHasPassedInOneCall moves a deadline
// later, which leaves its timer at the old time, and runs the timers past
// both times: the call takes the timer out stale, puts it back at the new
// deadline, and must fire that too, else a Poll returns with a deadline
// passed and unfired.
func TestRunTimersFiresAMovedDeadlineThatHasPassedInOneCall(t *testing.T) {
	p := newTestPoller(t)
	d, _ := registerSocket(t, p)
	w := NewWaiter("reader")
	if armed, err := d.PrepareWait(Read); !armed || err != nil {
		t.Fatalf("PrepareWait: %v, %v", armed, err)
	}
	if !d.CommitWait(Read, w) {
		t.Fatal("CommitWait failed")
	}
	for _, later := range []time.Duration{time.Hour, 2 * time.Hour} {
		if err := d.SetReadDeadline(time.Now().Add(later)); err != nil {
			t.Fatal(err)
		}
	}
	d.mu.Lock()
	old, due := d.rt.when, d.rt.due
	d.mu.Unlock()
	if old >= due {
		t.Fatalf("the timer is at %d, the deadline at %d: the move later did not leave it in place", old, due)
	}
	ws := p.runTimers(due, nil)
	if len(ws) != 1 || ws[0] != w {
		t.Fatalf("runTimers past both times woke %d waiters; want the reader", len(ws))
	}
	if err := d.FinishWait(Read, w); !errors.Is(err, ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want ErrDeadlineExceeded", err)
	}
}

// TestDescCloseAfterItsPollerClosedLeavesTheNextPollerAlone closes a Desc
// after its Poller, when a new Poller got the old epoll descriptor's
// number and registered the same socket: the late Desc.Close must not
// take the socket out of the new epoll instance.
func TestDescCloseAfterItsPollerClosedLeavesTheNextPollerAlone(t *testing.T) {
	x, y := socketpair(t)
	defer unix.Close(x)
	defer unix.Close(y)
	p1, err := New(func(*Waiter) {})
	if err != nil {
		t.Fatal(err)
	}
	d1, err := p1.Register(x)
	if err != nil {
		t.Fatal(err)
	}
	epfd := p1.epfd
	p1.Close()
	p2 := newTestPoller(t)
	if p2.epfd != epfd {
		t.Skipf("the new Poller's epoll descriptor is %d, not the old %d", p2.epfd, epfd)
	}
	d2, err := p2.Register(x)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	d1.Close()

	if armed, err := d2.PrepareWait(Read); !armed || err != nil {
		t.Fatalf("PrepareWait: %v, %v", armed, err)
	}
	w := NewWaiter("p2")
	if !d2.CommitWait(Read, w) {
		t.Fatal("CommitWait failed")
	}
	if _, err := unix.Write(y, []byte("x")); err != nil {
		t.Fatal(err)
	}
	var ws []*Waiter
	for i := 0; i < 5 && len(ws) == 0; i++ {
		ws = p2.Poll(100*time.Millisecond, ws)
	}
	if len(ws) != 1 || ws[0] != w {
		t.Fatalf("the new Poller woke %d waiters for a readable socket; the old Desc's Close deregistered it", len(ws))
	}
}
