//go:build linux

package netpoll_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/netpoll"
)

// tryRead and tryWrite are the I/O a parked task retries after an edge.
func tryRead(c *netpoll.Conn) func() error {
	return func() error {
		_, err := c.Read(make([]byte, 1))
		return err
	}
}

func tryWrite(c *netpoll.Conn) func() error {
	chunk := make([]byte, 64<<10)
	return func() error {
		_, err := c.Write(chunk)
		return err
	}
}

// sameWaiters reports whether got holds exactly the waiters of want, in
// any order.
func sameWaiters(got []*netpoll.Waiter, want ...*netpoll.Waiter) bool {
	if len(got) != len(want) {
		return false
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			return false
		}
	}
	return true
}

func TestCloseWhileWaitingHandsTheWaitersToReadyAndFinishWaitSaysErrClosed(t *testing.T) {
	for _, how := range []string{"Desc.Close", "Conn.Close"} {
		t.Run(how, func(t *testing.T) {
			tp := newTestPoller(t)
			_, server := tp.pair(tp.listen())
			d := server.Desc()
			fill(t, server)
			rw := tp.park(d, netpoll.Read, tryRead(server))
			ww := tp.park(d, netpoll.Write, tryWrite(server))
			if n := tp.Waiters(); n != 2 {
				t.Fatalf("Waiters() = %d with a read and a write waiter parked", n)
			}

			closed := make(chan error, 1)
			go func() {
				if how == "Desc.Close" {
					closed <- d.Close()
				} else {
					closed <- server.Close()
				}
			}()
			select {
			case err := <-closed:
				if err != nil {
					t.Fatalf("%s: %v", how, err)
				}
			case <-time.After(hangGuard):
				t.Fatalf("hang guard: %s did not return", how)
			}
			// Close handed both waiters to the ready function before it
			// returned, and no Poll ran.
			if got := tp.readied(); !sameWaiters(got, rw, ww) {
				t.Fatalf("the ready function got %d waiters; want the read and the write waiter", len(got))
			}
			for _, mode := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
				if err := d.FinishWait(mode, nil); err != netpoll.ErrClosed {
					t.Errorf("FinishWait(%v, nil) after %s: %v; want ErrClosed", mode, how, err)
				}
				if _, err := d.PrepareWait(mode); err != netpoll.ErrClosed {
					t.Errorf("PrepareWait(%v) after %s: %v; want ErrClosed", mode, how, err)
				}
			}
			if n := tp.Waiters(); n != 0 {
				t.Errorf("Waiters() = %d after %s; want 0", n, how)
			}
			if err := d.Close(); err != netpoll.ErrClosed {
				t.Errorf("Desc.Close again: %v; want ErrClosed", err)
			}
		})
	}
}

// deadlineSetter returns the deadline setter of mode.
func deadlineSetter(d *netpoll.Desc, mode netpoll.Mode) func(time.Time) error {
	if mode == netpoll.Read {
		return d.SetReadDeadline
	}
	return d.SetWriteDeadline
}

// parkForDeadline parks a waiter in mode on the server end of a fresh
// loopback connection (its send buffer filled first for Write), and
// returns the Desc, the waiter, the deadline setter of mode and the I/O
// that must fail with ErrWouldBlock before a wait.
func parkForDeadline(tp *testPoller, mode netpoll.Mode) (*netpoll.Desc, *netpoll.Waiter, func(time.Time) error, func() error) {
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	try := tryRead(server)
	if mode == netpoll.Write {
		fill(tp.t, server)
		try = tryWrite(server)
	}
	return d, tp.park(d, mode, try), deadlineSetter(d, mode), try
}

