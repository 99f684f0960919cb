//go:build vsched_explore

// Package explorer is the engine behind package explore: a stateless model
// checker that runs a model's threads one at a time and chooses, at every
// operation of internal/xsync, which thread takes the next step.
//
// A step is one thread executing its pending operation (the one it announced
// at its last scheduling point) and then its own code up to its next
// scheduling point, where it announces the next operation. Code between
// scheduling points touches only memory that the thread owns or that the
// atomics it synchronized through have ordered, so a step is atomic under
// sequential consistency, which is what Go's sync/atomic gives.
//
// The search is a depth-first walk over the choices, replayed from the root
// for every execution. It prefers to keep running the current thread; a
// switch away from a thread that could go on is a preemption, and at most
// Config.MaxPreemptions of them happen in an execution. Sleep sets prune
// executions that differ from an explored one only in the order of
// independent steps (different addresses, or two loads).
package explorer

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/vsched/vsched/internal/campaign"
)

// Op is the kind of an operation at a scheduling point.
type Op uint8

// The operations. The memory ones carry the address they touch.
const (
	OpStart    Op = iota // a thread's first step: its code up to its first operation
	OpLoad               // an atomic load
	OpStore              // an atomic store
	OpCas                // a compare-and-swap; treated as a write whether or not it succeeds
	OpRMW                // an atomic add or swap
	OpLock               // Mutex.Lock; enabled while the mutex is free
	OpUnlock             // Mutex.Unlock
	OpSleep              // Note.Sleep; enabled while a wakeup is pending
	OpWakeup             // Note.Wakeup
	OpSpin               // the spin hint: the thread waits for another to make progress
	OpGo                 // starting a thread
	OpJoin               // waiting for a thread to finish; enabled once it has
	OpSleepFor           // Note.SleepFor; enabled while a wakeup is pending or a timeout is left
	OpFence              // FenceSC
)

var opNames = [...]string{"Start", "Load", "Store", "Cas", "RMW", "Lock", "Unlock", "Sleep", "Wakeup", "Spin", "Go", "Join", "SleepFor", "Fence"}

func (o Op) String() string { return opNames[o] }

// MaxThreads bounds the threads of one execution.
const MaxThreads = 16

// Config bounds an exploration. Zero fields take their defaults.
type Config struct {
	// MaxPreemptions bounds the preemptive switches of an execution.
	// 0 means the default: VSCHED_MAX_PREEMPTIONS if set (where 0 means
	// unbounded), else 2. Unbounded (-1) explores every schedule.
	MaxPreemptions int
	// MaxExecutions caps the executions explored, counting the pruned
	// ones; 0 means 10,000,000 (at 10 to 40 µs an execution, minutes).
	MaxExecutions int
	// MaxDuration, when positive, stops the search after this much time,
	// at the end of an execution, as MaxExecutions does: the result then
	// covers a prefix of the depth-first search.
	MaxDuration time.Duration
	// MaxSteps is the livelock budget: a thread that takes more steps in
	// one execution is reported. 0 means 10,000.
	MaxSteps int
	// Replay runs exactly one execution, the one a failure printed. Empty
	// means VSCHED_REPLAY, if set.
	Replay string
	// NoReduction turns every reduction off, to measure what they save.
	NoReduction bool
	// SleepSetsOnly turns dynamic partial-order reduction off and keeps
	// sleep sets, to measure what DPOR saves. DPOR runs only in an
	// unbounded search; elsewhere sleep sets are all there is.
	SleepSetsOnly bool
	// Timeouts is how many timed sleeps (Note.SleepFor) may end by their
	// timeout in one execution while another thread could step; the
	// search tries each at every point the bound allows. 0 means that
	// time does not pass: a timed sleep ends only by a wakeup. With
	// Timeouts > 0, time also passes whenever every thread is blocked and
	// some sleep has a timeout: such timeouts are free, up to
	// quietTimeouts in a row with no other thread stepping, after which
	// the execution is a deadlock. A timeout moves the execution's clock
	// (Now) on by the sleep's duration; time passes in no other way.
	Timeouts int
	// Memory is the memory model: SC (the zero value) or RC11.
	Memory Memory
	// MaxStale bounds, under RC11, the stale choices of an execution: the
	// loads that read a store other than the latest, and the stores put
	// before the latest. 0 means the default: VSCHED_MAX_STALE if set
	// (where 0 means unbounded), else 2. Unbounded (-1) lifts the bound.
	MaxStale int
	// Orders, when set, is called under RC11 for every atomic operation
	// with its call site and the order it names, and returns the order the
	// operation runs with: a way to weaken one site without rebuilding the
	// code, for the search for the weakest orders that suffice.
	Orders func(site Site, declared Order) Order
}

