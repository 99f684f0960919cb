//go:build linux

package netpoll_test

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/netpoll"
)

// hangGuard bounds every wait of the tests: a test that waits longer has
// lost an event and fails rather than hang. It is a bound on failure, never
// a timing assertion.
const hangGuard = 10 * time.Second

// pollSlice bounds one Poll of a test loop, so that the loop looks at its
// hang guard.
const pollSlice = 50 * time.Millisecond

// testPoller is a Poller whose ready function collects the waiters handed
// to it (by Desc.Close, or a deadline set in the past), for the test to
// take along with those Poll returns, as a scheduler would.
type testPoller struct {
	*netpoll.Poller
	t testing.TB

	mu    sync.Mutex
	woken []*netpoll.Waiter
}

func newTestPoller(t testing.TB) *testPoller {
	t.Helper()
	tp := &testPoller{t: t}
	p, err := netpoll.New(tp.ready)
	if err != nil {
		t.Fatalf("netpoll.New: %v", err)
	}
	tp.Poller = p
	t.Cleanup(func() { p.Close() })
	return tp
}

func (tp *testPoller) ready(w *netpoll.Waiter) {
	tp.mu.Lock()
	tp.woken = append(tp.woken, w)
	tp.mu.Unlock()
}

// readied takes the waiters handed to the ready function so far.
func (tp *testPoller) readied() []*netpoll.Waiter {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	ws := tp.woken
	tp.woken = nil
	return ws
}

// pollOnce polls for at most delay and returns the waiters whose waits
// ended, from Poll and from the ready function.
func (tp *testPoller) pollOnce(delay time.Duration) []*netpoll.Waiter {
	ws := tp.Poll(delay, nil)
	return append(ws, tp.readied()...)
}

// awaitWaiter polls until w comes back; any other waiter coming back fails
// the test.
func (tp *testPoller) awaitWaiter(w *netpoll.Waiter) {
	tp.t.Helper()
	limit := time.Now().Add(hangGuard)
	for {
		found := false
		for _, got := range tp.pollOnce(pollSlice) {
			if got != w {
				tp.t.Fatalf("waiter %v came back while waiting for %v", got.Task(), w.Task())
			}
			found = true
		}
		if found {
			return
		}
		if time.Now().After(limit) {
			tp.t.Fatalf("hang guard: waiter %v not back after %v (Waiters() = %d)", w.Task(), hangGuard, tp.Waiters())
		}
	}
}

// park announces and commits a wait in mode on d and returns its waiter.
// An edge latched before (the registration's first EPOLLOUT, say) ends the
// prepared wait at once: try, which must then still fail with
// ErrWouldBlock, runs and the wait is prepared again, as a task would.
func (tp *testPoller) park(d *netpoll.Desc, mode netpoll.Mode, try func() error) *netpoll.Waiter {
	tp.t.Helper()
	for i := 0; ; i++ {
		armed, err := d.PrepareWait(mode)
		if err != nil {
			tp.t.Fatalf("PrepareWait(%v) on %v: %v", mode, d, err)
		}
		if armed {
			break
		}
		if i == 10 {
			tp.t.Fatalf("PrepareWait(%v) on %v keeps finding an edge", mode, d)
		}
		if err := try(); !errors.Is(err, netpoll.ErrWouldBlock) {
			tp.t.Fatalf("the I/O on %v after a consumed edge: %v, want ErrWouldBlock", d, err)
		}
	}
	w := netpoll.NewWaiter(fmt.Sprintf("%v %v", d, mode))
	if !d.CommitWait(mode, w) {
		tp.t.Fatalf("CommitWait(%v) on %v failed with nothing racing it", mode, d)
	}
	return w
}

// wait is a scheduler's wait in mode on d, for one task: PrepareWait,
// CommitWait, Poll until the waiter comes back, FinishWait. It returns the
// wait's outcome.
func (tp *testPoller) wait(d *netpoll.Desc, mode netpoll.Mode) error {
	tp.t.Helper()
	armed, err := d.PrepareWait(mode)
	if !armed {
		return err
	}
	w := netpoll.NewWaiter(fmt.Sprintf("%v %v", d, mode))
	if d.CommitWait(mode, w) {
		tp.awaitWaiter(w)
	}
	return d.FinishWait(mode, nil)
}