// TestDeadlineEndsTheWaitWithDeadlineExceeded sets a deadline on a
// waiting direction, once or moved later twice: a move later leaves the
// armed timer at the old time, and when it fires there it must go back
// into the heap at the new deadline, which then ends the wait. A deadline
// set again after the expiry ends the next wait too.
func TestDeadlineEndsTheWaitWithDeadlineExceeded(t *testing.T) {
	for _, mode := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
		for _, c := range []struct {
			name  string
			moves []time.Duration // the last one counts
		}{
			{"once", []time.Duration{20 * time.Millisecond}},
			{"moved-later", []time.Duration{10 * time.Millisecond, 20 * time.Millisecond, 30 * time.Millisecond}},
		} {
			t.Run(mode.String()+"/"+c.name, func(t *testing.T) {
				tp := newTestPoller(t)
				d, w, set, try := parkForDeadline(tp, mode)
				start := time.Now()
				for _, after := range c.moves {
					if err := set(start.Add(after)); err != nil {
						t.Fatalf("setting the deadline: %v", err)
					}
				}
				// exceeded takes the outcome of a wait and, for Write,
				// waits on as a task would until the deadline ends one: a
				// filled send buffer can gain space tens of milliseconds
				// later, as the peer's kernel acknowledges the data, and
				// wake the writer, which writes until it would block and
				// waits again. Nothing may wake a reader but the deadline.
				exceeded := func(err error) {
					t.Helper()
					for wakeups := 0; !errors.Is(err, os.ErrDeadlineExceeded); wakeups++ {
						if err != nil || mode == netpoll.Read || wakeups == 100 {
							t.Fatalf("wait: %v after %d wakeups by readiness; want os.ErrDeadlineExceeded", err, wakeups)
						}
						for i := 0; ; i++ {
							err := try()
							if errors.Is(err, netpoll.ErrWouldBlock) {
								break
							}
							if err != nil || i == 10000 {
								t.Fatalf("the I/O after a wakeup by readiness: %v after %d calls", err, i)
							}
						}
						err = tp.wait(d, mode)
					}
					if n := tp.Waiters(); n != 0 {
						t.Errorf("Waiters() = %d after the deadline; want 0", n)
					}
				}
				tp.awaitWaiter(w)
				exceeded(d.FinishWait(mode, nil))
				if el, want := time.Since(start), c.moves[len(c.moves)-1]; el < want {
					t.Errorf("the %v deadline fired after %v", want, el)
				}
				// Expired, the direction fails every wait at once until the
				// deadline is set again or cleared.
				if armed, err := d.PrepareWait(mode); armed || !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Fatalf("PrepareWait after the deadline: %v, %v; want false, ErrDeadlineExceeded", armed, err)
				}
				// A new deadline set over the expired one, as a server resets
				// an idle timeout, ends the next wait in its turn: the timer
				// that fired must no longer count as armed, or this later
				// deadline would only move its due time.
				reset := time.Now()
				if err := set(reset.Add(10 * time.Millisecond)); err != nil {
					t.Fatalf("setting a deadline after the expiry: %v", err)
				}
				exceeded(tp.wait(d, mode))
				if el := time.Since(reset); el < 10*time.Millisecond {
					t.Errorf("the deadline set 10ms ahead after the expiry fired after %v", el)
				}
				if err := set(time.Time{}); err != nil {
					t.Fatalf("clearing the deadline: %v", err)
				}
				tp.park(d, mode, try)
			})
		}
	}
}

func TestDeadlineMovedLaterDoesNotFireAtTheOldTime(t *testing.T) {
	tp := newTestPoller(t)
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	w := tp.park(d, netpoll.Read, tryRead(server))
	old := time.Now().Add(20 * time.Millisecond)
	if err := d.SetReadDeadline(old); err != nil {
		t.Fatal(err)
	}
	if err := d.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// Poll past the old time (a lower bound only).
	for i := 0; time.Since(old) < 30*time.Millisecond; i++ {
		if i == 1000 {
			t.Fatalf("hang guard: 1000 polls and the old deadline not passed")
		}
		if ws := tp.pollOnce(10 * time.Millisecond); len(ws) != 0 {
			t.Fatalf("the waiter came back %v after the old deadline, which was moved an hour later", time.Since(old))
		}
	}
	if ws := tp.pollOnce(0); len(ws) != 0 {
		t.Fatalf("Poll(0) after the old deadline returned %d waiters", len(ws))
	}
	// The moved deadline is the one that counts: moved into the past, it
	// ends the wait.
	if err := d.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := tp.readied(); !sameWaiters(got, w) {
		t.Fatalf("the ready function got %d waiters; want the parked one", len(got))
	}
	if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded", err)
	}
}