// quietTimeouts bounds the timeouts in a row that end timed sleeps while
// every other thread is blocked: a monitor whose rounds wake nobody in that
// many rounds is taken to wait for a wakeup that will not come, and the
// execution is a deadlock. The kernel's monitor retakes a P in the second
// round that finds the same Block.
const quietTimeouts = 3

// Epoch is the clock of an execution before any timeout: a model's Now
// starts here, far from 0, which code under test may give a meaning.
const Epoch = int64(1) << 40

// Unbounded is the MaxPreemptions value that explores every schedule.
const Unbounded = -1

// defaultBound sets a bound left at 0 to the environment variable env if
// set (0 there means unbounded), else to 2.
func defaultBound(bound *int, env string) error {
	if *bound != 0 {
		return nil
	}
	*bound = 2
	if s := os.Getenv(env); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return fmt.Errorf("explore: %s=%q: want a number >= 0 (0 = unbounded)", env, s)
		}
		*bound = n
		if n == 0 {
			*bound = Unbounded
		}
	}
	return nil
}

func (c Config) withDefaults() (Config, error) {
	if err := defaultBound(&c.MaxPreemptions, "VSCHED_MAX_PREEMPTIONS"); err != nil {
		return c, err
	}
	if c.MaxExecutions <= 0 {
		c.MaxExecutions = 10_000_000
	}
	if err := defaultBound(&c.MaxStale, "VSCHED_MAX_STALE"); err != nil {
		return c, err
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = 10_000
	}
	if c.Replay == "" {
		c.Replay = os.Getenv(campaign.EnvReplay)
	}
	return c, nil
}

// Result is what an exploration found.
type Result struct {
	// Executions counts the executions run to their end.
	Executions int
	// Pruned counts executions abandoned because sleep sets showed them
	// equivalent to explored ones, or because their only continuations
	// needed more preemptions than the bound allows.
	Pruned int
	// Reduction names the reduction the search used: "DPOR", "sleep
	// sets" or "none".
	Reduction string
	// Complete reports that every schedule within the bound was covered,
	// as opposed to stopping at MaxExecutions.
	Complete bool
	// MaxPreemptions is the bound used (Unbounded for none).
	MaxPreemptions int
	// Timeouts is the timeouts allowed per execution (Config.Timeouts).
	Timeouts int
	// Memory is the memory model, and MaxStale its bound on stale
	// choices (under RC11).
	Memory   Memory
	MaxStale int
	// Failure is the first failure found, or nil.
	Failure *Failure
	// Capped says which cap stopped an incomplete search without a
	// failure: "executions" or "time"; empty when the search completed
	// or failed.
	Capped string
	// DefaultCap reports that the cap was the default MaxExecutions,
	// which the caller did not ask for.
	DefaultCap bool
}

// access is a pending operation: what a thread will do at its next step.
type access struct {
	op   Op
	addr unsafe.Pointer
	join *thread // for OpJoin
	dur  int64   // for OpSleepFor: the timeout, in nanoseconds
}

// independent reports whether two steps of different threads commute and
// neither enables nor disables the other, so that only one of their two
// orders needs exploring.
func independent(a, b access) bool {
	switch {
	case a.op == OpSleepFor || b.op == OpSleepFor, a.op == OpFence || b.op == OpFence:
		// A timeout moves the clock, which any step may read, and
		// spends the execution's timeouts, which enables or disables
		// every other timed sleep. A fence joins the view that every
		// fence and sequentially consistent store shares.
		return false
	case a.op == OpStart || a.op == OpGo || a.op == OpSpin || a.op == OpJoin,
		b.op == OpStart || b.op == OpGo || b.op == OpSpin || b.op == OpJoin:
		// They touch no shared state. A join is enabled only once its
		// target is done, and then nothing can disable it.
		return true
	case a.addr != b.addr:
		return true
	default:
		return a.op == OpLoad && b.op == OpLoad
	}
}

