package compare

import (
	"runtime"
	"testing"
	"time"

	"github.com/panjf2000/ants/v2"

	"github.com/vsched/vsched/kernel"
)

// SpawnDepth: how the cost of a spawn and the memory of a queued task grow
// with the number of tasks queued at once. One op queues n tiny tasks so
// that all n exist and none has run at one moment, reads the memory in use
// there, then lets them run and waits for the last. Each implementation
// is made once per benchmark and reused by its ops.

// depthMemLimit is the most memory a SpawnDepth benchmark may expect to
// need with every task queued, in bytes; a size whose estimate
// (depthVariant.perTask times the tasks) is larger is skipped. It leaves
// room on the 23 GB machine the benchmark was written on.
const depthMemLimit = 16e9

// A depthVariant is one implementation of SpawnDepth.
type depthVariant struct {
	impl string
	// perTask is about the memory one queued task holds, from SpawnDepth's
	// own B/task, and holds says what holds it; a size for which perTask
	// times the tasks exceeds depthMemLimit is skipped.
	perTask int64
	holds   string
	// setup builds the implementation once per benchmark, registers its
	// shutdown with tb.Cleanup, and returns its op for n tasks. The op
	// reads the memory in use only when mem is set.
	setup func(tb testing.TB, tm timer, n int) func(mem bool) depthRun
}

// timer is the part of testing.B that a SpawnDepth op uses, to keep its
// memory readings out of the benchmark's time; the tests pass one that
// does nothing.
type timer interface {
	StopTimer()
	StartTimer()
}

// depthRun is what one SpawnDepth op measured.
type depthRun struct {
	ran   int64         // tasks run, which must be n
	early int64         // tasks that had run when the last was queued, which must be 0
	wall  time.Duration // the whole op, without the memory readings
	spawn time.Duration // the spawn loop alone
	bytes int64         // memory in use with every task queued minus before, if read
	held  int64         // memory in use once every task has run, after a GC, minus before, if read
}

// A depthOp is the clock of one op and, with mem, its memory readings.
// begin, spawning, queued and end are called in that order, each once per
// op; spawning and queued may be called from inside a kernel task, where
// the benchmark goroutine is blocked until the op's last task has run.
type depthOp struct {
	tm                            timer
	mem                           bool
	before                        int64
	start, loop, spawned, resumed time.Time
	r                             depthRun
}

// begin starts the op. With mem it first collects the garbage and reads
// the memory in use, with the benchmark timer stopped.
func (o *depthOp) begin(mem bool) {
	o.mem, o.r = mem, depthRun{}
	if mem {
		o.tm.StopTimer()
		runtime.GC()
		o.before = memInUse()
		o.tm.StartTimer()
	}
	o.start = time.Now()
}

// spawning marks the start of the spawn loop.
func (o *depthOp) spawning() { o.loop = time.Now() }

// queued marks the end of the spawn loop, with every task queued: it
// counts the tasks that have run already and, with mem, reads the memory
// in use with the benchmark timer stopped and its own clock paused.
func (o *depthOp) queued(t *tiny) {
	o.spawned = time.Now()
	o.r.early = t.ran.Load()
	if o.mem {
		o.tm.StopTimer()
		o.r.bytes = memInUse() - o.before
		o.tm.StartTimer()
	}
	o.resumed = time.Now()
}

// end ends the op once its last task has run; ran is the count of tasks
// that ran.
// With mem it then collects the garbage and reads what the implementation
// still holds, with the benchmark timer stopped.
func (o *depthOp) end(ran int64) depthRun {
	end := time.Now()
	o.r.ran = ran
	o.r.spawn = o.spawned.Sub(o.loop)
	o.r.wall = end.Sub(o.start) - o.resumed.Sub(o.spawned)
	if o.mem {
		o.tm.StopTimer()
		runtime.GC()
		o.r.held = memInUse() - o.before
		o.tm.StartTimer()
	}
	return o.r
}

// memInUse is the memory of the heap and of the goroutine stacks in use
// (HeapInuse+StackInuse).
func memInUse() int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse + ms.StackInuse)
}