func TestDeadlineInThePastWakesTheWaiterAtOnce(t *testing.T) {
	for _, mode := range []netpoll.Mode{netpoll.Read, netpoll.Write} {
		t.Run(mode.String(), func(t *testing.T) {
			tp := newTestPoller(t)
			client, server := tp.pair(tp.listen())
			// A reader waits on the server, a writer on the full client.
			c, try, other := server, tryRead(server), netpoll.Write
			if mode == netpoll.Write {
				fill(t, client)
				c, try, other = client, tryWrite(client), netpoll.Read
			}
			d := c.Desc()
			w := tp.park(d, mode, try)
			if err := setDeadline(d, mode, time.Now().Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
			// Through the ready function, before the deadline's setter
			// returned, with no Poll.
			if got := tp.readied(); !sameWaiters(got, w) {
				t.Fatalf("the ready function got %d waiters; want the parked one", len(got))
			}
			if err := d.FinishWait(mode, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded", err)
			}
			if n := tp.Waiters(); n != 0 {
				t.Errorf("Waiters() = %d; want 0", n)
			}
			// The other direction is not affected.
			if armed, err := d.PrepareWait(other); err != nil {
				t.Errorf("PrepareWait(%v) with an expired %v deadline: %v, %v", other, mode, armed, err)
			}
		})
	}
}

// setDeadline sets d's deadline for mode.
func setDeadline(d *netpoll.Desc, mode netpoll.Mode, t time.Time) error {
	if mode == netpoll.Write {
		return d.SetWriteDeadline(t)
	}
	return d.SetReadDeadline(t)
}

func TestDeadlineFarInTheFutureDoesNotExpire(t *testing.T) {
	tp := newTestPoller(t)
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	tp.park(d, netpoll.Read, tryRead(server))
	// So far ahead that the time until it does not fit the monotonic
	// clock's int64 nanoseconds.
	if err := d.SetReadDeadline(time.Unix(1<<40, 0)); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if ws := tp.pollOnce(5 * time.Millisecond); len(ws) != 0 {
			t.Fatalf("a deadline in the year %d ended the wait", time.Unix(1<<40, 0).Year())
		}
	}
}

func TestDeadlineSetDuringABlockingPollEndsIt(t *testing.T) {
	tp := newTestPoller(t)
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	w := tp.park(d, netpoll.Read, tryRead(server))
	poll := pollUntil(tp, w)
	if err := d.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	poll.await(t, "a Poll(-1) that blocked before the deadline was set slept past it")
	if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded", err)
	}
}

// TestDeadlineMovedEarlierDuringABlockingPollEndsIt: a deadline moved
// earlier keeps its timer in the heap (a Fix, not a Push), and must break
// a Poll that sleeps towards the old time just as a new timer does.
func TestDeadlineMovedEarlierDuringABlockingPollEndsIt(t *testing.T) {
	tp := newTestPoller(t)
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	w := tp.park(d, netpoll.Read, tryRead(server))
	if err := d.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	tp.collectEdges()
	poll := pollUntil(tp, w)
	// Move the deadline once the Poll has taken the hour for its sleep:
	// with no event to collect, only a Break ends that sleep early.
	limit := time.Now().Add(hangGuard)
	for !tp.Sleeping() {
		if time.Now().After(limit) {
			t.Fatalf("hang guard: the Poll did not start its sleep within %v", hangGuard)
		}
		runtime.Gosched()
	}
	if err := d.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	poll.await(t, "a Poll sleeping towards a deadline an hour away slept past the deadline moved 20ms ahead")
	if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded", err)
	}
}

// TestPollReturnsTheWaitItsTimersEndedWithoutBlocking: a Poll that may
// block first runs the timers; when that ends a wait, the Poll returns it
// without blocking, although no deadline is left to bound a sleep.
func TestPollReturnsTheWaitItsTimersEndedWithoutBlocking(t *testing.T) {
	tp := newTestPoller(t)
	_, server := tp.pair(tp.listen())
	d := server.Desc()
	w := tp.park(d, netpoll.Read, tryRead(server))
	tp.collectEdges()
	// A deadline 20 ms away, then let it pass with nothing running the
	// timers. If the test stalled past it before SetReadDeadline read the
	// clock, it was past when set and woke the waiter through the ready
	// function: park again and retry (bounded).
	for attempt := 1; ; attempt++ {
		if attempt > 5 {
			t.Fatalf("in %d attempts the 20ms deadline was past when set", attempt-1)
		}
		deadline := time.Now().Add(20 * time.Millisecond)
		if err := d.SetReadDeadline(deadline); err != nil {
			t.Fatal(err)
		}
		if len(tp.readied()) == 0 {
			for !time.Now().After(deadline) {
				runtime.Gosched()
			}
			break
		}
		if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("FinishWait after a deadline set in the past: %v", err)
		}
		if err := d.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		w = tp.park(d, netpoll.Read, tryRead(server))
	}
	poll := pollUntil(tp, w)
	poll.await(t, "a Poll(-1) whose timers had ended the wait blocked with it")
	if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded", err)
	}
}