// node is one decision of the depth-first search: which thread took the step
// at this depth of the current execution, and what remains to explore here.
type node struct {
	// data marks a choice of the memory model (which store a load reads,
	// where a store goes in the modification order) rather than of a
	// thread: its choices are alternatives 0..n-1, 0 the latest store.
	data     bool
	stale    int    // stale choices made before this node, for a data node
	enabled  uint64 // threads that could step (alternatives, for a data node)
	sleep    uint64 // threads whose step here is known redundant
	explored uint64 // choices whose subtrees are done
	chosen   int
	prev     int  // the thread that took the step before, or -1
	free     bool // switching away from prev costs no preemption
	preempts int  // preemptions used before this decision
	ops      [MaxThreads]access
	// backtrack is, under DPOR, the threads to explore here: the first
	// choice and those the races of the executions below asked for.
	backtrack uint64
	// readOnly says that the step chosen here, in the current
	// execution, only read: a Cas that failed. The race analysis takes
	// it for a load.
	readOnly bool
	// Bound cuts: a sleep set may only hold a choice whose subtree was
	// searched with nothing left out for the preemption bound, because
	// only then does that subtree cover every execution that starts with
	// the choice. cut records a choice skipped here for the bound,
	// cutBelow one skipped anywhere under the current choice, and
	// cutExplored the explored choices under which one was.
	cut, cutBelow bool
	cutExplored   uint64
}

// sameOps reports whether the threads announce the operations they did
// when the node was made. Addresses differ from run to run; kinds do not.
func (n *node) sameOps(threads []*thread) bool {
	for _, t := range threads {
		if n.ops[t.id].op != t.pending.op {
			return false
		}
	}
	return true
}

func (n *node) cost(c int) int {
	if n.data {
		return min(c, 1) // any store but the latest is stale
	}
	if c == n.prev || n.free {
		return 0
	}
	return 1
}

// within reports whether choice c keeps the execution within cfg's bound:
// the preemption bound for a thread, the stale bound for a data choice.
func (n *node) within(c int, cfg *Config) bool {
	if n.data {
		return cfg.MaxStale < 0 || n.stale+n.cost(c) <= cfg.MaxStale
	}
	return cfg.MaxPreemptions < 0 || n.preempts+n.cost(c) <= cfg.MaxPreemptions
}

type thread struct {
	id      int
	wake    chan struct{}
	pending access
	done    bool
	steps   int
	spinAt  int64     // execution step count when the pending spin was announced
	spawned bool      // the last step started a thread: the next switch is free
	goexit  bool      // the thread ended the execution and is leaving
	timeout bool      // its last SleepFor ended by the timeout
	created int       // the decision whose step started the thread, or -1
	mem     threadMem // its view, under the weak memory model
}

// execution is the state of one run of the model.
type execution struct {
	ex          *explorer
	threads     []*thread
	cur         *thread
	depth       int
	steps       int64
	preempt     int
	mutexes     map[unsafe.Pointer]*thread
	notes       map[unsafe.Pointer]int // pending wakeups
	clock       int64                  // Now: Epoch, plus the timeouts' durations, plus a ns per reading
	timeouts    int                    // timeouts taken while another thread could step
	quiescent   bool                   // the current decision was made with every thread blocked but timed sleepers
	quiet       int                    // timeouts taken in a row with every other thread blocked
	quietThread *thread                // the thread that took the last of them
	cleanups    []func()               // Cleanup's, run once the execution is over
	mem         *memory                // the weak memory model's state, or nil under SC
	places      []int                  // weakStore's scratch list of places
	stale       int                    // stale choices made
	stepNode    int                    // the decision of the step being taken
	over        chan struct{}
	outcome     outcome
	failure     *Failure
	abort       atomic.Bool // set by the driver once the execution is over
	exited      sync.WaitGroup
	trace       *[]Event // non-nil when tracing
	names       *names   // short names of addresses and pointer values in the trace
}

type outcome int

const (
	running outcome = iota
	finished
	pruned
	failed
)

type explorer struct {
	cfg    Config
	stack  []node
	replay []int
	dpor   bool // the search uses dynamic partial-order reduction
	// fallback is the operation that made a DPOR search start again
	// with sleep sets (OpStart: none).
	fallback Op
	// The race analysis's scratch space, kept from one execution to the
	// next.
	events []event
	races  []race
	seq    []int
	evNode []int32                // the decision of each step
	nodeEv []int32                // the step of each decision (a memory choice: the next step)
	byAddr map[unsafe.Pointer]int // an address's list in lists
	lists  [][]int32              // the steps on each address, in order
	fences []int32                // the fences
}

