package steal

import "time"

// Tries is the number of passes a thief makes over the other Ps before it
// gives up (the runtime's stealTries); runnext is taken only on the last.
const Tries = 4

// RunNextPause is how long the runtime's thief waits before it takes a
// running victim's runnext (usleep(3) in runqgrab).
const RunNextPause = 3 * time.Microsecond

// A Pause is what a thief does after it has seen an empty ring and a full
// runnext and before it takes that runnext: it gives the victim's owner,
// which is about to run its runnext itself, the chance to do so, so that two
// tasks handing off to each other stay on one P. It is the back-off of the
// runtime's runqgrab.
//
// Go gives user code no 3 µs sleep: time.Sleep(3*time.Microsecond) sleeps
// for 50 µs to over a millisecond. So the pause is a strategy, and the
// scheduler takes one as an option.
type Pause func()

// SpinPause busy-waits for d, reading the monotonic clock. It is the
// closest user-space stand-in for the runtime's usleep(3) in duration, at
// the cost of a core for d.
func SpinPause(d time.Duration) Pause {
	return func() {
		for start := time.Now(); time.Since(start) < d; {
		}
	}
}