// TestWriterIsWokenWhenThePipesReaderCloses: a full pipe whose reader
// closes reports EPOLLERR on its write end and no EPOLLOUT, so the error
// alone must end a write wait (a socket reports EPOLLOUT with its errors).
func TestWriterIsWokenWhenThePipesReaderCloses(t *testing.T) {
	tp := newTestPoller(t)
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, wfd := fds[0], fds[1]
	rOpen := true
	t.Cleanup(func() {
		unix.Close(wfd)
		if rOpen {
			unix.Close(r)
		}
	})
	d, err := tp.Register(wfd)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	fillPipe := func() error {
		for range 10000 {
			if _, err := unix.Write(wfd, chunk); err == unix.EAGAIN {
				return netpoll.ErrWouldBlock
			} else if err != nil {
				return err
			}
		}
		return errors.New("10000 writes of 64 KiB and the pipe is not full")
	}
	if err := fillPipe(); !errors.Is(err, netpoll.ErrWouldBlock) {
		t.Fatalf("filling the pipe: %v", err)
	}
	w := tp.park(d, netpoll.Write, fillPipe)
	rOpen = false
	if err := unix.Close(r); err != nil {
		t.Fatal(err)
	}
	tp.awaitWaiter(w)
	if err := d.FinishWait(netpoll.Write, nil); err != nil {
		t.Fatalf("FinishWait: %v; want nil (try the write again)", err)
	}
	if _, err := unix.Write(wfd, chunk); err != unix.EPIPE {
		t.Fatalf("the write after the wait: %v; want EPIPE", err)
	}
}

// collectEdges polls once without blocking and fails the test if a wait
// ended: it takes the edges that registering the descriptors latched (the
// first EPOLLOUT), so that a Poll after it finds no event to return with.
func (tp *testPoller) collectEdges() {
	tp.t.Helper()
	if ws := tp.pollOnce(0); len(ws) != 0 {
		tp.t.Fatalf("a Poll(0) after the registrations ended %d waits", len(ws))
	}
}

// blockingPoll is a goroutine that polls with no time limit until a given
// waiter comes back (see pollUntil).
type blockingPoll struct {
	tp     *testPoller
	stop   atomic.Bool
	result chan error
}

// pollUntil starts a goroutine that polls with no time limit until w comes
// back, and sends nil then; another waiter, or 1000 Polls without w (a
// signal may end a Poll early), send an error.
func pollUntil(tp *testPoller, w *netpoll.Waiter) *blockingPoll {
	bp := &blockingPoll{tp: tp, result: make(chan error, 1)}
	go func() {
		for i := 0; i < 1000 && !bp.stop.Load(); i++ {
			for _, got := range tp.Poll(-1, nil) {
				if got != w {
					bp.result <- fmt.Errorf("Poll returned a stranger, %v", got.Task())
				} else {
					bp.result <- nil
				}
				return
			}
		}
		bp.result <- errors.New("1000 Polls returned without the waiter")
	}()
	return bp
}

// await fails t with what if the waiter is not back within the hang guard
// (a Break then ends the Poll), or with the goroutine's error.
func (bp *blockingPoll) await(t *testing.T, what string) {
	t.Helper()
	select {
	case err := <-bp.result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		bp.stop.Store(true)
		bp.tp.Break()
		<-bp.result
		t.Fatalf("hang guard: %s", what)
	}
}

