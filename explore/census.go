//go:build vsched_explore

package explore

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// goroutineGrace bounds the wait for exiting goroutines; only a leak
// waits for all of it.
const goroutineGrace = 10 * time.Second

// census counts what a process holds that an exploration could leak.
type census struct {
	fds        int // open descriptors, or -1 where they cannot be listed
	goroutines int
}

func takeCensus() census {
	runtimePoller.Do(func() { time.AfterFunc(time.Hour, func() {}).Stop() })
	return census{fds: openFDs(), goroutines: runtime.NumGoroutine()}
}

// runtimePoller has the Go runtime open its poller (on Linux an epoll and
// an eventfd), which it does with the first timer, before the first
// census: otherwise a test binary run without -test.timeout (go test
// -timeout 0, or the binary itself) counts them as the first
// exploration's leak when it starts a timer.
var runtimePoller sync.Once

// openFDs counts the process's open descriptors, or returns -1 where
// /proc/self/fd does not list them.
func openFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents) - 1 // the directory's own descriptor
}

// leaked describes what the process holds now beyond c, or returns "".
// The explorer's threads have signalled their exit when Run returns but
// may still be on their way out, on a thread that a busy machine has not
// run yet, so the goroutine count gets up to goroutineGrace to come down.
func (c census) leaked() string {
	var out []string
	if c.fds >= 0 {
		if n := openFDs(); n > c.fds {
			out = append(out, fmt.Sprintf("%d open descriptors (%d before, %d after)", n-c.fds, c.fds, n))
		}
	}
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(goroutineGrace); n > c.goroutines && time.Now().Before(deadline); {
		runtime.Gosched()
		n = runtime.NumGoroutine()
	}
	if n > c.goroutines {
		out = append(out, fmt.Sprintf("%d goroutines (%d before, %d after)", n-c.goroutines, c.goroutines, n))
	}
	return strings.Join(out, " and ")
}