// depthVariants queues the tasks as follows.
//
//   - kernel: a kernel of one P. A root task, submitted with k.Go, spawns
//     the n tasks with c.Go; while it runs nothing else runs on the only
//     P, so they stay queued: the newest in runnext, 256 in the local
//     ring, the rest, in batches of half the ring, on the global queue.
//     The root measures, after its loop and before it returns.
//   - native: the benchmark goroutine starts n goroutines that each wait
//     on a gate, a channel closed after the loop, before doing the work.
//   - pond: a pool of one worker, first given a task that waits on the
//     gate; the n tasks queue behind it in the pool's queue.
//   - ants: an ants pool cannot queue a task: Submit hands it to an idle
//     worker, starts one, or blocks the submitter until one is free. So
//     the pool is unbounded (size -1) and every task waits on the gate
//     before doing the work, holding a worker goroutine of its own.
func depthVariants() []depthVariant {
	const what = "SpawnDepth"
	return []depthVariant{
		{"kernel", 100, "a task record and its slot in the global queue's ring", func(tb testing.TB, tm timer, n int) func(bool) depthRun {
			k := newKernel(tb, kernel.WithProcs(1))
			t := newTiny(tb, what, n, k)
			task := func(*kernel.Ctx) { t.do() }
			op := &depthOp{tm: tm}
			root := func(c *kernel.Ctx) {
				op.spawning()
				for range n {
					c.Go(task)
				}
				op.queued(t)
			}
			return func(mem bool) depthRun {
				op.begin(mem)
				submit(tb, k, root)
				return op.end(t.wait())
			}
		}},
		{"native", 2700, "a goroutine: its record and a stack of at least 2 KiB", func(tb testing.TB, tm timer, n int) func(bool) depthRun {
			return gatedOp(tb, tm, n, func(task func()) { go task() })
		}},
		{"pond", 32, "a slot of the pool's queue", func(tb testing.TB, tm timer, n int) func(bool) depthRun {
			p := newPool(tb, "pond", 1, false)
			t := newTiny(tb, what, n, nil)
			f := t.do
			op := &depthOp{tm: tm}
			return func(mem bool) depthRun {
				gate := make(chan struct{})
				block := func() { <-gate }
				op.begin(mem)
				p.Go(block)
				op.spawning()
				for range n {
					p.Go(f)
				}
				op.queued(t)
				close(gate)
				return op.end(t.wait())
			}
		}},
		{"ants", 2400, "a worker goroutine: its record, a stack of at least 2 KiB and the worker", func(tb testing.TB, tm timer, n int) func(bool) depthRun {
			p, err := ants.NewPool(-1)
			if err != nil {
				tb.Fatalf("ants.NewPool: %v", err)
			}
			tb.Cleanup(p.Release)
			return gatedOp(tb, tm, n, func(task func()) {
				if err := p.Submit(task); err != nil {
					tb.Fatalf("ants Submit: %v", err)
				}
			})
		}},
	}
}

// gatedOp is the op of a variant whose n queued tasks are goroutines
// waiting on a gate, a channel closed once all are started: start starts
// one.
func gatedOp(tb testing.TB, tm timer, n int, start func(task func())) func(bool) depthRun {
	t := newTiny(tb, "SpawnDepth", n, nil)
	f := t.do
	op := &depthOp{tm: tm}
	return func(mem bool) depthRun {
		gate := make(chan struct{})
		task := func() {
			<-gate
			f()
		}
		op.begin(mem)
		op.spawning()
		for range n {
			start(task)
		}
		op.queued(t)
		close(gate)
		return op.end(t.wait())
	}
}

// benchSpawnDepth runs every SpawnDepth variant for n tasks as a
// sub-benchmark impl=<name>, skipping the ones that would not fit in
// depthMemLimit. There is no warm-up op: the memory is read in the first
// op only, which is the one that finds the implementation empty, and every
// op is checked. It reports ns/task and spawn-ns/task over all ops, and
// of the first B/task, the memory per task while all were queued, and
// held-B/task, what the implementation still holds per task once they
// have run (free lists, a grown queue, idle workers).
func benchSpawnDepth(b *testing.B, n int) {
	for _, v := range depthVariants() {
		b.Run("impl="+v.impl, func(b *testing.B) {
			if need := v.perTask * int64(n); need > depthMemLimit {
				b.Skipf("%d tasks need about %.0f GB (%d B each for %s), over the %.0f GB this benchmark allows itself",
					n, float64(need)/1e9, v.perTask, v.holds, depthMemLimit/1e9)
			}
			op := v.setup(b, b, n)
			var wall, spawn time.Duration
			var bytes, held int64
			first := true
			for b.Loop() {
				r := op(first)
				if r.early != 0 {
					b.Fatalf("%d of %d tasks ran before the last was queued", r.early, n)
				}
				if r.ran != int64(n) {
					b.Fatalf("op ran %d tasks, want %d", r.ran, n)
				}
				if first {
					bytes, held, first = r.bytes, r.held, false
				}
				wall += r.wall
				spawn += r.spawn
			}
			tasks := float64(b.N) * float64(n)
			b.ReportMetric(float64(wall.Nanoseconds())/tasks, "ns/task")
			b.ReportMetric(float64(spawn.Nanoseconds())/tasks, "spawn-ns/task")
			b.ReportMetric(float64(bytes)/float64(n), "B/task")
			b.ReportMetric(float64(held)/float64(n), "held-B/task")
		})
	}
}