func TestReusedFdWakesOnlyTheNewDescsWaiter(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	oldClient, oldServer := tp.pair(ln)
	oldFd, oldDesc := oldClient.Fd(), oldClient.Desc()
	oldW := tp.park(oldDesc, netpoll.Read, tryRead(oldClient))
	if err := oldClient.Close(); err != nil {
		t.Fatal(err)
	}
	if got := tp.readied(); !sameWaiters(got, oldW) {
		t.Fatalf("Close handed %d waiters to the ready function; want the old one", len(got))
	}
	if err := oldDesc.FinishWait(netpoll.Read, nil); err != netpoll.ErrClosed {
		t.Fatalf("FinishWait on the closed Desc: %v; want ErrClosed", err)
	}

	// New connections until one gets the old number: usually the first.
	var client, server *netpoll.Conn
	for i := 0; ; i++ {
		if i == 100 {
			t.Skipf("no new socket got descriptor %d back in 100 tries", oldFd)
		}
		c, s := tp.pair(ln)
		if c.Fd() == oldFd {
			client, server = c, s
			break
		}
		if s.Fd() == oldFd {
			client, server = s, c
			break
		}
		c.Close()
		s.Close()
	}
	if client.Desc() == oldDesc {
		t.Fatalf("the new socket on descriptor %d got the old Desc", oldFd)
	}
	if _, err := oldDesc.PrepareWait(netpoll.Read); err != netpoll.ErrClosed {
		t.Fatalf("PrepareWait on the old Desc: %v; want ErrClosed", err)
	}
	w := tp.park(client.Desc(), netpoll.Read, tryRead(client))
	// Activity on both connections: the old peer's write meets a closed
	// socket, the new one's makes the new Desc readable.
	oldServer.Write([]byte("to the closed one"))
	if err := tp.writeAll(server, []byte("x")); err != nil {
		t.Fatal(err)
	}
	tp.awaitWaiter(w) // fails on any other waiter
	if err := client.Desc().FinishWait(netpoll.Read, nil); err != nil {
		t.Fatalf("FinishWait: %v", err)
	}
	b := make([]byte, 8)
	if n, err := client.Read(b); err != nil || string(b[:n]) != "x" {
		t.Fatalf("Read on the new socket: %q, %v", b[:n], err)
	}
	if ws := tp.pollOnce(0); len(ws) != 0 || tp.Waiters() != 0 {
		t.Fatalf("after the wait: %d more waiters, Waiters() = %d", len(ws), tp.Waiters())
	}
}

func TestPollSurvivesEINTRWithoutLosingTheEvent(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	w := tp.park(server.Desc(), netpoll.Read, tryRead(server))

	tids := make(chan int, 1)
	result := make(chan error, 1)
	var polls atomic.Int64
	var stop atomic.Bool
	go func() {
		// Locked, so that signals can be aimed at the thread in
		// epoll_wait.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- unix.Gettid()
		for i := 0; i < 100000 && !stop.Load(); i++ {
			ws := tp.Poll(-1, nil)
			polls.Add(1)
			for _, got := range ws {
				if got != w {
					result <- fmt.Errorf("Poll returned a stranger, %v", got.Task())
				} else {
					result <- nil
				}
				return
			}
		}
		result <- errors.New("100000 Polls returned without the waiter")
	}()
	tid := <-tids
	pid := os.Getpid()
	const signals = 200
	for i := range signals {
		var err error
		if i%2 == 0 {
			err = unix.Tgkill(pid, tid, unix.SIGURG)
		} else {
			err = syscall.Kill(pid, syscall.SIGWINCH)
		}
		if err != nil {
			t.Fatalf("signal %d: %v", i, err)
		}
		// Give the signal a bounded chance to interrupt the Poll before
		// the next one, which would merge with it while pending.
		for n, before := 0, polls.Load(); n < 2000 && polls.Load() == before; n++ {
			runtime.Gosched()
		}
	}
	interrupted := polls.Load()
	if err := tp.writeAll(client, []byte("x")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-result:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(hangGuard):
		stop.Store(true)
		tp.Break()
		<-result
		t.Fatalf("hang guard: the readiness after %d signals never came back from Poll", signals)
	}
	t.Logf("Poll(-1) returned early %d times for %d signals, then with the waiter", interrupted, signals)
	if err := server.Desc().FinishWait(netpoll.Read, nil); err != nil {
		t.Fatalf("FinishWait: %v", err)
	}
}

func TestBreakReturnsABlockedPoll(t *testing.T) {
	tp := newTestPoller(t)
	for round := range 3 {
		returned := make(chan int, 1)
		go func() { returned <- len(tp.Poll(-1, nil)) }()
		tp.Break()
		select {
		case n := <-returned:
			if n != 0 {
				t.Fatalf("round %d: a broken Poll returned %d waiters", round, n)
			}
		case <-time.After(hangGuard):
			t.Fatalf("hang guard: round %d: Break did not return Poll(-1)", round)
		}
	}
}