// listen listens on a free loopback port.
func (tp *testPoller) listen() *netpoll.Listener {
	tp.t.Helper()
	l, err := netpoll.Listen(tp.Poller, "tcp4", "127.0.0.1:0")
	if err != nil {
		tp.t.Fatalf("Listen: %v", err)
	}
	tp.t.Cleanup(func() { l.Close() })
	return l
}

// dial dials address and waits until the connect ends.
func (tp *testPoller) dial(network, address string) (*netpoll.Conn, error) {
	tp.t.Helper()
	c, err := netpoll.Dial(tp.Poller, network, address)
	if err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		err := c.Connected()
		if !errors.Is(err, netpoll.ErrWouldBlock) {
			if err != nil {
				c.Close()
				return nil, err
			}
			return c, nil
		}
		if i == 100 {
			tp.t.Fatalf("Connected keeps saying ErrWouldBlock")
		}
		if err := tp.wait(c.Desc(), netpoll.Write); err != nil {
			tp.t.Fatalf("waiting for the connect: %v", err)
		}
	}
}

// accept waits for a connection on l and accepts it.
func (tp *testPoller) accept(l *netpoll.Listener) *netpoll.Conn {
	tp.t.Helper()
	for i := 0; ; i++ {
		c, err := l.Accept()
		if err == nil {
			return c
		}
		if !errors.Is(err, netpoll.ErrWouldBlock) || i == 100 {
			tp.t.Fatalf("Accept: %v", err)
		}
		if err := tp.wait(l.Desc(), netpoll.Read); err != nil {
			tp.t.Fatalf("waiting to accept: %v", err)
		}
	}
}

// pair returns the two ends of a new loopback connection to l; both are
// closed at the end of the test.
func (tp *testPoller) pair(l *netpoll.Listener) (client, server *netpoll.Conn) {
	tp.t.Helper()
	client, err := tp.dial("tcp", l.Addr().String())
	if err != nil {
		tp.t.Fatalf("dial %v: %v", l.Addr(), err)
	}
	server = tp.accept(l)
	tp.t.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client, server
}

