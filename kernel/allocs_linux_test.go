//go:build linux

package kernel_test

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// TestAWaitOnADescriptorAllocatesNothing: a task that reads a socketpair
// and waits with Ctx.WaitRead whenever a read would block, woken by the
// poller after each one-byte write, allocates nothing per wait once its
// record has made its wait state (at its first wait).
func TestAWaitOnADescriptorAllocatesNothing(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var d *netpoll.Desc
	// Registered before the kernel's Shutdown, so run after it: the
	// reader, still waiting, is not running.
	t.Cleanup(func() {
		if d != nil {
			d.Close()
		}
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	k := allocKernel(t)
	np, err := k.Poller()
	if err != nil {
		t.Fatal(err)
	}
	if d, err = np.Register(fds[0]); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	one := []byte{1}
	got := make(chan error, 1)
	reader := func(c *kernel.Ctx) {
		if err := c.WaitErr(); err != nil {
			got <- err
			return
		}
		for {
			_, err := unix.Read(fds[0], buf)
			if errors.Is(err, unix.EAGAIN) {
				if err := c.WaitRead(d); err != nil {
					got <- err
				}
				return
			}
			got <- err // nil: a read
			if err != nil {
				return
			}
		}
	}
	if err := k.Go(reader); err != nil {
		t.Fatal(err)
	}
	allocs := steadyAllocs(t, k, func() {
		if _, err := unix.Write(fds[1], one); err != nil {
			t.Fatal(err)
		}
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("a write and the reader's wait for it: %v allocations, want 0", allocs)
	}
}
