//go:build linux

package kernel_test

import (
	"context"
	"errors"
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
	np.Poll(0, nil)
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
