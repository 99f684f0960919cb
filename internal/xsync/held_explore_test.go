//go:build vsched_explore

package xsync

import (
	"strings"
	"testing"

	"github.com/vsched/vsched/internal/explorer"
)

// TestAssertHeldInAModelChecksTheRunningThread: inside a model the
// explorer's own record of the holder decides. A thread that asserts while
// another thread holds the lock fails the exploration with the panic; the
// holder's own assertion passes.
func TestAssertHeldInAModelChecksTheRunningThread(t *testing.T) {
	var m Mutex
	res, err := explorer.Run(explorer.Config{MaxPreemptions: explorer.Unbounded}, func() {
		m = Mutex{}
		var done Note
		Go(func() {
			m.Lock()
			lockRequired(&m) // the holder: passes
			m.Unlock()
			done.Wakeup()
		})
		lockRequired(&m) // held by T1 in some schedules, by nobody in others
		done.Sleep()
	})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Failure
	if f == nil || f.Kind != "panic" || f.Thread != 0 ||
		!strings.Contains(f.Message, "internal/xsync.lockRequired requires test.lock held") {
		t.Fatalf("exploration: %+v, want thread T0's AssertHeld to panic", f)
	}
}

// TestAssertHeldInAModelPassesForTheHolder: no schedule fails when every
// assertion is made under the lock.
func TestAssertHeldInAModelPassesForTheHolder(t *testing.T) {
	var m Mutex
	res, err := explorer.Run(explorer.Config{MaxPreemptions: explorer.Unbounded}, func() {
		m = Mutex{}
		var done Note
		Go(func() {
			m.Lock()
			lockRequired(&m)
			m.Unlock()
			done.Wakeup()
		})
		m.Lock()
		lockRequired(&m)
		m.Unlock()
		done.Sleep()
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure != nil || !res.Complete {
		t.Fatalf("exploration: failure %v, complete %v; want every schedule to pass", res.Failure, res.Complete)
	}
}
