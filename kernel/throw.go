//go:build !vsched_explore

package kernel

import (
	"fmt"
	"os"
	"runtime/debug"
)

// throw stops the program because an invariant of the scheduler is broken,
// as the runtime's throw does: it prints the message, which names the
// invariant, and the stack, and exits with status 2. It does not panic: the
// scheduler may hold its lock or be half-way through a hand-off, and neither
// a task's panic handler nor the unwinding of the task's goroutine may run
// on top of broken state.
func throw(msg string) {
	fmt.Fprintf(os.Stderr, "fatal error: kernel: %s\n\n%s", msg, debug.Stack())
	os.Exit(2)
}
