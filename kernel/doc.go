// Package kernel runs many small tasks on a fixed number of processors
// (Ps), scheduled the way the Go runtime schedules goroutines: each P has a
// local run queue, a task spawned by a task runs next on the same P, and
// Ps that run out of work steal from the others.
//
//	k, err := kernel.New() // runtime.GOMAXPROCS(0) Ps
//	...
//	k.Go(func(c *kernel.Ctx) {
//		c.Go(func(c *kernel.Ctx) { ... }) // runs next on this P
//	})
//	err = k.Shutdown(ctx) // runs what is queued, then stops
//
// The example of this package spawns a tree of tasks that way.
//
// # Tasks
//
// A task is a func(*Ctx). Each time the kernel runs it, the function runs
// to its end: Go gives user code no way to switch stacks, so nothing
// preempts a task, and a task must not block its goroutine (see Blocking
// below). What the function asked for through its [Ctx] decides what
// happens when it returns. If it asked for nothing, the task is done. If it
// asked to wait ([Ctx.Park], [Ctx.WaitRead], [Ctx.WaitWrite]) or to let
// others run ([Ctx.Yield]), the function runs again, from the top, once the
// wait is over or its turn comes; its defers run at the end of each run, not
// once per task. A task keeps its state in its closure:
//
//	step := 0
//	k.Go(func(c *kernel.Ctx) {
//		step++ // 1, 2, 3: one run per wake
//		if step < 3 {
//			wakers <- c.Park() // after this run, wait for a Wake
//		}
//	})
//
// A park takes effect only after the function has returned, so a
// [Waker.Wake] that comes earlier, even before Park itself returns, is not
// lost: the task runs again at once. Wake may be called from any
// goroutine; called from a task, it makes the woken task run next on the
// waker's P (see the example of Waker.Wake).
//
// # Spawning
//
//   - [Kernel.Go], from any goroutine, queues a task on the kernel's global
//     queue and wakes an idle P for it.
//   - [Ctx.Go], from a task, puts the child in its P's runnext slot: it runs
//     next on this P, unless an idle P steals it first. It allocates nothing
//     but the caller's closure.
//   - [Kernel.GoBatch] and [Ctx.GoBatch] spawn many tasks at once, spread
//     over the idle Ps.
//   - [Kernel.GoKind] and [Ctx.GoKind] spawn a task of a [Kind], which names
//     the work in stall reports, execution traces and CPU profiles (see the
//     example of NewKind).
//   - [Ctx.TryGo] spawns only while some P could run the child now, and
//     otherwise lets the caller do the work inline (see its example).
//
// # Groups
//
// A [Group] is a set of tasks waited for together, with the first error
// kept and a context cancelled at it ([Kernel.NewGroup], [Group.Go],
// [Group.SetLimit], [Group.Context]). There are two ways to wait, because
// a task never blocks. A goroutine outside the kernel calls [Group.Wait],
// which blocks it until every task of the group has finished, as
// errgroup's Wait does. A task calls [Ctx.Join] instead: it names a
// continuation that runs as a new task once the group is done, and
// returns; no worker waits meanwhile. The first Join's continuation
// usually runs on the M of the task that finished the group, right after
// it, the way a hand-written fork/join goes on with its parent's frame
// (the exceptions are in the doc of Ctx.Join). A continuation belongs to the group
// of the task that joined, so a task that joins its children keeps its own
// group busy until their results are in, and a fork/join tree needs no
// counters of its own (see the example of Ctx.Join). A panic in a group
// task becomes the group's error, a [*PanicError].
//
// Each Join costs a group and a continuation. A fork/join that adds both
// halves at every node as tasks pays them at every node; a task that
// walks one branch itself and adds the other child of each node on the
// way to one group pays them once, for all the children it spawned
// (ForkJoinFib's kernel-group-walk in the repository's bench module
// spawns fib(n-2) at each node and walks fib(n-1); docs/BENCHMARKS.md
// has its cost beside the hand-written continuation's).
//
// Over a group's limit, [Group.Go] never blocks: the function waits in
// the group's queue. A caller that must not let that queue grow has two
// other ways to add: [Group.TryGo] adds only when the function can start
// at once, from a task or from anywhere, and [Group.GoWait] blocks a
// goroutine outside the kernel until there is room.
//
// # Blocking
//
// A task that must block its goroutine (a lock, a channel, a file, a cgo
// call) does it inside [Ctx.Block], which lets the P run other tasks
// meanwhile. By default ([HandoffLazy]) the P changes hands only if the
// call lasts; [WithBlockHandoff] with [HandoffEager] hands it off at once.
// The function passed to Block must not use the Ctx (see the example of
// Ctx.Block).
//
// # I/O
//
// On Linux, [Kernel.Poller] returns the kernel's [netpoll.Poller]. Make
// sockets on it with [netpoll.Listen] and [netpoll.Dial], or register a
// non-blocking descriptor of your own with [netpoll.Poller.Register]. A
// task tries its I/O first; when the call returns [netpoll.ErrWouldBlock],
// the task calls [Ctx.WaitRead] or [Ctx.WaitWrite] on the descriptor and
// returns, and its function runs again once the descriptor is ready, its
// deadline has passed or it was closed; [Ctx.WaitErr] says which:
//
//	n, err := conn.Read(buf)
//	if errors.Is(err, netpoll.ErrWouldBlock) {
//		c.WaitRead(conn.Desc()) // run again when readable
//		return
//	}
//
// The example of Kernel.Poller serves a connection.
//
// # Stopping
//
// [Kernel.Shutdown] stops intake and returns once everything runnable has
// run, including what it spawned, and every worker has exited. It does
// not wait for tasks parked and never woken, nor for tasks waiting on I/O;
// it closes the Poller, and descriptors stay their owners' to close.
// [Kernel.Close] stops at once and drops what is queued.
//
// A Ctx used after its run, from another goroutine, or inside Block
// panics with a message that names the misuse. A task's panic crashes the
// program, as a goroutine's does, unless [WithPanicHandler] recovers it.
//
// # Observing
//
// [Kernel.Stats] returns counters and gauges, in total and per P, named
// after tokio's runtime metrics; package
// [github.com/vsched/vsched/kernel/metrics] publishes them through expvar.
// [WithHistograms] adds histograms of schedule latency and run time,
// [WithStall] reports tasks that run too long, and a [Kind] splits CPU
// profiles and execution traces by kind of work. While off, the histograms,
// kinds and tracing cost nothing, or one load per task run.
//
// # How it works
//
// The comment at the top of kernel/proc.go explains the scheduler: the
// order in which an idle P looks for work, how spinning workers keep an
// idle P from sitting beside a runnable task without waking a worker per
// task, polling, Block and the monitor. docs/DESIGN.md maps each part to
// the runtime function it mirrors and lists where it differs, and why.
package kernel
