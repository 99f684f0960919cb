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
	// means 10,000,000 (at 10 to 40 µs an execution, minutes).
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
	// NoReduction turns every reduction off, to measure what they save.
	NoReduction bool
	// SleepSetsOnly turns dynamic partial-order reduction off and keeps
	// sleep sets, to measure what DPOR saves. DPOR runs only in an
	// unbounded search (see The search in the package doc);
	// elsewhere sleep sets are all there is.
	SleepSetsOnly bool
	// Timeouts is how many timed sleeps (xsync.Note.SleepFor) may end by
	// their timeout in one execution while other threads could step; the
	// explorer tries each at every point the bound allows. With any
	// Timeouts > 0, time also passes while every thread is blocked (see
	// Time in the package doc). 0 means that time does not pass at all. A
	// timeout moves the model's clock (xsync.Nanotime) on by the sleep's
	// duration. This is how a model lets the scheduler's monitor run its
	// rounds.
	Timeouts int
	// Memory is the memory model: SC (the zero value), where a load sees
	// the latest store, or RC11, where it may see an older one, as far as
	// the orders the code names allow (see Memory models in the package
	// doc).
	Memory Memory
	// MaxStale bounds, under RC11, the stale choices of an execution: the
	// loads that read a store other than the latest, and the stores put
	// before the latest in their location's modification order. 0 means
	// the default: VSCHED_MAX_STALE if set (0 there means unbounded), else
	// 2 (Empty, for one, reads a tail twice). [Unbounded] lifts the bound.
	MaxStale int
	// Orders, when set, is called under RC11 for every atomic operation
	// with its call site and the order it names, and returns the order the
	// operation runs with: a way to weaken one site without rebuilding the
	// code (see TestOrderMinimality).
	Orders func(site Site, declared Order) Order
}

// Order is a memory order of an atomic operation.
type Order = explorer.Order

// The memory orders, weakest first.
const (
	Relaxed = explorer.Relaxed
	Acquire = explorer.Acquire
	Release = explorer.Release
	AcqRel  = explorer.AcqRel
	SeqCst  = explorer.SeqCst
)

// Site is the call site of an atomic operation and its kind.
type Site = explorer.Site

// Op is the kind of an operation at a scheduling point.
type Op = explorer.Op

// The kinds of the atomic operations.
const (
	OpLoad  = explorer.OpLoad
	OpStore = explorer.OpStore
	OpCas   = explorer.OpCas
	OpRMW   = explorer.OpRMW
)

// Memory is a memory model of the explorer.
type Memory = explorer.Memory

// The memory models.
const (
	SC   = explorer.SC
	RC11 = explorer.RC11
)

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
// report of the first failure; see [Config.Check].
func Check(t testing.TB, model func()) Result {
	t.Helper()
	return Config{}.Check(t, model)
}

// Check explores model under c and logs its coverage ([Summary]). It fails
// t with the report of the first failure, including the command that
// replays it; when the search stopped at the default execution cap, which
// the caller did not ask for, since such a search is not the complete one
// the test stands for; and when the exploration left descriptors or
// goroutines behind (a model releases what an execution opens with
// [Cleanup]). A search stopped by a cap the caller set (MaxExecutions or
// MaxDuration) passes, and its log line says CAPPED.
func (c Config) Check(t testing.TB, model func()) Result {
	t.Helper()
	before := takeCensus()
	res, err := search(c, model)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("explore: %s", Summary(res))
	if f := res.Failure; f != nil {
		t.Fatalf("%s\nto replay: VSCHED_REPLAY='%s' go test -tags vsched_explore -run '%s' <this package>",
			f.Error(), f.Schedule, runPattern(t.Name()))
	}
	if res.DefaultCap {
		t.Fatalf("the search stopped at the default cap of executions before it completed; a test stands for the complete search: " +
			"lower the bound, shrink the model, or set Config.MaxExecutions to accept a capped one")
	}
	if leak := before.leaked(); leak != "" {
		t.Fatalf("the exploration left %s behind: release what an execution opens with explore.Cleanup", leak)
	}
	return res
}

// search is the exploration that Check makes: Run, or what a test of
// Check puts in its place.
var search = Run

// Cleanup registers fn to run once the current execution of the model is
// over, however it ended, after all of its threads have exited: the
// explorer abandons executions at scheduling points (pruned, beyond the
// bound, or failed), so code after that point never runs, and a model
// that opens descriptors or starts goroutines outside the explorer must
// release them here. Cleanups run in the reverse order of registration,
// outside the model (xsync operations are plain there). It panics outside
// a model.
func Cleanup(fn func()) {
	if !explorer.Active() {
		panic("explore: Cleanup outside a model")
	}
	explorer.Cleanup(fn)
}

// runPattern is the -run pattern that selects exactly the named test.
func runPattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Summary describes a result in one line, its coverage first: "complete"
// (every schedule within the bound ran), "CAPPED" (an execution or time
// cap stopped the search first: a prefix of it ran) or "failed", then the
// executions, the pruned ones, the bound and the timeouts allowed.
func Summary(r Result) string {
	bound := "unbounded"
	if r.MaxPreemptions >= 0 {
		bound = fmt.Sprintf("preemption bound %d", r.MaxPreemptions)
	}
	cov := "complete"
	switch {
	case r.Failure != nil:
		cov = "failed"
	case r.Capped != "":
		cov = "CAPPED by the " + r.Capped + " cap"
	}
	s := fmt.Sprintf("%s: %d executions (%d pruned), %s", cov, r.Executions, r.Pruned, bound)
	if r.Reduction != "" {
		s += ", reduction " + r.Reduction
	}
	if r.Memory == RC11 {
		stale := "unbounded"
		if r.MaxStale >= 0 {
			stale = fmt.Sprint(r.MaxStale)
		}
		s += ", RC11 with stale choices " + stale
	}
	switch {
	case r.Timeouts == 1:
		s += ", 1 timeout"
	case r.Timeouts > 1:
		s += fmt.Sprintf(", %d timeouts", r.Timeouts)
	}
	return s
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
