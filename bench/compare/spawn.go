package compare

import (
	"sync/atomic"
	"testing"

	"github.com/vsched/vsched/kernel"
)

// tiny is the task of the spawn workloads: one atomic add. The add that
// reaches n finishes the run, so the counter also plays the WaitGroup's
// part (WaitGroup.Done is the same atomic add). Every implementation runs
// the same func value, made once per benchmark, so allocs/task counts only
// what the scheduler allocates.
type tiny struct {
	n   int64
	ran atomic.Int64
	l   *latch
}

func newTiny(tb testing.TB, what string, n int, k *kernel.Kernel) *tiny {
	return &tiny{n: int64(n), l: newLatch(tb, what, k)}
}

func (t *tiny) do() {
	if t.ran.Add(1) == t.n {
		t.l.signal()
	}
}

// wait waits for the run to finish and returns the number of tasks run.
func (t *tiny) wait() int64 {
	t.l.wait()
	return t.ran.Swap(0)
}

// counterVariant is the parallel-for floor: GOMAXPROCS goroutines take
// indices from one atomic counter and run the tiny task for each, so no
// task is ever queued (golang/go#53398).
func counterVariant(what string, n int) variant {
	return variant{"counter", func(tb testing.TB) runner {
		t := newTiny(tb, what, n, nil)
		var next atomic.Int64
		f := t.do
		worker := func() {
			for next.Add(1) <= t.n {
				f()
			}
		}
		return runner{run: func() int64 {
			next.Store(0)
			for range procs() {
				go worker()
			}
			return t.wait()
		}}
	}}
}

// spawnLocal: n tiny tasks spawned from inside one running task: the
// kernel's c.Go (runnext and the local run queue, overflowing to the
// global queue), go statements from inside a goroutine, and for the pools
// submits from inside a pool task.
func spawnLocal(n int) workload {
	const what = "SpawnLocal"
	w := workload{name: what, tasks: int64(n), want: int64(n)}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			t := newTiny(tb, what, n, nil)
			f := t.do
			root := func() {
				for range n {
					go f()
				}
			}
			return runner{run: func() int64 {
				go root()
				return t.wait()
			}}
		}},
		counterVariant(what, n),
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			t := newTiny(tb, what, n, k)
			task := func(*kernel.Ctx) { t.do() }
			root := func(c *kernel.Ctx) {
				for range n {
					c.Go(task)
				}
			}
			return runner{k: k, run: func() int64 {
				submit(tb, k, root)
				return t.wait()
			}}
		}},
	}
	w.variants = append(w.variants, poolVariants(false, func(tb testing.TB, p goPool, size int) runner {
		t := newTiny(tb, what, n, nil)
		f := t.do
		spawn := spawnInside(p, size)
		root := func() {
			for range n {
				spawn(f)
			}
		}
		return runner{run: func() int64 {
			p.Go(root)
			return t.wait()
		}}
	})...)
	return w
}

// spawnRemote: the same n tiny tasks submitted by one goroutine outside
// the scheduler: k.Go (the kernel's global queue), go statements from the
// benchmark goroutine, pool submits from it.
func spawnRemote(n int) workload {
	const what = "SpawnRemote"
	w := workload{name: what, tasks: int64(n), want: int64(n)}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			t := newTiny(tb, what, n, nil)
			f := t.do
			return runner{run: func() int64 {
				for range n {
					go f()
				}
				return t.wait()
			}}
		}},
		counterVariant(what, n),
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			t := newTiny(tb, what, n, k)
			task := func(*kernel.Ctx) { t.do() }
			return runner{k: k, run: func() int64 {
				for range n {
					submit(tb, k, task)
				}
				return t.wait()
			}}
		}},
	}
	w.variants = append(w.variants, poolVariants(false, func(tb testing.TB, p goPool, _ int) runner {
		t := newTiny(tb, what, n, nil)
		f := t.do
		return runner{run: func() int64 {
			for range n {
				p.Go(f)
			}
			return t.wait()
		}}
	})...)
	return w
}

// chainedSpawn: a chain of depth tasks, each spawning the next; the run
// ends when the last one runs. Every link runs the same func value: the
// shared counter, touched by one task at a time, says which link it is.
func chainedSpawn(depth int) workload {
	const what = "ChainedSpawn"
	w := workload{name: what, tasks: int64(depth), want: int64(depth)}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			t := newTiny(tb, what, depth, nil)
			var link func()
			link = func() {
				if t.ran.Add(1) == t.n {
					t.l.signal()
					return
				}
				go link()
			}
			return runner{run: func() int64 {
				go link()
				return t.wait()
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			t := newTiny(tb, what, depth, k)
			var link func(*kernel.Ctx)
			link = func(c *kernel.Ctx) {
				if t.ran.Add(1) == t.n {
					t.l.signal()
					return
				}
				c.Go(link)
			}
			return runner{k: k, run: func() int64 {
				submit(tb, k, link)
				return t.wait()
			}}
		}},
	}
	w.variants = append(w.variants, poolVariants(false, func(tb testing.TB, p goPool, size int) runner {
		t := newTiny(tb, what, depth, nil)
		spawn := spawnInside(p, size)
		var link func()
		link = func() {
			if t.ran.Add(1) == t.n {
				t.l.signal()
				return
			}
			spawn(link)
		}
		return runner{run: func() int64 {
			p.Go(link)
			return t.wait()
		}}
	})...)
	return w
}