// breakCount reads the break eventfd's counter from /proc without
// draining it.
func breakCount(t *testing.T, p *netpoll.Poller) uint64 {
	t.Helper()
	fd := netpoll.BreakFd(p)
	b, err := os.ReadFile("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		t.Skipf("cannot read the eventfd's counter: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "eventfd-count:"); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			if err != nil {
				t.Fatalf("eventfd-count %q: %v", v, err)
			}
			return n
		}
	}
	t.Skipf("no eventfd-count in /proc/self/fdinfo/%d", fd)
	return 0
}

func TestDuplicateBreaksDoNotAccumulate(t *testing.T) {
	tp := newTestPoller(t)
	tp.Break()
	tp.Break()
	if n := breakCount(t, tp.Poller); n != 1 {
		t.Fatalf("after two Breaks the eventfd counts %d; want 1", n)
	}
	// A Poll that does not block leaves the break to a blocking one.
	if ws := tp.Poll(0, nil); len(ws) != 0 {
		t.Fatalf("Poll(0) returned %d waiters", len(ws))
	}
	if n := breakCount(t, tp.Poller); n != 1 {
		t.Fatalf("Poll(0) drained the break (count %d)", n)
	}
	// One blocking Poll returns at once and drains it.
	if ws := tp.Poll(-1, nil); len(ws) != 0 {
		t.Fatalf("Poll(-1) returned %d waiters", len(ws))
	}
	if n := breakCount(t, tp.Poller); n != 0 {
		t.Fatalf("after a blocking Poll the eventfd counts %d; want 0", n)
	}
	if ws := tp.Poll(0, nil); len(ws) != 0 {
		t.Fatalf("the next Poll(0) returned %d waiters", len(ws))
	}
	// And the next Break writes again.
	tp.Break()
	if n := breakCount(t, tp.Poller); n != 1 {
		t.Fatalf("a Break after the drain: the eventfd counts %d; want 1", n)
	}
	tp.Poll(time.Hour, nil)
	if n := breakCount(t, tp.Poller); n != 0 {
		t.Fatalf("after Poll(1h) the eventfd counts %d; want 0", n)
	}
}

func TestSecondPrepareWaitOnAWaitingSlotIsErrBusy(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	d := server.Desc()
	for i := 0; ; i++ {
		armed, err := d.PrepareWait(netpoll.Read)
		if err != nil {
			t.Fatalf("PrepareWait: %v", err)
		}
		if armed {
			break
		}
		if i == 10 {
			t.Fatalf("PrepareWait keeps finding an edge")
		}
	}
	if armed, err := d.PrepareWait(netpoll.Read); armed || err != netpoll.ErrBusy {
		t.Fatalf("second PrepareWait on a slot in wait: %v, %v; want false, ErrBusy", armed, err)
	}
	w := netpoll.NewWaiter("reader")
	if !d.CommitWait(netpoll.Read, w) {
		t.Fatalf("CommitWait failed")
	}
	if armed, err := d.PrepareWait(netpoll.Read); armed || err != netpoll.ErrBusy {
		t.Fatalf("PrepareWait on a slot with a parked waiter: %v, %v; want false, ErrBusy", armed, err)
	}
	// The slot still works for its waiter.
	if err := tp.writeAll(client, []byte("x")); err != nil {
		t.Fatal(err)
	}
	tp.awaitWaiter(w)
	if err := d.FinishWait(netpoll.Read, nil); err != nil {
		t.Fatalf("FinishWait: %v", err)
	}
}

func TestExceptionalIsSetOnceAPollSeesThePeersFIN(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	d := server.Desc()
	if err := tp.writeAll(client, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	if err := tp.readFull(server, make([]byte, 2)); err != nil {
		t.Fatal(err)
	}
	if d.Exceptional() {
		t.Fatal("Exceptional is true before the peer closed its side")
	}
	if err := client.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	// The FIN's edge may come with an edge latched before it: wait until a
	// poll has seen it (the hang guard bounds the waits).
	for !d.Exceptional() {
		if err := tp.wait(d, netpoll.Read); err != nil {
			t.Fatalf("wait for the FIN: %v", err)
		}
	}
	if n, err := server.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("Read after Exceptional = %d, %v; want 0, io.EOF", n, err)
	}
}

