//go:build linux && (race || vsched_explore)

package netpoll

import (
	"strings"
	"testing"
)

// TestFunctionsCalledWithALockPanicWithoutIt: in the race and explorer
// builds the Poller's functions whose contract is "called with mu (or
// tmu) held" check it first and panic naming the lock and themselves.
func TestFunctionsCalledWithALockPanicWithoutIt(t *testing.T) {
	p := newTestPoller(t)
	for _, c := range []struct {
		name, lock string
		f          func()
	}{
		{"lookupLocked", "Poller.mu", func() { p.lookupLocked(0, 0) }},
		{"heapedLocked", "Poller.tmu", func() { p.heapedLocked(&timer{idx: -1}) }},
		{"publishNextLocked", "Poller.tmu", func() { p.publishNextLocked() }},
	} {
		want := "xsync: netpoll.(*Poller)." + c.name + " requires " + c.lock + " held"
		if msg := panicText(c.f); !strings.Contains(msg, want) {
			t.Errorf("%s without %s: %q, want a panic containing %q", c.name, c.lock, msg, want)
		}
	}
	p.tmu.Lock()
	msg := panicText(func() { p.publishNextLocked() })
	p.tmu.Unlock()
	if msg != "" {
		t.Errorf("publishNextLocked with tmu held panicked: %s", msg)
	}
}

// panicText runs f and returns its panic's string, or "" when it returned.
func panicText(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg, _ = v.(string)
			if msg == "" {
				msg = "a panic that is not a string"
			}
		}
	}()
	f()
	return ""
}
