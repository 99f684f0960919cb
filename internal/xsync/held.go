//go:build !race && !vsched_explore

package xsync

// holder is empty in the default build: nothing asks who holds a Mutex.
type holder struct{}

func (*holder) set()   {}
func (*holder) clear() {}

// AssertHeld checks that the calling goroutine holds m, as the runtime's
// assertLockHeld does; lock names m in the message (for example
// "sched.lock"). A function whose contract is "called with the lock held"
// calls it first. In the default build it is empty and inlines to nothing;
// the race build and the explorer build check, and panic with a message
// that names the lock, the function and its caller.
func (m *Mutex) AssertHeld(lock string) {}