func TestExceptionalIsSetByUrgentDataThatStopsAReadShort(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	d := server.Desc()
	// "abc", one urgent byte, "def": a read stops short at the urgent
	// mark, and the rest raises no new edge.
	if err := tp.writeAll(client, []byte("abc")); err != nil {
		t.Fatal(err)
	}
	if err := unix.Sendto(client.Fd(), []byte("X"), unix.MSG_OOB, nil); err != nil {
		t.Fatalf("send urgent: %v", err)
	}
	if err := tp.writeAll(client, []byte("def")); err != nil {
		t.Fatal(err)
	}
	for !d.Exceptional() {
		if err := tp.wait(d, netpoll.Read); err != nil {
			t.Fatalf("wait for the urgent data: %v", err)
		}
	}
	got := make([]byte, 6)
	if err := tp.readFull(server, got); err != nil || string(got) != "abcdef" {
		t.Fatalf("read %q, %v; want \"abcdef\" (the urgent byte stays out of band)", got, err)
	}
}

// Expire fires a deadline that has passed and nothing else: it does not
// poll, so readiness pending on the descriptor stays for Poll, and the
// waiter learns of its deadline.
func TestExpireFiresAPassedDeadlineWithoutPolling(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	d := server.Desc()
	w := tp.park(d, netpoll.Read, tryRead(server))
	if ws := tp.Expire(nil); len(ws) != 0 {
		t.Fatalf("Expire with no deadline set woke %d waiters", len(ws))
	}
	if err := d.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if ws := tp.Expire(nil); len(ws) != 0 {
		t.Fatalf("Expire an hour before the deadline woke %d waiters", len(ws))
	}
	// Readable now, but only a Poll would see it.
	if err := tp.writeAll(client, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if ws := tp.Expire(nil); len(ws) != 0 {
		t.Fatalf("Expire woke %d waiters of a readable descriptor whose deadline is an hour away", len(ws))
	}
	// A deadline 20 ms away, which only Expire may fire. If the test
	// stalled past it before SetReadDeadline read the clock, the deadline
	// was past when set and woke the waiter at once, through the ready
	// function: then park again and retry (bounded).
	var ws []*netpoll.Waiter
	for attempt := 1; len(ws) == 0; attempt++ {
		if attempt > 5 {
			t.Fatalf("in %d attempts the 20ms deadline was past when set", attempt-1)
		}
		if err := d.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if woken := tp.readied(); len(woken) != 0 {
			if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatalf("FinishWait after a deadline set in the past: %v", err)
			}
			if err := d.SetReadDeadline(time.Time{}); err != nil {
				t.Fatal(err)
			}
			w = tp.park(d, netpoll.Read, tryRead(server))
			continue
		}
		limit := time.Now().Add(hangGuard)
		for len(ws) == 0 {
			if time.Now().After(limit) {
				t.Fatalf("hang guard: Expire did not fire a 20ms deadline within %v", hangGuard)
			}
			runtime.Gosched()
			ws = tp.Expire(ws)
		}
	}
	if !sameWaiters(ws, w) {
		t.Fatalf("Expire woke %d waiters, want only the parked reader", len(ws))
	}
	if err := d.FinishWait(netpoll.Read, nil); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("FinishWait: %v; want os.ErrDeadlineExceeded (Expire must not poll)", err)
	}
	if ws := tp.Expire(nil); len(ws) != 0 {
		t.Fatalf("a second Expire woke %d waiters", len(ws))
	}
}

// LastWaitSlept says whether the last Poll that could block found nothing
// ready and slept; a Poll that does not block leaves it as it was.
func TestLastWaitSleptSaysWhetherTheLastBlockingPollFoundNothingAtFirst(t *testing.T) {
	tp := newTestPoller(t)
	if tp.LastWaitSlept() {
		t.Fatal("LastWaitSlept before any Poll")
	}
	for round := range 2 {
		tp.Poll(time.Millisecond, nil) // nothing ready: sleeps until its time is up
		if !tp.LastWaitSlept() {
			t.Fatalf("round %d: a Poll that found nothing and slept: LastWaitSlept false", round)
		}
		tp.Poll(0, nil)
		if !tp.LastWaitSlept() {
			t.Fatalf("round %d: a Poll that does not block changed LastWaitSlept", round)
		}
		tp.Break() // ready before the next Poll looks
		tp.Poll(-1, nil)
		if tp.LastWaitSlept() {
			t.Fatalf("round %d: a Poll that found a Break at once: LastWaitSlept true", round)
		}
	}
}
