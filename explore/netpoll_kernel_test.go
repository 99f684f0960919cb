//go:build vsched_explore && linux

package explore_test

import (
	"errors"
	"github.com/vsched/vsched/internal/pollproto"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// Models of the kernel with its netpoller. The epoll instance and the
// socketpair are real; a blocking poll is modelled as a sleep on a note
// that only a Break ends (netpoll's explorer build), so an M left blocked
// in the poller with nobody to break it is a deadlock, like any lost
// wakeup. A write that must end a blocked poll is followed by a Break, as
// the operating system's wakeup of epoll_wait.

// ioPair returns a registered socketpair end and its peer. The execution's
// cleanup closes both and the kernel's poller (a no-op when the kernel
// closed it), however the execution ended: the explorer abandons most
// executions at a scheduling point, where the model's own code would
// never reach a close.
// pollOps is netpoll's scheduler side, for the models that break a
// blocked poll by hand.
var pollOps = pollproto.Get[*netpoll.Poller, *netpoll.Desc, netpoll.Mode]()

func ioPair(k *kernel.Kernel) (*netpoll.Desc, int) {
	np, err := k.Poller()
	if err != nil {
		panic(err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		panic(err)
	}
	explore.Cleanup(func() {
		pollOps.Close(np)
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	d, err := np.Register(fds[0])
	if err != nil {
		panic(err)
	}
	return d, fds[1]
}

// writeAndBreak writes a byte to the peer socket, then breaks k's poller,
// as the operating system's wakeup would end a blocked epoll_wait.
func writeAndBreak(k *kernel.Kernel, peer int) {
	if _, err := unix.Write(peer, []byte{1}); err != nil {
		panic(err)
	}
	np, _ := k.Poller()
	pollOps.Break(np)
}

// readOrWait is a model task's read of a byte from d: it reports whether
// the byte came, and when the read would block it has asked to wait for
// readability. A wait that ended with an error fails the model.
func readOrWait(c *kernel.Ctx, d *netpoll.Desc, buf []byte) bool {
	if err := c.WaitErr(); err != nil {
		panic(err)
	}
	if _, err := unix.Read(d.Fd(), buf); err == unix.EAGAIN {
		if err := c.WaitRead(d); err != nil {
			panic(err)
		}
		return false
	}
	return true
}

// firstRunWaits counts a model task's run in runs and, in its first run,
// asks for a wait for d's readability (an error fails the model); it
// reports whether this is that first run.
func firstRunWaits(c *kernel.Ctx, d *netpoll.Desc, runs *xsync.Int32) bool {
	if runs.Add(1) != 1 {
		return false
	}
	if err := c.WaitRead(d); err != nil {
		panic(err)
	}
	return true
}

// readVsWrite: a task reads a socket that a thread writes to. The task
// tries first and waits only when the read would block; readiness reaches
// it through a poll, before stealing or blocking, whichever M does it. The
// test waits for the task to have read, so a lost readiness is a deadlock.
func readVsWrite() {
	k := newModelKernel(2)
	d, peer := ioPair(k)
	var done xsync.Note
	var runs xsync.Int32
	buf := make([]byte, 1)
	k.Go(func(c *kernel.Ctx) {
		runs.Add(1)
		if readOrWait(c, d, buf) {
			done.Wakeup()
		}
	})
	writer := explore.Go(func() { writeAndBreak(k, peer) })
	done.Sleep()
	writer.Join()
	drain(k)
	n := runs.Load()
	explore.Assertf(n == 1 || n == 2, "the task ran %d times, want once (data already there) or twice", n)
}

// closeVsWait: a thread closes the descriptor a task waits on, before or
// after the wait commits; either way the task runs again and learns
// ErrClosed, and Shutdown then breaks the M blocked in the poller. One P:
// the task woken by Close needs a second M while the first blocks in the
// poller.
func closeVsWait() {
	k := newModelKernel(1)
	d, _ := ioPair(k)
	var runs xsync.Int32
	var outcome error
	k.Go(func(c *kernel.Ctx) {
		if firstRunWaits(c, d, &runs) {
			return
		}
		outcome = c.WaitErr()
	})
	closer := explore.Go(func() { d.Close() })
	closer.Join()
	drain(k)
	n := runs.Load()
	explore.Assertf(n == 2, "the task ran %d times, want twice", n)
	explore.Assertf(errors.Is(outcome, netpoll.ErrClosed), "the wait ended with %v, want ErrClosed", outcome)
}

// shutdownVsPoller: a task waits on a socket nobody writes; Shutdown does
// not wait for it, but must break the M blocked in the poller, wherever it
// is on its way there.
func shutdownVsPoller() {
	k := newModelKernel(2)
	d, _ := ioPair(k)
	var started xsync.Note
	k.Go(func(c *kernel.Ctx) {
		if err := c.WaitRead(d); err != nil {
			panic(err)
		}
		started.Wakeup()
	})
	started.Sleep()
	drain(k)
}

// shutdownVsWokenTask: one P; a task waits on a socket that a thread
// writes while Shutdown runs. Shutdown does not wait for a parked task,
// but a task that a poll woke is runnable and must run, not be dropped:
// the M that polled stays the poller, in the drain's eyes, until what it
// woke is queued.
func shutdownVsWokenTask() {
	k := newModelKernel(1)
	d, peer := ioPair(k)
	var started xsync.Note
	var runs xsync.Int32
	k.Go(func(c *kernel.Ctx) {
		if firstRunWaits(c, d, &runs) {
			started.Wakeup()
		}
	})
	started.Sleep()
	writer := explore.Go(func() { writeAndBreak(k, peer) })
	drain(k)
	writer.Join()
	n := k.Stats().DroppedCount
	explore.Assertf(n == 0, "Shutdown dropped %d task(s); it drops none, and the woken task ran %d time(s)", n, runs.Load())
}

// monitorPollVsIdle: the monitor polls, without blocking, while the only
// M goes idle after its task began to wait; then a thread writes. Whoever
// polled, someone must be left to see the write: an M that took the
// monitor's poll for a blocking poller and parked, with the monitor gone
// back to sleep, left nobody (a lost wakeup, found by a stress test).
func monitorPollVsIdle() {
	k := newModelKernel(1)
	d, peer := ioPair(k)
	var done xsync.Note
	var runs xsync.Int32
	k.Go(func(c *kernel.Ctx) {
		if firstRunWaits(c, d, &runs) {
			return
		}
		done.Wakeup()
	})
	monitor := explore.Go(func() { testhook.MonitorPoll(k) })
	monitor.Join()
	writeAndBreak(k, peer)
	done.Sleep()
	drain(k)
}

// shutdownVsMonitorPoll: Shutdown while the monitor polls and the only M
// goes idle with a task waiting on a socket nobody writes. The M, finding
// the kernel draining, takes lastpoll to 0 and back instead of blocking in
// the poller; a monitor that had read lastpoll before that sees its
// compare-and-swap fail and gives up its claim on pollingNet. Whoever
// releases pollingNet or restores lastpoll last must look at the drain
// again, or Shutdown waits forever (found by a stress test under -race).
func shutdownVsMonitorPoll() {
	k := kernelWithSilentWait(1)
	monitor := explore.Go(func() { testhook.MonitorPoll(k) })
	drain(k)
	monitor.Join()
}

// kernelWithSilentWait returns a model kernel of procs Ps with one task
// parked on reading a socket that nobody writes.
func kernelWithSilentWait(procs int) *kernel.Kernel {
	k := newModelKernel(procs)
	d, _ := ioPair(k)
	np, _ := k.Poller()
	k.Go(func(c *kernel.Ctx) {
		if err := c.WaitRead(d); err != nil {
			panic(err)
		}
	})
	for np.Waiters() == 0 {
		xsync.Spin()
	}
	return k
}

// monitorPollVsTwoIdle: two Ps, a task waiting on a socket nobody writes,
// and the monitor polls while both Ms go idle. One M becomes the blocking
// poller (lastpoll to 0) and the other parks; the monitor moves lastpoll
// on only if it is still what the monitor read, so that it never hides
// the blocking poller and lets the other M block in the poller too, where
// Shutdown's one Break would wake only one of them.
func monitorPollVsTwoIdle() {
	k := kernelWithSilentWait(2)
	monitor := explore.Go(func() { testhook.MonitorPoll(k) })
	monitor.Join()
	drain(k)
}

// deadlineVsWait: a task waits to read a socket nobody writes, with a read
// deadline an hour ahead. The only way the wait ends is time: the M that
// blocks in the poller sleeps until the deadline, the explorer ends that
// sleep by its timeout at any point it may, and the poll fires the timer.
// The task runs again and learns ErrDeadlineExceeded, then Shutdown.
func deadlineVsWait() {
	k := newModelKernel(1)
	d, _ := ioPair(k)
	due := xsync.Nanotime() + int64(time.Hour)
	if err := d.SetReadDeadline(xsync.Now().Add(time.Hour)); err != nil {
		panic(err)
	}
	var done xsync.Note
	var runs xsync.Int32
	var outcome error
	var at int64
	k.Go(func(c *kernel.Ctx) {
		if firstRunWaits(c, d, &runs) {
			return
		}
		outcome, at = c.WaitErr(), xsync.Nanotime()
		done.Wakeup()
	})
	done.Sleep()
	drain(k)
	explore.Assertf(errors.Is(outcome, netpoll.ErrDeadlineExceeded), "the wait ended with %v, want the deadline", outcome)
	explore.Assertf(at >= due, "the task ran again at %d, before the deadline %d", at, due)
}

// blockVsIOWait: a task spawns a second one and waits to read; the second
// runs on the same P and blocks (Block, handed off at once) until the
// first has read. A thread writes. The blocked task's P is handed off
// while the other P may be idle with its M asleep and nobody in the
// poller: the hand-off must start an M to poll (handoffp's "last running
// P" rule), or nobody sees the write.
func blockVsIOWait() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	d, peer := ioPair(k)
	np, _ := k.Poller()
	var blocking, read, done xsync.Note
	var runs xsync.Int32
	buf := make([]byte, 1)
	k.Go(func(c *kernel.Ctx) {
		if runs.Add(1) == 1 {
			c.Go(func(c *kernel.Ctx) {
				c.Block(func() {
					blocking.Wakeup()
					read.Sleep()
				})
			})
		}
		if readOrWait(c, d, buf) {
			read.Wakeup()
			done.Wakeup()
		}
	})
	// Write once the reader waits and the other task is in Block.
	blocking.Sleep()
	for np.Waiters() == 0 {
		xsync.Spin()
	}
	if _, err := unix.Write(peer, []byte{1}); err != nil {
		panic(err)
	}
	pollOps.Break(np)
	done.Sleep()
	drain(k)
}

// twoWokenVsIdleP: two Ps and two tasks, each waiting to read its own
// socket; a thread writes both sockets and then breaks the poller. One
// task, once it has read, spins until the other has read too. When one
// poll wakes both, the M that polled runs one and must hand the other on
// (injectglist: to the global queue with an M started for the idle P),
// or the other waits behind a spinning task that is never preempted.
func twoWokenVsIdleP() {
	k := newModelKernel(2)
	d1, peer1 := ioPair(k)
	d2, peer2 := ioPair(k)
	var done xsync.Int32
	var finished xsync.Note
	spinner, other := &ktask{name: "spinner"}, &ktask{name: "other"}
	buf1, buf2 := make([]byte, 1), make([]byte, 1)
	k.Go(func(c *kernel.Ctx) {
		if !readOrWait(c, d1, buf1) {
			return
		}
		spinUntil(&done)
		spinner.fn(c)
		finished.Wakeup()
	})
	k.Go(func(c *kernel.Ctx) {
		if !readOrWait(c, d2, buf2) {
			return
		}
		other.fn(c)
		done.Store(1)
	})
	np, _ := k.Poller()
	for np.Waiters() < 2 {
		xsync.Spin()
	}
	for _, peer := range []int{peer1, peer2} {
		if _, err := unix.Write(peer, []byte{1}); err != nil {
			panic(err)
		}
	}
	pollOps.Break(np)
	finished.Sleep() // Shutdown does not wait for parked tasks
	drain(k)
	ranOnce(spinner, other)
}

func init() {
	kernelModels = append(kernelModels, []struct {
		name  string
		model func()
	}{
		{"NetpollReadVsWrite", readVsWrite},
		{"NetpollCloseVsWait", closeVsWait},
		{"NetpollShutdownVsPoller", shutdownVsPoller},
		{"NetpollMonitorPollVsIdle", monitorPollVsIdle},
		{"NetpollBlockVsIOWait", blockVsIOWait},
		{"NetpollShutdownVsMonitorPoll", shutdownVsMonitorPoll},
		{"NetpollDeadlineVsWait", deadlineVsWait},
		{"NetpollMonitorPollVsTwoIdle", monitorPollVsTwoIdle},
		{"NetpollTwoWokenVsIdleP", twoWokenVsIdleP},
		{"NetpollShutdownVsWokenTask", shutdownVsWokenTask},
	}...)
}
