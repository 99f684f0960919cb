package kernel_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/vsched/vsched/kernel"
)

// A tree of tasks: each spawns its children into its P's runnext, and
// Shutdown returns once every one of them has run.
func Example() {
	k, err := kernel.New()
	if err != nil {
		panic(err)
	}
	var ran atomic.Int64
	var node func(depth int) func(*kernel.Ctx)
	node = func(depth int) func(*kernel.Ctx) {
		return func(c *kernel.Ctx) {
			ran.Add(1)
			if depth > 0 {
				c.Go(node(depth - 1))
				c.Go(node(depth - 1))
			}
		}
	}
	k.Go(node(10))
	if err := k.Shutdown(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println("tasks run:", ran.Load(), "stats:", k.Stats().PollCount)
	// Output: tasks run: 2047 stats: 2047
}

// A parallel sum that splits its range with TryGo: while a P could take
// the other half, it becomes a task; once every P is busy and this P has
// queued work, the half is summed inline, so a saturated kernel stops
// paying for tasks.
func ExampleCtx_TryGo() {
	k, err := kernel.New()
	if err != nil {
		panic(err)
	}
	var total atomic.Int64
	var sum func(c *kernel.Ctx, lo, hi int)
	sum = func(c *kernel.Ctx, lo, hi int) {
		for hi-lo > 1000 {
			mid, top := lo+(hi-lo)/2, hi
			upper := func(c *kernel.Ctx) { sum(c, mid, top) }
			if !c.TryGo(upper) {
				upper(c)
			}
			hi = mid
		}
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		total.Add(int64(s))
	}
	k.Go(func(c *kernel.Ctx) { sum(c, 0, 1_000_000) })
	if err := k.Shutdown(context.Background()); err != nil {
		panic(err)
	}
	fmt.Println(total.Load())
	// Output: 499999500000
}

// Park and Wake: a consumer task parks until a producer goroutine wakes it;
// each time it runs, its function starts from the top, with its state in the
// closure. A Wake that comes before the park commits is not lost.
func ExampleWaker_Wake() {
	k, _ := kernel.New(kernel.WithProcs(2))
	items := make(chan int, 3)
	wakers := make(chan *kernel.Waker, 1)
	sum := 0
	k.Go(func(c *kernel.Ctx) {
		for {
			select {
			case v, ok := <-items:
				if !ok {
					return // done: the task is dead
				}
				sum += v
				continue
			default:
			}
			wakers <- c.Park() // wait for more, then run again
			return
		}
	})
	for _, v := range []int{1, 2, 3} {
		w := <-wakers
		items <- v
		w.Wake()
	}
	w := <-wakers
	close(items)
	w.Wake()
	k.Shutdown(context.Background())
	fmt.Println("sum:", sum)
	// Output: sum: 6
}

// Block hands the P to another M while a task waits for something outside
// the kernel, so that the other tasks go on, even on a single P.
func ExampleCtx_Block() {
	k, _ := kernel.New(kernel.WithProcs(1), kernel.WithBlockHandoff(kernel.HandoffEager))
	ready := make(chan struct{})
	k.Go(func(c *kernel.Ctx) {
		c.Go(func(*kernel.Ctx) { close(ready) }) // needs the P we hold
		c.Block(func() { <-ready })
		fmt.Println("unblocked")
	})
	k.Shutdown(context.Background())
	fmt.Println("hand-offs:", k.Stats().HandoffCount)
	// Output:
	// unblocked
	// hand-offs: 1
}

// Tasks of a kind are named in the tools that watch a program: the stall
// hook's report, a region per run in the execution tracer, and the pprof
// label vsched.kind in CPU profiles. To see the regions, capture a trace of
// this example and open it:
//
//	go test -run '^ExampleNewKind$' -trace vsched.trace ./kernel
//	go tool trace vsched.trace
//
// then "User-defined regions" lists "parse" and "vsched.task" (the spawned
// children, which have no kind), and the goroutine views show the steals,
// parks and hand-offs as logged events. Without a browser,
// go tool trace -d=parsed vsched.trace | grep RegionBegin lists the 200
// regions.
func ExampleNewKind() {
	k, err := kernel.New(kernel.WithProcs(2), kernel.WithHistograms())
	if err != nil {
		panic(err)
	}
	parse := kernel.NewKind("parse")
	var done sync.WaitGroup
	done.Add(100)
	for range 100 {
		k.GoKind(parse, func(c *kernel.Ctx) {
			c.Go(func(*kernel.Ctx) { done.Done() })
		})
	}
	done.Wait()
	k.Shutdown(context.Background())
	s := k.Stats()
	fmt.Println("runs:", s.PollCount, "timed:", s.PollTime.Total())
	// Output: runs: 200 timed: 200
}
