// Package compare benchmarks the kernel side by side with goroutines and
// the worker pools a Go user would pick instead of it.
//
// Every benchmark is Benchmark<Workload>/impl=<name>, so that
//
//	cd bench
//	GOMAXPROCS=2 go test -run '^$' -bench . -benchmem -count 6 ./compare > bench.txt
//	go tool benchstat -col /impl bench.txt
//
// puts the implementations in columns, with native as the base (benchstat
// is a tool of the bench module, in its go.mod). A quick smoke run of every
// benchmark once is
//
//	go test -short -run '^$' -bench . -benchtime=1x ./compare
//
// (-short: IdleCPU idles a tenth of a second, not a second, and each
// curve runs at its first point only), and
// go test ./... checks, at small sizes, that every implementation runs
// every workload to the right count. No test asserts a timing.
//
// # Implementations
//
//   - native: a go statement per task; the completion counter of the
//     workload plays the WaitGroup (ForkJoinFib uses a sync.WaitGroup).
//   - counter: the parallel-for floor: GOMAXPROCS goroutines take indices
//     from an atomic counter, no task is queued (SpawnLocal, SpawnRemote,
//     Imbalanced).
//   - kernel: github.com/vsched/vsched/kernel with its default number of
//     Ps (GOMAXPROCS), made once per benchmark and closed in b.Cleanup.
//     Remote submits are k.Go, spawns from inside a task c.Go.
//   - kernel-iowaiter (SpawnLocal, SpawnRemote, PingPong): the same
//     kernel with one task parked on a pipe that stays quiet, as a kernel
//     that serves connections beside its computation always has. Tasks
//     waiting on the poller change how its Ms idle (one blocks in the
//     poller; one that served I/O spins before it sleeps), and this
//     variant measures what that costs the computation (iowait.go).
//   - kernel-gowaiter (the same three): the kernel beside a goroutine
//     parked on a quiet pipe in the Go runtime's netpoller, what any
//     process with a parked connection pays; kernel-iowaiter pays it too
//     while an M of the kernel blocks in its poller, which waits there.
//   - ants, pond, conc, errgroup, workerpool: the peer pools, each bounded
//     at GOMAXPROCS workers, made once per benchmark (pools.go describes
//     each adapter and what it adds).
//
// # Workloads
//
// One benchmark iteration is one whole workload; b.Loop times it, after
// one untimed warm-up run. Every run is checked (a count of tasks run, or
// fib's value) and a run that loses a task fails after a minute with the
// kernel's Stats instead of hanging.
//
//  1. SpawnLocal: 10,000 tiny tasks (one atomic add) spawned from inside
//     one running task.
//  2. SpawnRemote: the same 10,000 submitted by one goroutine outside the
//     scheduler.
//  3. ChainedSpawn: a chain of depth 1,000, each task spawning the next.
//  4. ForkJoinFib: fib(25) with a task per internal node of the call tree
//     (F(26)-1 = 121,392 spawns): goroutines and a WaitGroup for native,
//     continuation style (a join frame with a pending count; the last
//     arrival continues the parent) for the kernel and the pools.
//  5. YieldMany: 200 tasks of 1,000 yields each (kernel c.Yield, native
//     runtime.Gosched); a "task" is one yield.
//  6. PingPong: two tasks hand a ball back and forth 10,000 times (kernel
//     Park/Wake, native unbuffered channels); a "task" is one hand-off.
//  7. Imbalanced: one producer pushes 8 bursts of 1,024 tasks of about
//     1µs of CPU each (a calibrated loop), waiting for each burst; the
//     kernel reports share, the fraction of tasks run by the Ps other than
//     the busiest.
//  8. IdleWake: submit-to-start latency of one task on an idle
//     implementation, as p50-ns and p99-ns (its sec/op is meaningless).
//  9. IdleCPU: process CPU time per idle second, cpu-ms/idle-s, of a
//     started, warmed and then idle implementation.
//  10. GroupFanOut: 10,000 tiny tasks added one by one to one task group
//     from outside, then the group's Wait: a kernel Group (Go, Wait),
//     errgroup, errgroup-limit (SetLimit(GOMAXPROCS)), conc-pool (an
//     unlimited pool.Pool), conc-waitgroup, pond-group (a group of a pond
//     pool of GOMAXPROCS workers), native (go and sync.WaitGroup.Go). A
//     group is made per run (groups.go).
//  11. GroupLimit: 100,000 tiny tasks added from outside to a group that
//     runs at most 4 at once: kernel (SetLimit(4); Go queues in the
//     group's FIFO), kernel-gowait (GoWait blocks for room), errgroup
//     (SetLimit(4); Go blocks), pond (a pool of 4 workers; Submit
//     queues), conc-pool (WithMaxGoroutines(4); Go blocks).
//  12. SpawnDepth: how the cost of a spawn and the memory of a queued task
//     grow with the number of tasks queued at once, tasks=1,000 to
//     10,000,000 (only 1,000 under -short). One op queues that many tiny
//     tasks so that all exist and none has run at one moment, then lets
//     them run and waits for the last. kernel: a kernel of one P, made once
//     per benchmark; a root task spawns the tasks with c.Go, and since
//     nothing else runs on the P they stay queued (runnext, the local ring
//     of 256, the rest on the global queue). native: goroutines that wait
//     on a gate, closed after the loop. pond: a pool of one worker, busy
//     with a task that waits on the gate, so the tasks wait in its queue.
//     ants: a pool cannot queue a task there, so the pool is unbounded and
//     every task waits on the gate, holding a worker goroutine of its own.
//     It reports ns/task, spawn-ns/task (the spawn loop alone) and B/task,
//     the heap and stacks in use (HeapInuse+StackInuse) with every task
//     queued, minus before, after a GC. The readings are taken with the
//     timer stopped and in the first op only: later ops reuse what the
//     first left behind (the kernel's free list of task records and its
//     global queue's ring, which never shrink; ants's idle workers, kept
//     for a second; the runtime's goroutine records), so -benchtime=1x
//     measures the memory at every size. There is no warm-up op. A
//     goroutine's stack starts at 2 KiB, or larger after a GC that saw
//     larger stacks (the runtime's adaptive starting size), so native's
//     and ants's B/task depend on what ran before them. native and ants
//     skip 10,000,000 tasks: with a goroutine per task they would need
//     some 25 GB, more than the benchmark allows itself (depthMemLimit).
//
// ForkJoinFib also runs with task groups: kernel-group is the fork/join
// of Group and Ctx.Join with no counter of its own (both halves are
// tasks, three tasks per internal node), kernel-group-spine the same
// with the continuation variants' shape (one spawn per internal node, a
// task walking the fib(n-2) branch), kernel-group-walk the same walking
// the fib(n-1) branch, whose longer walks join fewer times, and
// kernel-spine and kernel-walk are those two shapes with joins written by
// hand, which allocate as the Group's do: what each shape costs, apart
// from the Group.
//
// YieldMany and PingPong have no pool version: pools neither yield nor
// park a task.
//
// # Metrics
//
// ns/task is the timed wall time over the tasks of all runs. cpu-ns/task
// is the process's user+system CPU time (getrusage(RUSAGE_SELF), so the
// benchmark goroutine and every spinning thread count) over the same
// tasks; cpu-ns/task well above ns/task times the Ps in use means
// spinning. allocs/task counts heap allocations per task, B/op and
// allocs/op come from -benchmem. For the kernel, steals/op and wakeups/op
// are the StealOperations and UnparkCount deltas of its Stats per run.
//
// # Pools inside tasks
//
// A pool task that submits with a blocking Go can deadlock a bounded
// pool: every worker may end up waiting for a worker. Where at most one
// task submits at a time (SpawnLocal, ChainedSpawn) and the pool has two
// workers or more, a blocking Go cannot deadlock and is used. ForkJoinFib,
// where every task submits, uses TryGo and runs the child inline when the
// pool is saturated (help-first); inline/task reports how often. A child
// run inline costs a function call instead of a hand-off, so a pool that
// is saturated most of the time runs fib nearly sequentially on each
// worker, and its ns/task is not the cost of a spawn. Imbalanced submits
// to the pools from the benchmark goroutine.
package compare
