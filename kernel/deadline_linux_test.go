//go:build linux

package kernel

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A read deadline fires while the kernel's only P never runs out of work,
// with no monitor to poll for it: findRunnable looks at the deadlines
// itself, as the runtime's checkTimers does, so the waiting task learns of
// its deadline while the other task still runs. (Before expireDeadlines,
// only a poll fired deadlines, and a busy kernel polled only from the
// monitor.)
func TestADeadlineFiresWhileThePIsBusyWithoutTheMonitor(t *testing.T) {
	k := newStressKernel(t, WithProcs(1), stressNoMonitor)
	np, err := k.Poller()
	if err != nil {
		t.Fatal(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := np.Register(fds[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.Close()
		unix.Close(fds[0])
		unix.Close(fds[1])
	})

	var waiting, fired atomic.Bool
	outcome := make(chan error, 1)
	buf := make([]byte, 1)
	if err := k.Go(func(c *Ctx) {
		if err := c.WaitErr(); err != nil {
			fired.Store(true)
			outcome <- err
			return
		}
		if _, err := unix.Read(d.Fd(), buf); err != unix.EAGAIN {
			outcome <- errors.New("the socket was readable, or failed, with nobody writing")
			return
		}
		if err := d.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
			outcome <- err
			return
		}
		if err := c.WaitRead(d); err != nil {
			outcome <- err
			return
		}
		waiting.Store(true)
	}); err != nil {
		t.Fatal(err)
	}

	// The busy task: it yields, keeping the P's queues non-empty, until
	// the reader has learned of its deadline or its bound runs out.
	busy := make(chan bool, 1)
	limit := time.Now().Add(stressHang())
	if err := k.Go(func(c *Ctx) {
		switch {
		case fired.Load():
			busy <- true
		case time.Now().After(limit):
			busy <- false
		default:
			c.Yield()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if !<-busy {
		t.Fatalf("the 1ms deadline did not fire within %v while the P was busy (waiting: %v)", stressHang(), waiting.Load())
	}
	if err := <-outcome; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the wait ended with %v, want os.ErrDeadlineExceeded", err)
	}
}
