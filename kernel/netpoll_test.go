//go:build linux

package kernel_test

import (
	"context"
	"errors"
	"github.com/vsched/vsched/internal/pollproto"
	"os"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// pipePair returns one end of a socketpair registered with the kernel's
// poller (socketpairDescs), and the other end's descriptor for the test to
// write to.
func pipePair(t *testing.T, k *kernel.Kernel) (*netpoll.Desc, int) {
	t.Helper()
	np, err := k.Poller()
	require.NoError(t, err)
	d, peer := socketpairDescs(t, np)
	return d, peer.Fd()
}

// reader returns a task that reads d until it has want bytes, waiting for
// readability whenever a read would block, and then reports on done.
func reader(d *netpoll.Desc, want int, done chan<- error) func(*kernel.Ctx) {
	got := 0
	buf := make([]byte, 64)
	return func(c *kernel.Ctx) {
		if err := c.WaitErr(); err != nil {
			done <- err
			return
		}
		for got < want {
			n, err := unix.Read(d.Fd(), buf)
			if err == unix.EAGAIN {
				if err := c.WaitRead(d); err != nil {
					done <- err
				}
				return
			}
			if err != nil {
				done <- err
				return
			}
			got += n
		}
		done <- nil
	}
}

// waitIOWaiting spins until n tasks wait on the poller (bounded).
func waitIOWaiting(t *testing.T, k *kernel.Kernel, n int) {
	t.Helper()
	for i := 0; k.Stats().IOWaitingTasks != n; i++ {
		if i > 10_000_000 {
			t.Fatalf("IOWaiting never became %d: %+v", n, k.Stats())
		}
		runtime.Gosched()
	}
}

func shutdown(t *testing.T, k *kernel.Kernel) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, k.Shutdown(ctx))
}

func TestWaitReadRunsTheTaskAgainOnceReadable(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 5, done)))
	waitIOWaiting(t, k, 1)
	_, err = unix.Write(peer, []byte("hello"))
	require.NoError(t, err)
	require.NoError(t, <-done)
	shutdown(t, k)
	s := k.Stats()
	require.Equal(t, 0, s.IOWaitingTasks)
	require.GreaterOrEqual(t, s.TaskParkCount, uint64(1))
	require.Equal(t, 0, s.ParkedTasks)
}

func TestAnEdgeBeforeTheWaitIsNotLost(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	_, err = unix.Write(peer, []byte("x"))
	require.NoError(t, err)
	// Let a poll latch the edge: a Poll by hand, as the kernel's would.
	np, _ := k.Poller()
	pollproto.Get[*netpoll.Poller, *netpoll.Desc, netpoll.Mode]().Poll(np, 0, nil)
	runs := 0
	done := make(chan error, 1)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		runs++
		if runs == 1 {
			// Wait without reading: the latched edge ends the wait at once.
			if err := c.WaitRead(d); err != nil {
				done <- err
			}
			return
		}
		done <- c.WaitErr()
	}))
	require.NoError(t, <-done)
	require.Equal(t, 2, runs)
	shutdown(t, k)
}

func TestWaitEndsWithDeadlineExceeded(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, _ := pipePair(t, k)
	require.NoError(t, d.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 1, done)))
	err = <-done
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	shutdown(t, k)
	require.Equal(t, 0, k.Stats().IOWaitingTasks)
}

func TestCloseWakesTheWaiterWithErrClosed(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, _ := pipePair(t, k)
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 1, done)))
	waitIOWaiting(t, k, 1)
	require.NoError(t, d.Close())
	require.ErrorIs(t, <-done, netpoll.ErrClosed)
	require.ErrorIs(t, d.Close(), netpoll.ErrClosed)
	shutdown(t, k)
}

func TestASecondWaiterOnASlotGetsErrBusy(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 1, done)))
	waitIOWaiting(t, k, 1)
	second := make(chan error, 1)
	require.NoError(t, k.Go(func(c *kernel.Ctx) { second <- c.WaitRead(d) }))
	require.ErrorIs(t, <-second, netpoll.ErrBusy)
	_, err = unix.Write(peer, []byte("x"))
	require.NoError(t, err)
	require.NoError(t, <-done)
	shutdown(t, k)
}

// A task that asks for a read wait and then panics is dead, with a panic
// handler as without: its wait is taken back, so the next task's wait on
// the same descriptor is no ErrBusy, and that task, not the dead one, runs
// when data comes.
func TestATaskThatPanicsAfterAskingForAWaitLeavesTheSlot(t *testing.T) {
	handled := make(chan any, 1)
	k, err := kernel.New(kernel.WithProcs(1), kernel.WithPanicHandler(func(v any, _ []byte) { handled <- v }))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	var deadRuns atomic.Int32
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		deadRuns.Add(1)
		if err := c.WaitRead(d); err != nil {
			panic(err)
		}
		panic("after asking for a wait")
	}))
	require.Equal(t, "after asking for a wait", <-handled)
	first, woken := make(chan error, 1), make(chan struct{})
	runs := 0
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		if runs++; runs == 1 {
			first <- c.WaitRead(d) // nothing written yet
			return
		}
		close(woken)
	}))
	require.NoError(t, <-first, "the dead task still holds the read slot")
	_, err = unix.Write(peer, []byte("x"))
	require.NoError(t, err)
	<-woken
	shutdown(t, k)
	require.Equal(t, int32(1), deadRuns.Load(), "the task that panicked ran again")
}

