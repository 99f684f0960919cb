//go:build race || vsched_explore

package kernel

import (
	"strings"
	"testing"
)

// TestFunctionsCalledWithTheLockPanicWithoutIt: in the race and explorer
// builds a function whose contract is "called with the lock held" checks
// it first (xsync.Mutex.AssertHeld) and, called without the lock, panics
// naming the lock and itself before it touches any state. With the lock it
// runs.
func TestFunctionsCalledWithTheLockPanicWithoutIt(t *testing.T) {
	k, err := New(WithProcs(1))
	if err != nil {
		t.Fatal(err)
	}
	// A call that did not panic has changed the kernel's state without
	// the lock (a P off the idle list, an M counted that never starts),
	// and Close would wait for that M: close only a kernel left intact.
	t.Cleanup(func() {
		if !t.Failed() {
			k.Close()
		}
	})
	for name, f := range map[string]func(){
		"pidleget":           func() { k.pidleget() },
		"pidlegetSpinning":   func() { k.pidlegetSpinning() },
		"gfgetLocked":        func() { k.gfgetLocked() },
		"checkDrainedLocked": func() { k.checkDrainedLocked() },
		"maybeExitedLocked":  func() { k.maybeExitedLocked() },
		"newmLocked":         func() { k.newmLocked() },
	} {
		want := "xsync: kernel.(*Kernel)." + name + " requires sched.lock held"
		if msg := panicMessage(f); !strings.Contains(msg, want) {
			t.Errorf("%s without the lock: %q, want a panic containing %q", name, msg, want)
		}
	}
	k.lock.Lock()
	msg := panicMessage(func() { k.gfgetLocked() })
	k.lock.Unlock()
	if msg != "no panic" {
		t.Errorf("gfgetLocked with the lock held panicked: %s", msg)
	}
}
