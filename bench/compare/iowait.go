package compare

import (
	"errors"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// withIOWaiter adds to w the variant kernel-iowaiter: w's kernel variant
// with one task parked on the read end of a pipe that never becomes
// readable. A kernel that serves connections while it computes always has
// such tasks, and its Ms behave differently then: one M blocks in the
// poller when it goes idle, and an M that stops after serving I/O spins on
// its note for a while first (kernel/consts.go stopSpin), which a
// compute-only kernel does not do. The variant measures what the compute
// side pays for that, beside impl=kernel in the same run.
//
// It also adds kernel-gowaiter, the kernel with a goroutine parked on a
// quiet pipe in the Go runtime's own netpoller instead: what any process
// with a parked net.Conn pays, whatever schedules its computation. The
// kernel's poller waits in that netpoller too (netpoll/wait_linux.go)
// while an M blocks in it, so kernel-iowaiter pays it as well, part of the
// time; the difference between the two bounds the kernel's own share.
func withIOWaiter(w workload) workload {
	for _, v := range w.variants {
		if v.impl != "kernel" {
			continue
		}
		setup := v.setup
		w.variants = append(w.variants, variant{"kernel-iowaiter", func(tb testing.TB) runner {
			r := setup(tb)
			parkIOWaiter(tb, r.k)
			return r
		}}, variant{"kernel-gowaiter", func(tb testing.TB) runner {
			r := setup(tb)
			parkGoWaiter(tb)
			return r
		}})
		return w
	}
	panic("compare: withIOWaiter: " + w.name + " has no kernel variant")
}

// parkGoWaiter starts a goroutine that reads a quiet pipe, parked in the
// Go runtime's netpoller until tb's cleanup closes the write end. It does
// not wait for the park: the benchmark's untimed warm-up run gives the
// goroutine its time.
func parkGoWaiter(tb testing.TB) {
	r, w, err := os.Pipe()
	if err != nil {
		tb.Fatalf("os.Pipe: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b [1]byte
		_, _ = r.Read(b[:]) // io.EOF once w is closed
	}()
	tb.Cleanup(func() {
		w.Close()
		<-done
		r.Close()
	})
}

// parkIOWaiter parks a task of k on a quiet pipe until tb's cleanup, which
// closes its Desc (waking it with ErrClosed) before the kernel is closed,
// and returns once the task is parked.
func parkIOWaiter(tb testing.TB, k *kernel.Kernel) {
	np, err := k.Poller()
	if err != nil {
		tb.Fatalf("kernel Poller: %v", err)
	}
	var fds [2]int
	if err := unix.Pipe2(fds[:], unix.O_NONBLOCK|unix.O_CLOEXEC); err != nil {
		tb.Fatalf("pipe2: %v", err)
	}
	d, err := np.Register(fds[0])
	if err != nil {
		unix.Close(fds[0])
		unix.Close(fds[1])
		tb.Fatalf("Register: %v", err)
	}
	// Cleanups run last-in first-out: this one before the kernel's Close.
	tb.Cleanup(func() {
		_ = d.Close()
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	submit(tb, k, func(c *kernel.Ctx) {
		if errors.Is(c.WaitErr(), netpoll.ErrClosed) {
			return
		}
		if err := c.WaitRead(d); err != nil {
			panic("compare: parkIOWaiter: WaitRead: " + err.Error())
		}
	})
	// Only to set the measurement up, as waitIdle does.
	deadline := time.Now().Add(hangTimeout)
	for np.Waiters() == 0 {
		if time.Now().After(deadline) {
			tb.Fatalf("the I/O waiter did not park within %v", hangTimeout)
		}
		time.Sleep(time.Millisecond)
	}
}
