// Package kernel is a work-stealing scheduler of small tasks, built the way
// the Go runtime schedules goroutines (runtime/proc.go): Ps with local run
// queues of [runq.Size] slots and a runnext slot, a global queue, Ms
// (worker goroutines) that spin looking for work before they park, a
// monitor, and the runtime's protocol that keeps an idle P from sitting next
// to a runnable task.
//
//	k, _ := kernel.New()
//	k.Go(func(c *kernel.Ctx) {
//		c.Go(func(c *kernel.Ctx) { ... }) // runs next on this P
//	})
//	k.Shutdown(ctx) // runs what is queued, then stops
//
// # Tasks
//
// A task is a func(*Ctx). It runs to completion each time it is scheduled:
// Go gives user code no way to switch stacks, so a task cannot be preempted
// and should not block its goroutine (use [Ctx.Block] when it must). What it
// asked for while it ran decides what happens when its function returns:
//
//   - nothing: it is dead, and its record is recycled (gfput, gfget);
//   - [Ctx.Go]: the child went to this P's runnext and runs next on this P,
//     inheriting the time slice, unless a thief takes it (newproc);
//   - [Ctx.TryGo]: as Go while some P could take the child, otherwise
//     nothing, and the caller does the child's work inline;
//   - [Ctx.Yield]: it goes to the tail of the global queue (Gosched);
//   - [Ctx.Park]: it waits until its [Waker] is woken, then its function
//     runs again from the top; its state lives in its closure;
//   - [Ctx.WaitRead] or [Ctx.WaitWrite]: it waits on a descriptor's wait
//     slot (see "I/O" below), then runs again, and [Ctx.WaitErr] says why.
//
// A park commits only after the function has returned, by a CAS on the
// Waker's park word (gopark's commit function), so a Wake that comes first
// makes the commit fail and the task runs again at once: no wakeup is lost.
// A woken task goes to the runnext of the waker's P when the waker is a task
// running on a P (goready), otherwise to the global queue with wakep.
//
// # The scheduling loop
//
// An M with a P runs findRunnable in the runtime's order: a task whose park
// commit failed; every 61st non-inherited run, one task from the global
// queue; the local queue (runnext first); a fair share of the global queue,
// at most [runq.Size]/2; a poll of the netpoller that does not block; then, if this M
// spins already or fewer than half of the busy Ps have spinning Ms, four
// steal passes over the other Ps in random coprime orders, taking runnext
// only on the last pass and only after a pause ([WithStealPause]). When all
// of that finds nothing, the M drops its P under the scheduler lock (taking
// the global queue instead if it filled, or becoming a spinner if a
// spinning M asked for one through needspinning), looks at every queue
// once more if it was spinning, becomes the one M blocked in the netpoller
// if tasks wait on it and no other M is, and otherwise parks on its note.
//
// # I/O
//
// [Kernel.Poller] makes the kernel's [netpoll.Poller] (epoll), with which a
// program registers non-blocking descriptors, or makes sockets with
// [netpoll.Listen] and [netpoll.Dial]. A task tries its I/O first and,
// when it would block, calls [Ctx.WaitRead] or [Ctx.WaitWrite] and returns;
// the wait commits after the function has returned, by a CAS on the
// descriptor's wait slot (netpollblockcommit), so readiness that comes
// first makes the task run again at once. The kernel polls as the runtime
// does (runtime-scheduler §3.2 steps 7 and 13, §4):
//
//   - in findRunnable, after the local and global queues and before
//     stealing, without blocking, only while tasks wait on the poller, no M
//     blocks in it (lastpoll is not zero) and no other M is polling
//     (pollingNet); the first ready task runs, the rest are injected;
//   - when an M has dropped its P and found nothing, it blocks in the
//     poller if tasks wait on it and no other M does (it swaps lastpoll to
//     zero), never past the earliest deadline; afterwards it takes an idle
//     P for what it got, or puts all of it on the global queue with an M
//     started per idle P;
//   - the monitor polls when nobody has for 10 ms, so a kernel whose Ps are
//     all busy still sees I/O, and puts what it gets on the global queue.
//
// What a poll returns is made runnable with injectglist: as many tasks as
// there are idle Ps go to the global queue with an M started for each,
// the rest to the polling P's local queue, then a trailing wakep. New work
// needs no break of the blocked poller: wakep starts another M on an idle
// P, as in the runtime. A deadline earlier than the one the blocked poller
// sleeps towards breaks it (netpoll does that itself), and so does a stop.
// A task woken by a descriptor's Close, or a deadline set in the past, is
// readied like a Wake: on the closer's P if it is a task, else on the
// global queue.
//
// # Not losing a wakeup
//
// The hard part, as in the runtime, is the race between a submitter and the
// last spinning M giving up. Unparking an M for every new task would waste
// the machine; so a submitter wakes an M (wakep) only if there is an idle P
// and no M spins, trusting a spinning M to find the task. Both sides follow
// a two-step pattern, and one of them always sees the other:
//
//   - submitter: (1) publish the task (the local queue's tail with a
//     release store, or the global queue under the lock); (2) a
//     sequentially consistent fence (xsync.FenceSC, in wakep); (3) look at
//     nmspinning, and wakep if it is zero;
//   - spinner giving up: (1) drop the P and decrement nmspinning, a
//     sequentially consistent read-modify-write; (2) look at the global
//     queue (under the lock) and at every busy P's local queue (with
//     sequentially consistent loads) again; take an idle P and spin again
//     if any has work.
//
// Each side needs a StoreLoad barrier between its store and its loads. In
// the C/C++ memory model (RC11) a release store followed by a load is not
// one, so the submitter's side has the fence; the spinner's side needs none,
// since two sequentially consistent accesses stay in order. The explorer's
// RC11 mode checks both (the seeded bug wakep-no-fence is reported by the
// RC11 kernel models). On hardware the fence costs nothing in the default
// build: there every xsync store but StoreRelaxed is sync/atomic's (the
// tail's StoreRel here), an XCHG on amd64, an STLR on arm64 that the
// following LDAR of nmspinning may not pass, and on ppc64 the load of
// nmspinning begins with a SYNC, as in the runtime.
//
// Checking before decrementing loses wakeups (a task published between the
// check and the decrement finds nmspinning non-zero and no spinner will
// look again). A spinning M that finds work but no idle P for it sets
// needspinning, and a non-spinning M about to drop its P becomes a spinner
// instead: a spawn whose wakep finds no idle P claims a spinner in
// nmspinning for a moment, an M that drops its P meanwhile may not steal
// while the claim stands, and without needspinning it would go idle beside
// the task (the race of runtime issue #45867). [Ctx.GoBatch] and
// [Kernel.GoBatch] (injectglist) end with a wakep for Ps that went idle
// after they counted the idle ones (#63555). A spinning M that finds work
// stops spinning and, since it may have been the last spinner, calls wakep
// (resetspinning). Each of these four steps has a seeded bug that the
// explorer models of package explore must report (docs/VERIFICATION.md
// names the model of each). Every spinning M looks at the queues again
// when it drops its P, not only the last one: the runtime does the same,
// to be safe against increments of nmspinning that are given back outside
// that path (runtime issue #43997). Here such a claim is made and given
// back in one critical section of the lock, and no model yet reaches a
// schedule in which only the last spinner's look would lose a task.
//
// # Memory orders
//
// The kernel's own atomics are sequentially consistent, the runtime's
// choice for its scheduler state, except where a comment at the access
// says otherwise (the fence in wakep, the per-P counters that only their P
// writes). In the default build that costs nothing beyond what a weaker
// order would: sync/atomic has only SC operations. For the weak machines,
// the explorer's RC11 mode and its minimality table (docs/VERIFICATION.md)
// say which accesses need SC: a weakened nmspinning decrement, npidle or
// monitor state, among others, loses a wakeup or deadlocks a model; for
// most others the capped searches of the kernel models find no
// counterexample, which is not proof enough to weaken them.
//
// # Block and the monitor
//
// [Ctx.Block] is the runtime's entersyscall/exitsyscall. With the default
// [HandoffLazy] the P stays with the blocked M, marked as in Block; a
// monitor goroutine (sysmon) hands it to another M (handoffp) once the
// block has lasted a monitor round and there is work for it, or nobody else
// spins, or 10 ms passed. [HandoffEager] hands the P off as Block starts.
// Coming back, the M takes its own P if nobody took it, else an idle P, else
// it waits for the next P that comes free. The runtime puts such a goroutine
// on the global queue and lets any M run it; a goroutine cannot move its
// stack to another M, so here the M itself waits, and it gets a P ahead of
// queued tasks: any M at its next scheduling point hands its P over.
//
// The monitor also breaks a runnext chain that held a P for 10 ms (the
// runtime preempts the running goroutine to the global queue; a task cannot
// be preempted, so the task that would inherit the time slice goes there
// instead), and reports tasks that run past a threshold ([WithStall]). It
// sleeps from 20 µs to 10 ms between rounds while anything runs (doubling
// after 50 rounds with nothing to do, back to 20 µs after one that retook a
// P, broke a chain, reported a stall or polled and found I/O), and without
// a deadline while every P is idle: an idle kernel's Ms are parked on
// their notes and nothing polls. A P that starts running wakes it; after a
// deep sleep of 1 ms or more it starts over at 20 µs, after a shorter one
// it keeps the sleep it had backed off to, so that a server whose Ps go
// idle between requests does not wake it twice per request. In that case
// a [Ctx.Block] may keep its P, with work queued behind it, for up to two
// backed-off rounds (about 20 ms: the first round that sees the Block only
// notes it) before the monitor hands the P off, as in the runtime when its
// sysmon has backed off.
//
// # Shutdown, Close and misuse
//
// [Kernel.Shutdown] stops intake and waits until the kernel is quiescent
// (every P idle, no M in Block, the global queue empty) and every worker
// has exited; tasks parked and never woken are not waited for, nor are
// tasks waiting on the netpoller (the M blocked in it is broken out and
// exits, and the kernel closes the Poller; the descriptors stay their
// owners' to close). [Kernel.Close]
// stops at once and counts the queued tasks it drops. A Ctx used after its
// task returned, from another goroutine, or inside Block panics with a
// message naming the misuse; Wake of a task that is not parked does
// nothing; nil task functions are errors ([ErrNilFunc]) or, in [Ctx.Go],
// panics. Without [WithPanicHandler] a task's panic crashes the program, as
// in a goroutine; with it the panic is recovered and reported with its
// stack, the task is dead, and the kernel goes on. A task that calls
// runtime.Goexit ends its run and takes its worker goroutine with it; the
// kernel hands the P to another M.
//
// # Observing it
//
// [Kernel.Stats] returns the counters and gauges, named as tokio names its
// runtime metrics (PollCount, StealOperations, GlobalQueueDepth, ...), in
// total and per worker (P); package metrics publishes them through expvar
// with one call. Everything else is off, or costs one load, until asked
// for (docs/BENCHMARKS.md measures each on SpawnLocal):
//
//   - task kinds: [NewKind] names a kind of work and [Kernel.GoKind] and
//     [Ctx.GoKind] spawn tasks of it. A stall report ([WithStall]) carries
//     the running task's kind; a run of a task of a kind carries the pprof
//     label vsched.kind=<name>, and an M's goroutine carries vsched.p=<P>
//     while it holds a P, so go tool pprof -tagfocus splits a CPU profile by
//     kind and by P;
//   - the execution tracer: while runtime/trace is on, each task run is a
//     region named after its kind ("vsched.task" without one), and steals,
//     parks and hand-offs are trace.Log events (categories vsched.steal,
//     vsched.park, vsched.handoff); while it is off, a run costs one
//     trace.IsEnabled load (the example of NewKind says how to look at a
//     trace);
//   - histograms ([WithHistograms]): schedule latency, from a task becoming
//     runnable to its run, and run time, in [Stats.ScheduleLatency] and
//     [Stats.PollTime], with doubling buckets from 1 µs.
//
// # Where it differs from the runtime, and why
//
//   - A task cannot be preempted, so fairness relies on the 61-tick check,
//     on Yield and on the monitor's breaking of runnext chains.
//   - The runnext pause is a 3 µs spin by default: user space has no 3 µs
//     sleep ([steal.SpinPause]).
//   - The spinning-to-idle recheck reads the idle flags of the Ps at the
//     time of the recheck, not from a snapshot taken before dropping the P:
//     the set of Ps never changes here, and a P that went idle meanwhile has
//     an empty queue that nobody can fill.
//   - An M that comes back from Block waits for a P instead of queueing its
//     task (see above). The runtime keeps every M it started; here an M
//     that would park exits when there are more Ms than Ps outside Block
//     and an idle M for every P already, so that at most 2*procs Ms exist
//     outside Block (see stopm for why not procs).
//   - wakep returns without the lock when there is no idle P and
//     needspinning is set already: the runtime would take the lock only to
//     set the flag again, on every spawn of a busy kernel.
//   - The free lists of task records are stacks of pointers, not lists
//     linked through the records: moving a batch between Ps must not touch
//     records that live in another core's cache.
//   - A task allocates its Waker at its first Park and keeps it for its
//     life; a dead task's Waker is never reused, so that a Waker kept too
//     long cannot wake an unrelated task. Parking again allocates nothing.
//   - Whether a waker is a task on a P is found from the calling
//     goroutine's identity (getg, two instructions of assembly on amd64 and
//     arm64); on other architectures a waker is always treated as outside.
//   - A P publishes its counters for [Kernel.Stats] every 64 runs and when it
//     goes idle, rather than updating shared counters on every event.
//   - Deadlines are timers in the netpoller's own heap, which every poll
//     runs, rather than in per-P timer heaps: the kernel has no other
//     timers. A blocked poll never sleeps past the earliest one, and
//     setting an earlier one breaks it (wakeNetPoller). findRunnable
//     fires passed ones at its top, as the runtime's checkTimers does, so
//     that while every P is busy and nobody polls they still fire at the
//     next findRunnable of any P, not at the monitor's poll (a long task
//     run delays them, as it delays everything: nothing preempts it). The
//     look is two atomic loads while no deadline is set and a clock read
//     while one is (netpoll.Poller.Expire). There is no timer stealing:
//     the heap is shared.
//   - No M blocks in the poller once Shutdown or Close began, and
//     Shutdown breaks the poller: the stop's single break may have gone to
//     the poller before, and a drain must see every task the poller woke.
//     The kernel counts as drained only while no M is in the poller, and a
//     poller queues what it woke before it leaves. Whoever restores
//     lastpoll or clears pollingNet while every P may be idle looks at the
//     drain under the lock: an M or the monitor that found the other's mark
//     left the drain to it. The runtime never stops.
//   - The blocking poll waits for the epoll descriptor's readability in
//     the Go runtime's own netpoller (the descriptor as an os.File), and
//     then collects the events without blocking: a goroutine blocked in
//     epoll_wait would hold its thread and its Go P until the Go runtime's
//     sysmon took it, and readiness caused by a goroutine of the same
//     process often reaches the poller with no thread wakeup this way.
//   - An M that stops after serving I/O, while tasks wait on the poller,
//     spins on its note for up to 30 µs (yielding its thread to ready
//     goroutines) before it sleeps; the runtime's stopm sleeps at once.
//     An M is a goroutine: when it parks and the Go scheduler finds
//     nothing else to run, the thread sleeps, and the startm that an I/O
//     event brings soon after waits for the operating system to wake one.
//     Under a request-response load that wait left a CPU idle a tenth of
//     the time more than the net package did; the spin halved the echo
//     benchmark's p99 at 50 connections (docs/BENCHMARKS.md). It is
//     limited to kernels with tasks waiting on the poller and to Ms that
//     ran a task back from an I/O wait since their last stop: a kernel
//     that computes loses its wakeup batching to the spin. SpawnRemote was
//     20% slower when every stopping M spun; with one task parked on a
//     quiet connection beside it, SpawnRemote was 29% slower than with
//     none while any task run earned the spin, and 8% once only a task
//     back from I/O did (docs/BENCHMARKS.md run J). An M woken for a task
//     that others took first, as with a single connection, does not spin
//     either: that measured 7% slower (p = 0.1, so only suggested).
//     [Stats.SpinParkCount] counts the spins. While it spins, that Go P
//     runs its ready goroutines but does not poll the Go netpoller.
//   - The price of scheduling on top of the Go scheduler: every M that
//     parks or wakes is a goroutine that the Go scheduler parks or wakes,
//     often with a thread. Serving echo at 50 connections, the kernel's
//     server spent 7% more CPU per round trip than the net package's; one
//     profile of each put most of the difference in the Go runtime's thread
//     sleeps and wakeups rather than in the kernel's own code
//     (docs/BENCHMARKS.md run N).
//   - A task whose wait or park commits fail again and again (a slot that
//     is always ready) comes back through the P's resume slot; the monitor's
//     10 ms preemption flag sends it to the global queue, as it does a
//     runnext chain.
//   - The poller's waiter count rises before the commit's CAS and falls
//     back if the CAS fails, so it never drops below the number of parked
//     tasks; the runtime applies the decrement after queueing the tasks.
//
// # Invariants
//
// Checked where they are relied on, each stops the program with a panic
// naming it: a P put on the idle list has an empty queue (pidleput); a
// spinning M's P has no local work (schedule); a spinning start gets an
// empty P (startm); nmspinning never goes negative (wakep, resetspinning,
// findRunnable); a global batch fits the empty local ring (findRunnable).
package kernel