var (
	runMu   sync.Mutex // one exploration at a time in a process
	active  atomic.Bool
	current *execution // valid while active; touched only by the running thread
)

// Active reports whether an exploration is running. The xsync explorer
// build checks it on every operation: outside a model its operations are
// plain atomics.
func Active() bool { return active.Load() }

// Run explores model and returns what it found. It fails only on a bad
// configuration; a failure of the model is in Result.Failure.
func Run(cfg Config, model func()) (Result, error) {
	defaultCap := cfg.MaxExecutions <= 0
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Result{}, err
	}
	runMu.Lock()
	defer runMu.Unlock()
	// The model's threads run one at a time and hand over through
	// channels. With more than one P, every hand-over also wakes an idle
	// P, which finds nothing to run and goes back to sleep: CPU time spent
	// in the OS for no step of the search. The search runs on one P and
	// puts GOMAXPROCS back when it returns.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ex := &explorer{cfg: cfg}
	ex.dpor = !cfg.NoReduction && !cfg.SleepSetsOnly && cfg.MaxPreemptions < 0
	res := Result{MaxPreemptions: cfg.MaxPreemptions, Timeouts: cfg.Timeouts, Memory: cfg.Memory, MaxStale: cfg.MaxStale}
	switch {
	case ex.dpor:
		res.Reduction = "DPOR"
	case cfg.NoReduction:
		res.Reduction = "none"
	default:
		res.Reduction = "sleep sets"
	}
	if cfg.Replay != "" {
		if ex.replay, err = parseSchedule(cfg.Replay); err != nil {
			return res, err
		}
		e := ex.run(model, true)
		res.Executions = 1
		res.Complete = true
		switch {
		case e.outcome == failed && e.failure.Kind == "replay":
			return res, fmt.Errorf("explore: VSCHED_REPLAY=%s: %s", cfg.Replay, e.failure.Message)
		case e.depth < len(ex.replay):
			return res, fmt.Errorf("explore: VSCHED_REPLAY=%s: the execution ended after %d of the schedule's %d decisions", cfg.Replay, e.depth, len(ex.replay))
		case e.outcome == failed:
			res.Failure = e.failure
			res.Failure.Schedule = cfg.Replay
			res.Failure.Preemptions = e.preempt
		}
		return res, nil
	}
	start := time.Now()
	for {
		e := ex.run(model, false)
		if ex.fallback != OpStart && ex.dpor {
			ex.dpor, ex.stack = false, nil
			res.Executions, res.Pruned = 0, 0
			res.Reduction = "sleep sets (DPOR does not model the " + ex.fallback.String() + " the model reached)"
			continue
		}
		switch e.outcome {
		case failed:
			res.Executions++
			res.Failure = ex.explain(model, e)
			return res, nil
		case pruned:
			res.Pruned++
		default:
			res.Executions++
		}
		if ex.dpor {
			ex.analyse(e)
		}
		if !ex.backtrack() {
			res.Complete = true
			return res, nil
		}
		switch {
		case res.Executions+res.Pruned >= cfg.MaxExecutions:
			res.Capped, res.DefaultCap = "executions", defaultCap
			return res, nil
		case cfg.MaxDuration > 0 && time.Since(start) >= cfg.MaxDuration:
			res.Capped = "time"
			return res, nil
		}
	}
}

// explain replays a failed execution with tracing on, for the report.
func (ex *explorer) explain(model func(), e *execution) *Failure {
	f := e.failure
	sched := make([]int, e.depth)
	for i := range sched {
		sched[i] = ex.stack[i].decision()
	}
	f.Schedule = formatSchedule(sched)
	f.Preemptions = e.preempt
	rx := &explorer{cfg: ex.cfg, replay: sched}
	re := rx.run(model, true)
	if re.outcome != failed || re.failure.Kind != f.Kind {
		f.Message += "\n(the traced replay of this schedule did not fail the same way: the model is not deterministic)"
		return f
	}
	f.Trace = re.failure.Trace
	return f
}