func TestWaitOnAForeignDescIsAnError(t *testing.T) {
	k1, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	k2, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	d, _ := pipePair(t, k1)
	done := make(chan error, 1)
	require.NoError(t, k2.Go(func(c *kernel.Ctx) { done <- c.WaitRead(d) }))
	require.ErrorIs(t, <-done, kernel.ErrForeignDesc)
	require.NoError(t, k2.Go(func(c *kernel.Ctx) { done <- c.WaitWrite(nil) }))
	require.ErrorIs(t, <-done, kernel.ErrForeignDesc)
	shutdown(t, k1)
	shutdown(t, k2)
}

// With its only P busy running a task that keeps yielding, the kernel's Ms
// never get as far as polling in findRunnable; the monitor's poll still
// delivers the readiness.
func TestABusyKernelStillSeesIO(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 1, done)))
	waitIOWaiting(t, k, 1)
	var stop atomic.Bool
	spins := 0
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		spins++
		if !stop.Load() && spins < 50_000_000 {
			c.Yield()
		}
	}))
	_, err = unix.Write(peer, []byte("x"))
	require.NoError(t, err)
	err = <-done
	stop.Store(true)
	require.NoError(t, err)
	shutdown(t, k)
}

func TestShutdownDoesNotWaitForTasksWaitingOnIO(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	d, _ := pipePair(t, k)
	done := make(chan error, 1)
	require.NoError(t, k.Go(reader(d, 1, done)))
	waitIOWaiting(t, k, 1)
	shutdown(t, k) // returns although a task waits; the poller M exits
	s := k.Stats()
	require.Equal(t, 1, s.IOWaitingTasks)
	require.Equal(t, 1, s.ParkedTasks)
	_, err = k.Poller()
	require.True(t, err == nil || errors.Is(err, kernel.ErrClosed))
}

// sink keeps the busy loops of the tests from being optimized away.
var sink atomic.Int64

// waitAllIdle spins until every P of k is idle (bounded).
func waitAllIdle(t *testing.T, k *kernel.Kernel) {
	t.Helper()
	for i := 0; ; i++ {
		if s := k.Stats(); s.IdleWorkers == s.Workers {
			return
		}
		if i > 10_000_000 {
			t.Fatalf("the Ps never all went idle: %+v", k.Stats())
		}
		runtime.Gosched()
	}
}

// TestStopSpinsOnlyAfterServingIO: an M that stops spins on its note
// before it sleeps only if it ran a task back from an I/O wait since it
// last stopped, and only while tasks wait on the poller. A kernel that
// computes beside a parked connection must not spin: the spin takes its
// wakeup batching (BenchmarkSpawnRemote/impl=kernel-iowaiter in bench/
// measures it; DESIGN.md §3.3). One that serves I/O does.
func TestStopSpinsOnlyAfterServingIO(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	defer shutdown(t, k)
	idle, _ := pipePair(t, k)
	require.NoError(t, k.Go(reader(idle, 1, make(chan error, 1))))
	waitIOWaiting(t, k, 1)

	// Compute: rounds of tasks submitted from outside, after each of which
	// the Ms stop, with the idle connection's task on the poller.
	before := k.Stats()
	const rounds, tasks = 50, 64
	for range rounds {
		var ran atomic.Int64
		done := make(chan struct{})
		for range tasks {
			require.NoError(t, k.Go(func(*kernel.Ctx) {
				if ran.Add(1) == tasks {
					close(done)
				}
			}))
		}
		<-done
		waitAllIdle(t, k)
	}
	after := k.Stats()
	require.Greater(t, after.ParkCount, before.ParkCount, "no M stopped: the test tests nothing")
	require.Equal(t, before.SpinParkCount, after.SpinParkCount,
		"Ms that ran only computing tasks spun before they slept, %d times in %d stops",
		after.SpinParkCount-before.SpinParkCount, after.ParkCount-before.ParkCount)

	// Serve: rounds of readiness for a few tasks at once. Whichever M ran
	// one and then stops, while the idle connection's task still waits,
	// must spin; that no round has such an M is possible, but not in a
	// thousand.
	const conns, maxRounds = 8, 1000
	ds, peers := make([]*netpoll.Desc, conns), make([]int, conns)
	for i := range ds {
		ds[i], peers[i] = pipePair(t, k)
	}
	for round := 0; k.Stats().SpinParkCount == after.SpinParkCount; round++ {
		if round == maxRounds {
			t.Fatalf("no M spun before it slept in %d rounds of I/O: %+v", maxRounds, k.Stats())
		}
		done := make(chan error, conns)
		for _, d := range ds {
			r := reader(d, 1, done)
			require.NoError(t, k.Go(func(c *kernel.Ctx) {
				// Some work first, so that the M the poll woke cannot
				// finish the round alone before the other M starts.
				for i := range 20_000 {
					sink.Add(int64(i))
					if i%1000 == 0 {
						runtime.Gosched() // with GOMAXPROCS=1 too
					}
				}
				r(c)
			}))
		}
		waitIOWaiting(t, k, 1+conns)
		for _, fd := range peers {
			_, err := unix.Write(fd, []byte("x"))
			require.NoError(t, err)
		}
		for range conns {
			require.NoError(t, <-done)
		}
		waitAllIdle(t, k)
	}
}
