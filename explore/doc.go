// Package explore checks concurrent code by running it under every schedule
// of its synchronizing steps, up to a bound: a model checker for Go in the
// spirit of tokio's loom, over the real code of vsched.
//
// It works only in the explorer build (go test -tags vsched_explore). There,
// every operation of vsched's internal/xsync (the atomics, the mutex, the
// park note, the spin hint and starting a goroutine) is a scheduling point:
// the explorer runs one thread at a time and chooses, at each point, which
// thread takes the next step. runq.Size is 4 in that build, so that overflow
// and wraparound take a few steps. The default build is untouched.
//
// A test hands [Check] a model: a function that sets up state, starts
// threads with [Go], joins them and asserts what must hold at the end. The
// explorer runs the model again and again, depth-first over the choices,
// until every schedule within the preemption bound has run. Inside this
// module a model may use internal/xsync directly, as here; from outside, it
// drives vsched's public packages (runq, and the kernel once it exists),
// whose synchronization goes through xsync:
//
//	func TestCounter(t *testing.T) {
//		explore.Check(t, func() {
//			var n xsync.Int32
//			th := explore.Go(func() { n.Add(1) })
//			n.Add(1)
//			th.Join()
//			explore.Assertf(n.Load() == 2, "count %d", n.Load())
//		})
//	}
//
// # What it finds
//
//   - a failed assertion or a panic in any thread;
//   - a deadlock: every thread that has not finished is blocked in
//     Mutex.Lock, in Note.Sleep with no wakeup pending, or in Join. A lost
//     wakeup shows up this way;
//   - a livelock: a thread that takes more than Config.MaxSteps steps in one
//     execution. Spin loops must call xsync.Spin, which means "wait for
//     another thread to make progress": the spinning thread does not run
//     again before another thread has taken a step, unless none can. That
//     is right for a retry loop, whose next pass would only repeat its
//     reads; a thread that gives up after a few spins is never explored
//     giving up before someone else moved;
//   - a model that is not deterministic (it reads the clock, iterates a map,
//     or talks to goroutines the explorer does not control): replaying a
//     prefix of choices leads somewhere else.
//
// Each failure comes with a schedule string; VSCHED_REPLAY=<string> re-runs
// exactly that execution (use -run to select the test), and the report
// traces every step: the thread, the operation, the address it touched, the
// values it read and wrote, and the source line.
//
// # The search
//
// A step is a thread executing the operation it announced and then its own
// code up to its next scheduling point. The explorer keeps running the
// current thread while it can; switching away from a thread that could go on
// is a preemption. Switching is free when the thread blocks, finishes, spins,
// or has just started a thread. At most Config.MaxPreemptions preemptions
// happen per execution (default 2; VSCHED_MAX_PREEMPTIONS overrides it and 0
// there means unbounded), which finds most bugs at a small fraction of the
// cost of every interleaving (the experience of CHESS and loom).
//
// One exploration runs at a time in a process, and it runs with GOMAXPROCS
// at 1, which it puts back when it returns: its threads take turns, and a
// second P would only be woken at every turn to find nothing to run. Code
// of the same process that runs beside a search (a parallel test) shares
// that one P meanwhile, and code that sizes itself by GOMAXPROCS then (a
// kernel.New without WithProcs) sees 1; one that sets GOMAXPROCS itself
// during a search may have its value undone when the search returns.
// Setting GOMAXPROCS stops the runtime's automatic updates of it for the
// rest of the process.
//
// Two reductions skip executions that differ from an explored one only in
// the order of independent steps (different addresses, or two loads), and
// both are checked against the search without reduction
// (Config.NoReduction) on random programs and on fixed counterexamples,
// with seeded bugs of each that the fixed counterexamples must report:
//
//   - Sleep sets, under a preemption bound. A
//     choice enters a sleep set only if nothing was cut from its subtree for
//     the bound, so the reduced and the full search reach the same outcomes
//     at every bound.
//   - Dynamic partial-order reduction (DPOR) in an unbounded search, under
//     [SC] and [RC11]: source sets with sleep sets (Abdulla et al., POPL
//     2014). After
//     each execution the explorer finds the races (dependent steps of two
//     threads that nothing else orders) and schedules, at the decision
//     before the first step, a thread that starts the reversed order, so
//     it explores about one execution per class of equivalent
//     interleavings instead of every interleaving. tokio's loom_queue basic
//     test, ported in this package, takes about 1.5 million executions
//     this way where the unreduced search does not finish. Executions that
//     end with every thread asleep are counted in Result.Pruned (the
//     optimal variant's wakeup trees would avoid them; their weak initials
//     lose an outcome here and are kept only as a seeded bug). Under RC11
//     the stale reads stay choices of the search within each step.
//
// DPOR is not combined with a preemption bound, because a race's reversal
// may need more preemptions than the bound allows, and the naive
// combination loses executions within it (Coons et al., OOPSLA 2013): a
// bounded search keeps sleep sets. Nor does it run through a spin or a
// timed sleep that may end by its timeout: whether such a step may run
// depends on
// what every other thread is doing, which no pair of steps shows. A search
// that meets one starts again with sleep sets, and Result.Reduction (and
// [Summary]) says which reduction ran. Config.SleepSetsOnly turns DPOR
// off, to measure what it saves.
//
// # Coverage
//
// Every result says whether the search was complete (every schedule within
// its bounds ran) or capped (Config.MaxExecutions or MaxDuration stopped
// it first, and only a prefix of the depth-first search ran): [Summary]
// leads with "complete" or "CAPPED". [Config.Check] fails a test whose
// search stopped at the default cap, which it did not ask for, so that a
// test stands for the complete search unless it says otherwise, and fails
// one whose exploration left descriptors or goroutines behind. A model
// that opens things outside the explorer (a socket, a poller) releases
// them with [Cleanup], which runs after every execution however it ended.
//
// # Time
//
// The clock (xsync.Nanotime) of a model starts at a fixed point and moves
// only by timeouts, plus a nanosecond per reading so that no two readings
// are equal. With Config.Timeouts = 0, time does not pass: a timed sleep
// (xsync.Note.SleepFor) ends only by a wakeup, and a thread that waits for
// a timeout shows as a deadlock. With Timeouts = n, up to n timed sleeps
// per execution may end by their timeout while other threads could step,
// tried at every point the bound allows; and whenever every thread is
// blocked and some sleep has a timeout, time passes for free, up to three
// timeouts in a row that wake nobody, after which the execution is a
// deadlock. That is how the kernel's models let the monitor run its
// rounds: a round that retakes a P wakes an M, and one that finds nothing
// to do three times running is a monitor waiting for work that never
// comes.
//
// Deadlines live on the same clock. In a model, xsync.Now reads it as a
// time and xsync.Until measures against it, so a model sets a deadline
// with d.SetReadDeadline(xsync.Now().Add(time.Hour)); netpoll's blocking
// poll sleeps with a timeout until the next deadline, and when the
// explorer ends that sleep by its timeout the clock has reached the
// deadline and the poll fires its timer. The netpoll clock models
// (netpoll/clock_explore_test.go) run a deadline's timer this way against
// a wait, readiness, Close and a moved deadline, at every point.
//
// # Memory models
//
// [Config.Memory] chooses how loads see stores. Under [SC], the zero value,
// every xsync operation is sequentially consistent and a load sees the
// latest store: exact for the default build, whose atomics are
// sync/atomic's (except StoreRelaxed, a plain store there). Under [RC11], the repaired C/C++ model (Lahav et al.,
// PLDI 2017), each operation runs with exactly the order its xsync name
// says (LoadAcq an acquire, StoreRelaxed relaxed, FenceSC a fence), and a
// load may read an older store of its location when coherence and
// happens-before allow it: which store it reads is a choice of the search,
// like which thread runs, and a failure's trace marks a load that read a
// stale store and says how many newer ones it skipped. The lock, a Note and
// a thread's start and join synchronize as their names promise (a lock
// acquire reads from the last unlock). So a call site whose order is weaker
// than its algorithm needs fails under RC11: that is what answers "is
// this order enough on arm64 or ppc64?".
//
// Each load that reads a store other than the latest, and each store put
// before the latest in its location's order, spends one of the execution's
// stale choices; [Config.MaxStale] bounds them as MaxPreemptions bounds
// preemptions (default 2, or VSCHED_MAX_STALE); a complete search is
// complete within both bounds, and [Summary] names both. [Config.Orders] weakens a call site
// without rebuilding the code; TestOrderMinimality uses it to test, site
// by site, whether an order weaker than the named one breaks a model.
//
// The model is checked by a litmus suite (MP, SB, LB, IRIW, WRC, 2+2W,
// CoRR, RMW atomicity, SC fences; docs/VERIFICATION.md has the verdicts):
// each test asserts the verdict of its outcomes: one that RC11 forbids must
// never show, one that it allows must be found. Where it approximates, it
// errs on the strong side: a compare-and-swap that fails reads the latest
// store, the total order of SC operations and fences is the order in which
// they execute (both pinned by litmus tests), and a load chooses among at
// most the 64 latest stores.
// Beyond the litmus suite the model is not proven to agree with RC11.
// Neither model sees data races on plain memory (go test -race does).
//
// Only one exploration runs at a time in a process, and while it runs, every
// call of xsync is taken to come from the running thread: do not mark
// explorer tests parallel, and do not let goroutines outside the model use
// vsched's data structures meanwhile.
package explore