// run runs the model once, following the stack where it reaches and
// extending it with default choices beyond.
func (ex *explorer) run(model func(), tracing bool) *execution {
	e := &execution{
		ex:      ex,
		mutexes: map[unsafe.Pointer]*thread{},
		notes:   map[unsafe.Pointer]int{},
		clock:   Epoch,
		over:    make(chan struct{}),
	}
	if ex.cfg.Memory == RC11 {
		e.mem = &memory{locs: map[unsafe.Pointer]*location{}, sync: map[unsafe.Pointer]*vclock{}}
	}
	if tracing {
		e.trace = new([]Event)
		e.names = &names{}
	}
	current = e
	active.Store(true)
	e.spawn(model)
	if next := e.dispatch(nil); next != nil {
		next.wake <- struct{}{}
	}
	<-e.over
	// Every thread but the one that ended the execution waits on its wake
	// channel: wake them to leave.
	e.abort.Store(true)
	for _, t := range e.threads {
		select {
		case t.wake <- struct{}{}:
		default:
		}
	}
	e.exited.Wait()
	active.Store(false)
	current = nil
	// What the execution opened is released now, however it ended: a
	// thread cut short at a scheduling point never reaches the model's
	// own clean-up, and every execution must start from the same state.
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
	if e.failure != nil && e.trace != nil {
		e.failure.Trace = *e.trace
	}
	return e
}

// spawn creates a thread that will run fn from its first step.
func (e *execution) spawn(fn func()) *thread {
	if len(e.threads) == MaxThreads {
		panic(fmt.Sprintf("explore: a model may start at most %d threads", MaxThreads))
	}
	t := &thread{id: len(e.threads), wake: make(chan struct{}, 1), pending: access{op: OpStart}, created: e.depth - 1}
	if parent := e.cur; parent != nil && e.weak() {
		t.mem.vc = parent.mem.vc // everything before the Go happens before the thread
		parent.tick()
	}
	e.threads = append(e.threads, t)
	e.exited.Add(1)
	go e.body(t, fn)
	return t
}

// body runs a thread. Only the running thread touches the execution's
// state; a thread hands the processor on and then only waits.
func (e *execution) body(t *thread, fn func()) {
	defer e.exited.Done()
	normal := false
	defer func() {
		if t.goexit || e.abort.Load() {
			return // runtime.Goexit: the execution is over
		}
		if !normal {
			r := recover()
			msg := fmt.Sprintf("thread T%d panicked: %v", t.id, r)
			if r == nil {
				msg = fmt.Sprintf("thread T%d called runtime.Goexit (t.Fatal, t.FailNow or t.Skip inside a model? report failures with a panic or explore.Assertf)", t.id)
			}
			e.fail(&Failure{Kind: "panic", Thread: t.id, Message: msg, Stack: string(debug.Stack())})
			return
		}
		t.done = true
		if next := e.dispatch(t); next != nil {
			next.wake <- struct{}{}
		}
	}()
	<-t.wake
	if e.abort.Load() {
		runtime.Goexit()
	}
	e.record(t, 0)
	fn()
	normal = true
}

// point is a scheduling point: the running thread announces a and returns
// once it may execute it. skip is the number of stack frames between the
// caller of Point and the code the trace should show.
func (e *execution) point(a access, skip int) *Event {
	// A deferred call of a thread that is leaving: either the driver has
	// ended the execution, or this thread ended it (only that thread runs
	// then, so reading outcome is safe).
	if e.abort.Load() || e.outcome != running {
		runtime.Goexit()
	}
	t := e.cur
	t.pending = a
	if e.ex.dpor && (a.op == OpSpin || a.op == OpSleepFor && e.ex.cfg.Timeouts > 0) {
		// DPOR does not model a spin's hold-back or a timeout's
		// quiescence (see dpor.go): the search starts again with sleep
		// sets.
		e.ex.fallback = a.op
		e.end(pruned)
		t.goexit = true
		runtime.Goexit()
	}
	if a.op == OpSpin {
		t.spinAt = e.steps
	}
	switch next := e.dispatch(t); next {
	case t:
	case nil:
		t.goexit = true
		runtime.Goexit()
	default:
		next.wake <- struct{}{}
		<-t.wake
		if e.abort.Load() {
			runtime.Goexit()
		}
	}
	return e.record(t, skip+3)
}

