// Package servetest holds what the smoke tests of examples/echo and
// examples/resp share: starting both servers of an example on loopback,
// and dialling them with a deadline.
package servetest

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// HangTimeout turns a hang into a failure; no test waits for it otherwise.
const HangTimeout = time.Minute

// Servers starts an example's two implementations on loopback, keyed
// "kernel" and "net", with opts, and closes them (and the kernel) when the
// test ends.
// Only the test's goroutine may call it.
func Servers[S interface{ Close() error }, O any](t *testing.T, serveKernel func(*kernel.Kernel, string, ...O) (S, error), serveNet func(string, ...O) (S, error), opts ...O) map[string]S {
	t.Helper()
	k, err := kernel.New()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := serveKernel(k, "127.0.0.1:0", opts...)
	if err != nil {
		k.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ks.Close(); err != nil {
			t.Errorf("kernel server Close: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), HangTimeout)
		defer cancel()
		if err := k.Shutdown(ctx); err != nil {
			t.Errorf("kernel Shutdown: %v", err)
		}
	})
	ns, err := serveNet("127.0.0.1:0", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ns.Close(); err != nil {
			t.Errorf("net server Close: %v", err)
		}
	})
	return map[string]S{"kernel": ks, "net": ns}
}

// Dial connects to addr with a deadline of HangTimeout, and closes the
// connection when the test ends. Only the test's goroutine may call it.
func Dial(t *testing.T, addr net.Addr) *net.TCPConn {
	t.Helper()
	conn, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(HangTimeout))
	return conn.(*net.TCPConn)
}
