//go:build race || vsched_explore

package xsync

import (
	"strings"
	"testing"
)

// assertPanics runs AssertHeld on m from the calling goroutine and returns
// its panic message, or "" when it did not panic.
func assertPanics(m *Mutex) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = r.(string)
		}
	}()
	lockRequired(m)
	return ""
}

// lockRequired stands for a function whose contract is "called with the
// lock held".
func lockRequired(m *Mutex) { m.AssertHeld("test.lock") }

func TestAssertHeldPanicsWithoutTheLockNamingLockAndCaller(t *testing.T) {
	var m Mutex
	msg := assertPanics(&m)
	for _, want := range []string{"test.lock", "internal/xsync.lockRequired", "called from internal/xsync.assertPanics", "held_test.go:"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("AssertHeld without the lock: panic %q, want it to name %q", msg, want)
		}
	}
	m.Lock()
	m.Unlock()
	if msg := assertPanics(&m); msg == "" {
		t.Fatal("AssertHeld after Unlock did not panic")
	}
}

func TestAssertHeldPassesForTheHolder(t *testing.T) {
	var m Mutex
	m.Lock()
	if msg := assertPanics(&m); msg != "" {
		t.Fatalf("AssertHeld by the goroutine holding the lock panicked: %s", msg)
	}
	m.Unlock()
}

func TestAssertHeldPanicsWhenAnotherGoroutineHoldsTheLock(t *testing.T) {
	if !GetgCheap {
		t.Skip("without a cheap Getg the check is only that some goroutine holds the lock")
	}
	var m Mutex
	m.Lock()
	msg := make(chan string)
	go func() { msg <- assertPanics(&m) }()
	got := <-msg
	m.Unlock()
	if !strings.Contains(got, "the calling goroutine does not hold it") {
		t.Fatalf("AssertHeld while another goroutine holds the lock: panic %q, want one saying the caller does not hold it", got)
	}
}