// record accounts for the step t is about to take and applies the
// operation's effect on the explorer's own state (mutexes, notes).
func (e *execution) record(t *thread, skip int) *Event {
	if t != e.quietThread {
		e.quiet = 0 // another thread moved on: time need not pass for it
	}
	e.steps++
	t.steps++
	t.spawned = t.pending.op == OpGo
	if t.steps > e.ex.cfg.MaxSteps {
		e.fail(&Failure{Kind: "livelock", Thread: t.id,
			Message: fmt.Sprintf("thread T%d took more than %d steps in one execution without finishing (a spin loop whose condition never changes?)", t.id, e.ex.cfg.MaxSteps)})
		t.goexit = true
		runtime.Goexit()
	}
	a := t.pending
	switch a.op {
	case OpLock:
		e.mutexes[a.addr] = t
	case OpUnlock:
		if e.mutexes[a.addr] != t {
			panic("xsync: Mutex.Unlock of a mutex this thread does not hold")
		}
		delete(e.mutexes, a.addr)
	case OpSleep:
		e.notes[a.addr]--
	case OpSleepFor:
		t.timeout = e.notes[a.addr] == 0
		switch {
		case !t.timeout:
			e.notes[a.addr]--
		case e.quiescent:
			e.quiet++
			e.quietThread = t
		default:
			e.timeouts++
		}
		if t.timeout {
			e.clock += a.dur
		}
	case OpWakeup:
		if e.notes[a.addr] > 0 {
			panic("xsync: Note.Wakeup: a wakeup is already pending (one-shot note woken twice)")
		}
		e.notes[a.addr]++
	}
	if e.weak() {
		e.synchronize(t, a)
	}
	if e.trace == nil {
		return nil
	}
	ev := Event{Step: len(*e.trace) + 1, Thread: t.id, Op: a.op, Addr: a.addr, Preempted: -1, names: e.names}
	if skip > 0 {
		if _, file, line, ok := runtime.Caller(skip); ok {
			ev.File, ev.Line = file, line
		}
	}
	*e.trace = append(*e.trace, ev)
	return &(*e.trace)[len(*e.trace)-1]
}

// synchronize gives, under the weak model, the happens-before edges that
// the explorer's own primitives promise: a Lock acquires from the last
// Unlock, a Sleep (or a SleepFor that a wakeup ended) from the Wakeups, a
// Join from the joined thread's end; Go is handled when the thread is made.
func (e *execution) synchronize(t *thread, a access) {
	switch a.op {
	case OpUnlock, OpWakeup:
		e.release(t, a.addr)
	case OpLock, OpSleep:
		e.acquire(t, a.addr)
	case OpSleepFor:
		if !t.timeout {
			e.acquire(t, a.addr)
		}
	case OpJoin:
		t.mem.vc.join(&a.join.mem.vc)
	}
}

// fail ends the execution with a failure. The caller must not touch the
// execution afterwards.
func (e *execution) fail(f *Failure) {
	if e.outcome != running {
		return
	}
	e.failure = f
	e.end(failed)
}

func (e *execution) end(o outcome) {
	e.outcome = o
	close(e.over)
}

func (e *execution) enabled(t *thread) bool {
	if t.done {
		return false
	}
	switch a := t.pending; a.op {
	case OpLock:
		return e.mutexes[a.addr] == nil
	case OpSleep:
		return e.notes[a.addr] > 0
	case OpSleepFor:
		return e.notes[a.addr] > 0 || e.timeouts < e.ex.cfg.Timeouts
	case OpJoin:
		return a.join.done
	}
	return true
}

