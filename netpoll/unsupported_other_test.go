//go:build !linux

package netpoll_test

import (
	"errors"
	"testing"

	"github.com/vsched/vsched/netpoll"
)

// TestWithoutABackendEveryEntryPointSaysUnsupported: where there is no
// poller backend, New, Listen and Dial fail with an error that wraps
// ErrUnsupported, so that a caller can tell "not on this system" from a
// failure of the network.
func TestWithoutABackendEveryEntryPointSaysUnsupported(t *testing.T) {
	p, err := netpoll.New(func(*netpoll.Waiter) {})
	if p != nil || !errors.Is(err, netpoll.ErrUnsupported) {
		t.Errorf("New = %v, %v; want nil and an error wrapping ErrUnsupported", p, err)
	}
	if l, err := netpoll.Listen(p, "tcp", "127.0.0.1:0"); l != nil || !errors.Is(err, netpoll.ErrUnsupported) {
		t.Errorf("Listen = %v, %v; want nil and an error wrapping ErrUnsupported", l, err)
	}
	if c, err := netpoll.Dial(p, "tcp", "127.0.0.1:1"); c != nil || !errors.Is(err, netpoll.ErrUnsupported) {
		t.Errorf("Dial = %v, %v; want nil and an error wrapping ErrUnsupported", c, err)
	}
}