// writeAll writes b, waiting whenever the socket is full.
func (tp *testPoller) writeAll(c *netpoll.Conn, b []byte) error {
	tp.t.Helper()
	for len(b) > 0 {
		n, err := c.Write(b)
		b = b[n:]
		if errors.Is(err, netpoll.ErrWouldBlock) {
			if err := tp.wait(c.Desc(), netpoll.Write); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readFull reads len(b) bytes, waiting whenever there is nothing to read.
func (tp *testPoller) readFull(c *netpoll.Conn, b []byte) error {
	tp.t.Helper()
	for len(b) > 0 {
		n, err := c.Read(b)
		if n > len(b) {
			return fmt.Errorf("Read returned %d for a slice of %d bytes", n, len(b))
		}
		b = b[n:]
		if errors.Is(err, netpoll.ErrWouldBlock) {
			if err := tp.wait(c.Desc(), netpoll.Read); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readAll reads until io.EOF.
func (tp *testPoller) readAll(c *netpoll.Conn) ([]byte, error) {
	tp.t.Helper()
	var all []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		all = append(all, buf[:n]...)
		switch {
		case err == io.EOF:
			return all, nil
		case errors.Is(err, netpoll.ErrWouldBlock):
			if err := tp.wait(c.Desc(), netpoll.Read); err != nil {
				return all, err
			}
		case err != nil:
			return all, err
		}
	}
}

// fill writes to c until its send buffer (and the peer's receive buffer)
// is full, so that a write wait does not end by itself. It shrinks c's
// send buffer first to keep that short.
func fill(t testing.TB, c *netpoll.Conn) {
	t.Helper()
	if err := unix.SetsockoptInt(c.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatalf("SO_SNDBUF: %v", err)
	}
	chunk := make([]byte, 64<<10)
	for i := 0; ; i++ {
		_, err := c.Write(chunk)
		if errors.Is(err, netpoll.ErrWouldBlock) {
			return
		}
		if err != nil || i == 10000 {
			t.Fatalf("filling %v: %v after %d writes", c.Desc(), err, i)
		}
	}
}

// loop is a scheduler for many tasks on one goroutine, as the kernel runs
// them on its Ps: a task's step runs until it returns done, and when it
// returns a wait the loop prepares and commits it, and runs the step again
// with the wait's outcome once the waiter comes back.
type loop struct {
	tp     *testPoller
	runq   []*loopTask
	parked int
}

// next is what a step asks for: a wait (d non-nil), to run again after the
// others (yield), or nothing more (done, the zero next).
type next struct {
	d     *netpoll.Desc
	mode  netpoll.Mode
	yield bool
}

var done = next{}

func waitOn(d *netpoll.Desc, mode netpoll.Mode) next { return next{d: d, mode: mode} }

type loopTask struct {
	step    func(waitErr error) next
	w       *netpoll.Waiter
	waiting next  // the wait in progress
	waitErr error // the outcome of the last wait
}

// spawn adds a task; step gets the outcome of the wait that preceded each
// run (nil for the first).
func (l *loop) spawn(step func(waitErr error) next) {
	tk := &loopTask{step: step}
	tk.w = netpoll.NewWaiter(tk)
	l.runq = append(l.runq, tk)
}

// run runs the tasks until all are done. It fails the test once no
// waiter has come back for hangGuard (a lost wakeup), and once the tasks
// have run for ten times that in all (a livelock, whose waits keep
// ending).
func (l *loop) run() {
	t := l.tp.t
	t.Helper()
	limit, end := time.Now().Add(hangGuard), time.Now().Add(10*hangGuard)
	guard := func() {
		t.Helper()
		switch now := time.Now(); {
		case now.After(limit):
			t.Fatalf("hang guard: %d tasks runnable and %d parked, and no waiter back for %v (Waiters() = %d)",
				len(l.runq), l.parked, hangGuard, l.tp.Waiters())
		case now.After(end):
			t.Fatalf("hang guard: %d tasks runnable and %d parked after %v (Waiters() = %d)",
				len(l.runq), l.parked, 10*hangGuard, l.tp.Waiters())
		}
	}
	for len(l.runq) > 0 || l.parked > 0 {
		guard()
		for steps := 1; len(l.runq) > 0; steps++ {
			if steps%1024 == 0 {
				guard() // tasks that yield or fail their waits forever
			}
			tk := l.runq[0]
			l.runq[0] = nil
			l.runq = l.runq[1:]
			err := tk.waitErr
			tk.waitErr = nil
			n := tk.step(err)
			switch {
			case n.yield:
				l.runq = append(l.runq, tk)
			case n.d == nil:
				// done
			default:
				armed, err := n.d.PrepareWait(n.mode)
				if errors.Is(err, netpoll.ErrBusy) {
					t.Fatalf("PrepareWait(%v) on %v: %v", n.mode, n.d, err)
				}
				if !armed {
					tk.waitErr = err
					l.runq = append(l.runq, tk)
					continue
				}
				tk.waiting = n
				if n.d.CommitWait(n.mode, tk.w) {
					l.parked++
					continue
				}
				tk.waitErr = n.d.FinishWait(n.mode, nil)
				l.runq = append(l.runq, tk)
			}
		}
		delay := pollSlice
		if len(l.runq) > 0 {
			delay = 0
		}
		for _, w := range l.tp.pollOnce(delay) {
			// A waiter back is progress: the guard bounds a spell
			// without any, not the whole run, whose length grows with
			// the test's connections and the machine's load.
			limit = time.Now().Add(hangGuard)
			tk := w.Task().(*loopTask)
			l.parked--
			tk.waitErr = tk.waiting.d.FinishWait(tk.waiting.mode, nil)
			l.runq = append(l.runq, tk)
		}
	}
	if n := l.tp.Waiters(); n != 0 {
		t.Fatalf("all tasks done, but Waiters() = %d", n)
	}
}