// dispatch makes the decision after prev's announcement (prev is nil for the
// first step) and returns the thread to take the next step, or nil when the
// execution is over. The caller wakes that thread unless it is prev.
func (e *execution) dispatch(prev *thread) *thread {
	var enabled, spinning, timing uint64
	live := false
	for _, t := range e.threads {
		if t.done {
			continue
		}
		live = true
		if t.pending.op == OpSleepFor && e.notes[t.pending.addr] == 0 {
			timing |= 1 << t.id // can end only by its timeout
		}
		if e.enabled(t) {
			enabled |= 1 << t.id
			if t.pending.op == OpSpin && t.spinAt == e.steps {
				spinning |= 1 << t.id
			}
		}
	}
	if !live {
		e.end(finished)
		return nil
	}
	// Time passes when nothing else can happen: when no live thread can
	// step but the timed sleeps that only a timeout can end, those end by
	// their timeouts without spending the budget, up to quietTimeouts in a
	// row in which no other thread steps.
	e.quiescent = false
	if enabled&^timing == 0 && timing != 0 && e.ex.cfg.Timeouts > 0 {
		enabled = 0
		if e.quiet < quietTimeouts {
			enabled = timing
			e.quiescent = true
		}
	}
	if enabled == 0 {
		e.fail(e.deadlock())
		return nil
	}
	// A thread that has just said it waits for others does not run
	// again before one of them has taken a step, unless none can.
	if enabled&^spinning != 0 {
		enabled &^= spinning
	}
	prevID := -1
	free := true
	if prev != nil {
		prevID = prev.id
		free = enabled&(1<<prev.id) == 0 || prev.spawned
	}
	ex := e.ex
	d := e.depth
	e.depth++
	var n *node
	switch {
	case ex.replay != nil:
		if d >= len(ex.replay) || ex.replay[d] < 0 || enabled&(1<<ex.replay[d]) == 0 {
			e.fail(&Failure{Kind: "replay", Thread: -1,
				Message: fmt.Sprintf("the replayed schedule does not fit this model at decision %d (threads able to step: %s)", d, maskString(enabled))})
			return nil
		}
		next := e.threads[ex.replay[d]]
		if prev != nil && next != prev && !free {
			e.preempt++
		}
		return e.hand(prev, next, free)
	case d < len(ex.stack):
		n = &ex.stack[d]
		if n.data || n.enabled != enabled || n.prev != prevID || !n.sameOps(e.threads) {
			e.fail(&Failure{Kind: "nondeterminism", Thread: -1,
				Message: fmt.Sprintf("replaying decision %d found threads %s able to step after T%d, where the first run found %s after T%d: the model is not deterministic (maps, time, randomness, or goroutines outside the explorer?)",
					d, maskString(enabled), prevID, maskString(n.enabled), n.prev)})
			return nil
		}
		// The same operations, at this execution's addresses, which the
		// race analysis compares with one another.
		for _, t := range e.threads {
			n.ops[t.id] = t.pending
		}
		n.readOnly = false
	default:
		// Grown in place: a node is large, and a composite literal
		// would go through the stack of the thread that runs this.
		if d < cap(ex.stack) {
			ex.stack = ex.stack[:d+1]
			ex.stack[d] = node{}
		} else {
			ex.stack = append(ex.stack, node{})
		}
		n = &ex.stack[d]
		n.enabled, n.prev, n.free, n.preempts = enabled, prevID, free, e.preempt
		for _, t := range e.threads {
			n.ops[t.id] = t.pending
		}
		// Where a thread is held back after its Spin, steps do not
		// commute: the order decides whether the spinner may run, so no
		// sleep set is inherited.
		if p := ex.lastThreadNode(d); p != nil && !ex.cfg.NoReduction && spinning == 0 {
			pa := p.ops[p.chosen]
			for s := (p.sleep | p.explored&^p.cutExplored) &^ (1 << p.chosen); s != 0; s &= s - 1 {
				i := lowest(s)
				if independent(p.ops[i], pa) {
					n.sleep |= 1 << i
				}
			}
		}
		c := n.pick(&ex.cfg)
		if c < 0 {
			if n.cut && d > 0 {
				ex.stack[d-1].cutBelow = true
			}
			ex.stack = ex.stack[:d]
			e.end(pruned)
			return nil
		}
		n.chosen = c
		n.backtrack = 1 << c
	}
	e.preempt += n.cost(n.chosen)
	e.stepNode = d
	return e.hand(prev, e.threads[n.chosen], free)
}

// pick returns the first choice to explore at a new node: the previous
// thread if it can go on, else the lowest thread within the bound, or -1.
func (n *node) pick(cfg *Config) int {
	cands := n.enabled &^ n.sleep
	if n.prev >= 0 && cands&(1<<n.prev) != 0 {
		return n.prev
	}
	for ; cands != 0; cands &= cands - 1 {
		c := lowest(cands)
		if n.within(c, cfg) {
			return c
		}
		n.cut = true
	}
	return -1
}

// decision is the node's choice as a schedule string holds it: a thread
// number, or -1-k for alternative k of a data choice.
func (n *node) decision() int {
	if n.data {
		return -1 - n.chosen
	}
	return n.chosen
}

// lastThreadNode returns the latest thread decision before depth d, whose
// sleep set the decision at d inherits, or nil.
func (ex *explorer) lastThreadNode(d int) *node {
	for i := d - 1; i >= 0; i-- {
		if !ex.stack[i].data {
			return &ex.stack[i]
		}
	}
	return nil
}

