//go:build vsched_explore

package explore

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/internal/explorer"
)

// Config bounds an exploration. The zero Config is the default.
type Config struct {
	// MaxPreemptions bounds the preemptive switches of an execution. 0
	// means the default: VSCHED_MAX_PREEMPTIONS if set (0 there means
	// unbounded), else 2. [Unbounded] explores every schedule. A bound of
	// 0 cannot be asked for; 1 is the smallest.
	MaxPreemptions int
	// MaxExecutions caps the executions, counting the pruned ones; 0
	// means 1,000,000.
	MaxExecutions int
	// MaxDuration, when positive, stops the search after this much time,
	// as MaxExecutions does; Summary then says it stopped at the cap.
	MaxDuration time.Duration
	// MaxSteps is the livelock budget of a thread in one execution; 0
	// means 10,000.
	MaxSteps int
	// Replay runs the one execution a failure printed. Empty means
	// VSCHED_REPLAY, if set.
	Replay string
	// NoReduction turns sleep sets off, to measure what they save.
	NoReduction bool
}

// Unbounded is the [Config.MaxPreemptions] that explores every schedule.
const Unbounded = explorer.Unbounded

// Result is what an exploration found.
type Result = explorer.Result

// Failure is a failed execution: its kind, message, replay schedule and
// trace. Its Error method formats all of it.
type Failure = explorer.Failure

// Event is one step of a failure's trace.
type Event = explorer.Event

// Run explores model under cfg. The error reports a bad configuration or a
// replay schedule that does not fit the model; failures of the model are in
// [Result].Failure.
func Run(cfg Config, model func()) (Result, error) {
	return explorer.Run(explorer.Config(cfg), model)
}

// Check explores model with the default [Config] and fails t with the
// report of the first failure.
func Check(t testing.TB, model func()) Result {
	t.Helper()
	return Config{}.Check(t, model)
}

// Check explores model under c, logs how many executions it explored, and
// fails t with the report of the first failure, including the command that
// replays it.
func (c Config) Check(t testing.TB, model func()) Result {
	t.Helper()
	res, err := Run(c, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("explored %s", Summary(res))
	if f := res.Failure; f != nil {
		t.Fatalf("%s\nto replay: VSCHED_REPLAY='%s' go test -tags vsched_explore -run '%s' <this package>",
			f.Error(), f.Schedule, runPattern(t.Name()))
	}
	return res
}

// runPattern is the -run pattern that selects exactly the named test.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Summary describes a result in one line: the executions, the pruned ones,
// the bound, and whether the search was complete.
func Summary(r Result) string {
	bound := "unbounded"
	if r.MaxPreemptions >= 0 {
		bound = fmt.Sprintf("preemption bound %d", r.MaxPreemptions)
	}
	end := "complete"
	switch {
	case r.Failure != nil:
		end = "stopped at the first failure"
	case !r.Complete:
		end = "stopped at the execution or time cap"
	}
	return fmt.Sprintf("%d executions (%d pruned by sleep sets or the bound), %s, %s", r.Executions, r.Pruned, bound, end)
}

// Thread is a thread of a model.
type Thread struct{ t *explorer.Thread }

// Go starts fn as a new thread of the running model. Code under test starts
// its goroutines with xsync.Go, which does the same in the explorer build.
// It panics outside a model.
func Go(fn func()) *Thread {
	if !explorer.Active() {
		panic("explore: Go outside a model")
	}
	return &Thread{explorer.Go(fn, 1)}
}

// Join waits until the thread has finished. It is a scheduling point.
func (t *Thread) Join() { t.t.Join(1) }

// ID is the thread's number in traces: T0 runs the model function, and the
// others count up in the order they were started.
func (t *Thread) ID() int { return t.t.ID() }

// Assertf panics with the formatted message unless cond holds; the explorer
// reports the panic with the schedule that led to it.
func Assertf(cond bool, format string, args ...any) {
	if !cond {
		panic("assertion failed: " + fmt.Sprintf(format, args...))
	}
}
