package compare

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/vsched/vsched/kernel"
)

// The task-group workloads (issue 29): a group is made per run, filled
// from the benchmark goroutine, outside any scheduler, and waited for with
// the group's own Wait, so that the cost of the group itself (its count,
// its completion, its wake-up of the waiter) is part of what is measured.
// Every task is the same func value, made once per benchmark, that adds
// one to a counter; a run returns the count, which must be the number of
// tasks added.

// groupCounter is the tiny task of the group workloads.
type groupCounter struct{ ran atomic.Int64 }

func (c *groupCounter) add()          { c.ran.Add(1) }
func (c *groupCounter) addErr() error { c.ran.Add(1); return nil }
func (c *groupCounter) take() int64   { return c.ran.Swap(0) }

func (c *groupCounter) kernelTask() func(*kernel.Ctx) error {
	return func(*kernel.Ctx) error { c.ran.Add(1); return nil }
}

// kernelGroupRun returns a run that adds n copies of task to a new group
// of k with add (Group.Go or Group.GoWait), after SetLimit(limit) if
// limit > 0, and waits for the group.
func kernelGroupRun(tb testing.TB, k *kernel.Kernel, n, limit int, goWait bool) func() int64 {
	c := new(groupCounter)
	task := c.kernelTask()
	return func() int64 {
		g := k.NewGroup(nil)
		if limit > 0 {
			g.SetLimit(limit)
		}
		add := g.Go
		if goWait {
			add = g.GoWait
		}
		for range n {
			if err := add(task); err != nil {
				tb.Fatalf("kernel Group.Go: %v", err)
			}
		}
		if err := g.Wait(); err != nil {
			tb.Fatalf("kernel Group.Wait: %v", err)
		}
		return c.take()
	}
}

// errgroupRun is the same with a new errgroup.Group per run, limited to
// limit when limit > 0 (its Go then blocks for a slot).
func errgroupRun(tb testing.TB, n, limit int) func() int64 {
	c := new(groupCounter)
	task := c.addErr
	return func() int64 {
		var g errgroup.Group
		if limit > 0 {
			g.SetLimit(limit)
		}
		for range n {
			g.Go(task)
		}
		if err := g.Wait(); err != nil {
			tb.Fatalf("errgroup Wait: %v", err)
		}
		return c.take()
	}
}

// pondGroupRun submits to a new group of a pond pool bounded at workers,
// the pool made once per benchmark. Its queue is unbounded, so Submit
// never blocks.
func pondGroupRun(tb testing.TB, n, workers int) func() int64 {
	p := pond.NewPool(workers)
	tb.Cleanup(p.StopAndWait)
	c := new(groupCounter)
	task := c.add
	return func() int64 {
		g := p.NewGroup()
		for range n {
			g.Submit(task)
		}
		if err := g.Wait(); err != nil {
			tb.Fatalf("pond group Wait: %v", err)
		}
		return c.take()
	}
}

// concPoolRun uses a new conc pool.Pool per run (a v0.3.0 pool cannot be
// reused after Wait), limited to limit goroutines when limit > 0. Without
// a limit its Go hands the task to an idle worker over an unbuffered
// channel or starts a new worker goroutine; with one it blocks for a
// worker once limit of them run.
func concPoolRun(n, limit int) func() int64 {
	c := new(groupCounter)
	task := c.add
	return func() int64 {
		p := pool.New()
		if limit > 0 {
			p = p.WithMaxGoroutines(limit)
		}
		for range n {
			p.Go(task)
		}
		p.Wait()
		return c.take()
	}
}

// groupFanOut: n tiny tasks added one by one to one group from outside,
// then Wait. The bounded variants (errgroup-limit, pond-group) are
// limited to GOMAXPROCS.
func groupFanOut(n int) workload {
	w := workload{name: "GroupFanOut", tasks: int64(n), want: int64(n)}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			c := new(groupCounter)
			task := c.add
			return runner{run: func() int64 {
				var wg sync.WaitGroup
				for range n {
					wg.Go(task)
				}
				wg.Wait()
				return c.take()
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: kernelGroupRun(tb, k, n, 0, false)}
		}},
		{"errgroup", func(tb testing.TB) runner {
			return runner{run: errgroupRun(tb, n, 0)}
		}},
		{"errgroup-limit", func(tb testing.TB) runner {
			return runner{run: errgroupRun(tb, n, procs())}
		}},
		{"conc-pool", func(tb testing.TB) runner {
			return runner{run: concPoolRun(n, 0)}
		}},
		{"conc-waitgroup", func(tb testing.TB) runner {
			c := new(groupCounter)
			task := c.add
			return runner{run: func() int64 {
				wg := conc.NewWaitGroup()
				for range n {
					wg.Go(task)
				}
				wg.Wait()
				return c.take()
			}}
		}},
		{"pond-group", func(tb testing.TB) runner {
			return runner{run: pondGroupRun(tb, n, procs())}
		}},
	}
	return w
}

// groupLimit: n tiny tasks added from outside to one group that runs at
// most limit at once, then Wait. kernel: Group.SetLimit, Go queues in the
// group's FIFO and never blocks; kernel-gowait: GoWait, which blocks the
// submitter while the group is at its limit; errgroup: SetLimit, Go
// blocks; pond: a pool of limit workers and a group on it, Submit queues;
// conc-pool: WithMaxGoroutines(limit), Go blocks.
func groupLimit(n, limit int) workload {
	w := workload{name: "GroupLimit", tasks: int64(n), want: int64(n)}
	w.variants = []variant{
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: kernelGroupRun(tb, k, n, limit, false)}
		}},
		{"kernel-gowait", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: kernelGroupRun(tb, k, n, limit, true)}
		}},
		{"errgroup", func(tb testing.TB) runner {
			return runner{run: errgroupRun(tb, n, limit)}
		}},
		{"pond", func(tb testing.TB) runner {
			return runner{run: pondGroupRun(tb, n, limit)}
		}},
		{"conc-pool", func(tb testing.TB) runner {
			return runner{run: concPoolRun(n, limit)}
		}},
	}
	return w
}