// choose is a choice of the memory model among n alternatives, made by the
// running thread in the middle of its step: 0, the latest store, first;
// each other one spends a stale choice. It returns the alternative.
func (e *execution) choose(n int) int {
	if n <= 1 {
		return 0
	}
	ex := e.ex
	d := e.depth
	e.depth++
	var nd *node
	switch {
	case ex.replay != nil:
		alt := -1
		if d < len(ex.replay) && ex.replay[d] < 0 {
			alt = -ex.replay[d] - 1
		}
		if alt < 0 || alt >= n {
			e.fail(&Failure{Kind: "replay", Thread: e.cur.id,
				Message: fmt.Sprintf("the replayed schedule does not fit this model at decision %d (a choice among %d stores)", d, n)})
			e.cur.goexit = true
			runtime.Goexit()
		}
		e.stale += min(alt, 1)
		return alt
	case d < len(ex.stack):
		nd = &ex.stack[d]
		if !nd.data || nd.enabled != 1<<n-1 {
			e.fail(&Failure{Kind: "nondeterminism", Thread: e.cur.id,
				Message: fmt.Sprintf("replaying decision %d found a choice among %d stores where the first run found another decision: the model is not deterministic", d, n)})
			e.cur.goexit = true
			runtime.Goexit()
		}
	default:
		ex.stack = append(ex.stack, node{data: true, enabled: 1<<n - 1, stale: e.stale, prev: -1})
		nd = &ex.stack[d]
		nd.chosen = 0
	}
	e.stale += nd.cost(nd.chosen)
	return nd.chosen
}

// hand makes next the running thread.
func (e *execution) hand(prev, next *thread, free bool) *thread {
	if e.trace != nil && prev != nil && next != prev && !free && len(*e.trace) > 0 {
		(*e.trace)[len(*e.trace)-1].Preempted = next.id
	}
	e.cur = next
	return next
}

// backtrack moves the search to the next unexplored choice, deepest first.
func (ex *explorer) backtrack() bool {
	for len(ex.stack) > 0 {
		n := &ex.stack[len(ex.stack)-1]
		n.explored |= 1 << n.chosen
		if ex.dpor && !n.data {
			// Only the threads a race asked for are explored; one that
			// cannot step here, or sleeps, is passed over.
			if cands := n.backtrack & n.enabled &^ n.sleep &^ n.explored; cands != 0 {
				n.chosen = lowest(cands)
				return true
			}
			ex.stack = ex.stack[:len(ex.stack)-1]
			continue
		}
		if n.cutBelow {
			n.cutExplored |= 1 << n.chosen
			n.cutBelow = false
		}
		for cands := n.enabled &^ n.sleep &^ n.explored; cands != 0; cands &= cands - 1 {
			c := lowest(cands)
			if n.within(c, &ex.cfg) {
				n.chosen = c
				return true
			}
			n.cut = true
		}
		cut := n.cut || n.cutExplored != 0
		ex.stack = ex.stack[:len(ex.stack)-1]
		if cut && len(ex.stack) > 0 {
			ex.stack[len(ex.stack)-1].cutBelow = true
		}
	}
	return false
}

func (e *execution) deadlock() *Failure {
	msg := "every live thread is blocked:"
	for _, t := range e.threads {
		if t.done {
			continue
		}
		switch a := t.pending; a.op {
		case OpLock:
			msg += fmt.Sprintf("\n  T%d waits in Mutex.Lock for %p, held by T%d", t.id, a.addr, e.mutexes[a.addr].id)
		case OpSleep:
			msg += fmt.Sprintf("\n  T%d sleeps on note %p and no wakeup is pending (a lost wakeup?)", t.id, a.addr)
		case OpSleepFor:
			if e.ex.cfg.Timeouts == 0 {
				msg += fmt.Sprintf("\n  T%d sleeps on note %p with a timeout, which never comes (time does not pass: Config.Timeouts is 0), and no wakeup is pending", t.id, a.addr)
			} else {
				msg += fmt.Sprintf("\n  T%d sleeps on note %p with a timeout, no wakeup is pending, and %d timeouts in a row woke nobody", t.id, a.addr, e.quiet)
			}
		case OpJoin:
			msg += fmt.Sprintf("\n  T%d waits for T%d to finish", t.id, a.join.id)
		}
	}
	return &Failure{Kind: "deadlock", Thread: -1, Message: msg}
}

func lowest(m uint64) int {
	for i := range 64 {
		if m&(1<<i) != 0 {
			return i
		}
	}
	return -1
}

func maskString(m uint64) string {
	s := "{"
	for ; m != 0; m &= m - 1 {
		if len(s) > 1 {
			s += " "
		}
		s += "T" + strconv.Itoa(lowest(m))
	}
	return s + "}"
}
