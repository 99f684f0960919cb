package netbench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// deadlineConns is how many server-side connections hold a read deadline
// while BenchmarkSetReadDeadline moves them: the size of the timer heap.
const deadlineConns = 50

// idleTimeout is the deadline BenchmarkSetReadDeadline sets: far enough
// ahead never to fire, as a server's idle timeout.
const idleTimeout = 30 * time.Second

// BenchmarkSetReadDeadline reports the cost of moving a connection's read
// deadline idleTimeout ahead, as a server does before each wait for a
// request: netpoll.Desc.SetReadDeadline on the kernel's Poller against
// net.Conn.SetReadDeadline. deadlineConns server-side connections are open,
// each with a deadline set; every goroutine of b.RunParallel moves the
// deadlines of its own share of them in turn, so the timers are set
// concurrently, as the tasks of a kernel with several Ps would set them.
func BenchmarkSetReadDeadline(b *testing.B) {
	b.Run(fmt.Sprintf("conns=%d", deadlineConns), func(b *testing.B) {
		for _, impl := range impls {
			b.Run("impl="+impl, func(b *testing.B) { benchSetReadDeadline(b, impl) })
		}
	})
}

func benchSetReadDeadline(b *testing.B, impl string) {
	setters := deadlineSetters(b, impl, deadlineConns)
	stride := runtime.GOMAXPROCS(0) // RunParallel's goroutines
	var worker atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		// Goroutine w moves the deadlines of connections w, w+stride, ...
		// in turn, so that no two set the same connection's.
		first := int(worker.Add(1)-1) % len(setters)
		for i := first; pb.Next(); {
			if err := setters[i](time.Now().Add(idleTimeout)); err != nil {
				panic(fmt.Sprintf("SetReadDeadline: %v", err))
			}
			if i += stride; i >= len(setters) {
				i = first
			}
		}
	})
}

// deadlineSetters opens n loopback connections to a listener of impl's
// kind and returns the SetReadDeadline of each server-side end, with a
// deadline already set; everything is closed when b ends.
func deadlineSetters(b *testing.B, impl string, n int) []func(time.Time) error {
	b.Helper()
	setters := make([]func(time.Time) error, 0, n)
	switch impl {
	case "net":
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ln.Close() })
		for range n {
			cc, sc := dialAccept(b, ln.Addr(), func() (net.Conn, error) { return ln.Accept() })
			b.Cleanup(func() { cc.Close(); sc.Close() })
			setters = append(setters, sc.SetReadDeadline)
		}
	case "kernel":
		k, err := kernel.New()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
			defer cancel()
			if err := k.Shutdown(ctx); err != nil {
				b.Errorf("kernel Shutdown: %v", err)
			}
		})
		p, err := k.Poller()
		if err != nil {
			b.Fatal(err)
		}
		ln, err := netpoll.Listen(p, "tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { ln.Close() })
		for range n {
			cc, sc := dialAccept(b, ln.Addr(), func() (*netpoll.Conn, error) { return ln.Accept() })
			b.Cleanup(func() { cc.Close(); sc.Close() })
			setters = append(setters, sc.Desc().SetReadDeadline)
		}
	default:
		b.Fatalf("no implementation %q", impl)
	}
	for _, set := range setters {
		if err := set(time.Now().Add(idleTimeout)); err != nil {
			b.Fatal(err)
		}
	}
	return setters
}

// dialAccept dials addr and accepts the connection with accept, which may
// be non-blocking (netpoll's Accept says ErrWouldBlock until the
// connection is queued): it is retried, for at most hangTimeout.
func dialAccept[C any](b *testing.B, addr net.Addr, accept func() (C, error)) (net.Conn, C) {
	b.Helper()
	cc, err := net.DialTimeout("tcp", addr.String(), hangTimeout)
	if err != nil {
		b.Fatal(err)
	}
	for give := time.Now().Add(hangTimeout); ; {
		sc, err := accept()
		if err == nil {
			return cc, sc
		}
		if !errors.Is(err, netpoll.ErrWouldBlock) || time.Now().After(give) {
			cc.Close()
			b.Fatalf("accept: %v", err)
		}
		runtime.Gosched()
	}
}
