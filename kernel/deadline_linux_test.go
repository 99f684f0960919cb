//go:build linux

package kernel

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/netpoll"
)

// A read deadline fires while the kernel's only P never runs out of work,
// with no monitor to poll for it: findRunnable looks at the deadlines
// itself, as the runtime's checkTimers does, so the waiting task learns of
// its deadline while the other task still runs. (Before expireDeadlines,
// only a poll fired deadlines, and a busy kernel polled only from the
// monitor.)
func TestADeadlineFiresWhileThePIsBusyWithoutTheMonitor(t *testing.T) {
	// An attempt in which the reader never parked (its 20 ms deadline was
	// past before it could wait: a stalled machine) shows nothing; retry.
	for attempt := 1; !deadlineFiresWhileBusy(t); attempt++ {
		if attempt == 5 {
			t.Fatalf("in %d attempts the reader's deadline passed before it could wait", attempt)
		}
	}
}

// deadlineFiresWhileBusy runs one attempt and reports whether it showed
// anything: whether the reader parked before its deadline fired.
func deadlineFiresWhileBusy(t *testing.T) bool {
	k := newStressKernel(t, WithProcs(1), stressNoMonitor)
	np, d := quietDesc(t, k)

	// The reader waits for data nobody writes, with a read deadline.
	outcome := make(chan error, 1)
	buf := make([]byte, 1)
	reader := func(c *Ctx) {
		if err := c.WaitErr(); err != nil {
			outcome <- err
			return
		}
		if _, err := unix.Read(d.Fd(), buf); err != unix.EAGAIN {
			outcome <- errors.New("the socket was readable, or failed, with nobody writing")
			return
		}
		if err := d.SetReadDeadline(time.Now().Add(20 * time.Millisecond)); err != nil {
			outcome <- err
			return
		}
		if err := c.WaitRead(d); err != nil {
			outcome <- err
		}
	}

	// The busy task spawns the reader, then yields, so that the P's
	// queues are never empty and its M never polls, until the reader has
	// an outcome or the bound runs out. It also notes whether it ever saw
	// the reader parked.
	type verdict struct{ ended, parked bool }
	busy := make(chan verdict, 1)
	var spawned, parked bool
	limit := time.Now().Add(stressHang())
	if err := k.Go(func(c *Ctx) {
		if !spawned {
			spawned = true
			c.Go(reader)
		}
		parked = parked || np.Waiters() > 0
		switch {
		case len(outcome) > 0:
			busy <- verdict{ended: true, parked: parked}
		case time.Now().After(limit):
			busy <- verdict{ended: false, parked: parked}
		default:
			c.Yield()
		}
	}); err != nil {
		t.Fatal(err)
	}
	v := <-busy
	if !v.ended {
		t.Fatalf("the 20ms deadline did not fire within %v while the P was busy (the reader parked: %v)", stressHang(), v.parked)
	}
	if err := <-outcome; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the wait ended with %v, want os.ErrDeadlineExceeded", err)
	}
	return v.parked
}

// quietDesc returns k's Poller and a Desc registered with it for one end
// of a socketpair that nobody writes to. t's cleanup closes the Desc and
// both ends, before it closes a kernel made earlier in the test.
func quietDesc(t *testing.T, k *Kernel) (*netpoll.Poller, *netpoll.Desc) {
	t.Helper()
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
		unix.Close(fds[0])
		unix.Close(fds[1])
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Close() // ErrClosed if the test closed it
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	return np, d
}
