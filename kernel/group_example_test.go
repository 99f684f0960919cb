package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/vsched/vsched/kernel"
)

// A group of tasks added from outside the kernel and waited for there.
func ExampleKernel_NewGroup() {
	k, _ := kernel.New()
	defer k.Shutdown(context.Background())

	g := k.NewGroup(context.Background())
	var sum atomic.Int64
	for i := 1; i <= 100; i++ {
		g.Go(func(*kernel.Ctx) error {
			sum.Add(int64(i))
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		fmt.Println(err)
	}
	fmt.Println(sum.Load())
	// Output: 5050
}

// Tasks of a group may add more tasks to it; Wait waits for them all.
func ExampleGroup_Go() {
	k, _ := kernel.New()
	defer k.Shutdown(context.Background())

	g := k.NewGroup(nil)
	var visited atomic.Int64
	var walk func(depth int) func(*kernel.Ctx) error
	walk = func(depth int) func(*kernel.Ctx) error {
		return func(*kernel.Ctx) error {
			visited.Add(1)
			if depth > 0 {
				g.Go(walk(depth - 1)) // inside a task: runs next on this P
				g.Go(walk(depth - 1))
			}
			return nil
		}
	}
	g.Go(walk(9))
	g.Wait()
	fmt.Println(visited.Load(), "nodes")
	// Output: 1023 nodes
}

// Wait returns the first error; the other tasks still run.
func ExampleGroup_Wait() {
	k, _ := kernel.New()
	defer k.Shutdown(context.Background())

	errOdd := errors.New("odd input")
	g := k.NewGroup(nil)
	var done atomic.Int64
	for _, n := range []int{2, 4, 7, 8} {
		g.Go(func(*kernel.Ctx) error {
			defer done.Add(1)
			if n%2 != 0 {
				return fmt.Errorf("%d: %w", n, errOdd)
			}
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err, errors.Is(err, errOdd), done.Load())
	// Output: 7: odd input true 4
}

// At most two of the group's tasks are queued or running at once; the
// rest wait in the group's queue and start as others finish.
func ExampleGroup_SetLimit() {
	k, _ := kernel.New(kernel.WithProcs(4))
	defer k.Shutdown(context.Background())

	g := k.NewGroup(nil)
	g.SetLimit(2)
	var running, peak atomic.Int32
	for range 20 {
		g.Go(func(*kernel.Ctx) error {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			running.Add(-1)
			return nil
		})
	}
	g.Wait()
	fmt.Println(peak.Load() <= 2)
	// Output: true
}

// A task adds work to a limited group with TryGo and does the work itself
// when the group is full, so the group's queue never grows.
func ExampleGroup_TryGo() {
	k, _ := kernel.New(kernel.WithProcs(2))
	defer k.Shutdown(context.Background())

	g := k.NewGroup(nil)
	g.SetLimit(3) // the task below and two helpers
	var sum atomic.Int64
	g.Go(func(c *kernel.Ctx) error {
		for i := 1; i <= 100; i++ {
			work := func(*kernel.Ctx) error {
				sum.Add(int64(i))
				return nil
			}
			if ok, _ := g.TryGo(work); !ok {
				work(c) // no room: do it here
			}
		}
		return nil
	})
	g.Wait()
	fmt.Println(sum.Load())
	// Output: 5050
}

// The group's context is cancelled at its first error, so the tasks that
// look at it skip their work once a task has failed.
func ExampleGroup_Context() {
	k, _ := kernel.New(kernel.WithProcs(1)) // one P: here the tasks run in the order added
	defer k.Shutdown(context.Background())

	g := k.NewGroup(context.Background())
	ctx := g.Context()
	var done, skipped atomic.Int64
	for i := range 5 {
		g.Go(func(*kernel.Ctx) error {
			if ctx.Err() != nil {
				skipped.Add(1) // the group failed: do not start the work
				return nil
			}
			if i == 1 {
				return errors.New("bad record")
			}
			done.Add(1)
			return nil
		})
	}
	fmt.Println(g.Wait(), done.Load(), skipped.Load())
	// Output: bad record 1 3
}

// fibTask computes the nth Fibonacci number into out by fork/join: it
// adds its two halves to a group and joins it. The continuation belongs
// to fibTask's own group, so the parent's Join waits for it too.
func fibTask(k *kernel.Kernel, n int, out *int) func(*kernel.Ctx) error {
	return func(c *kernel.Ctx) error {
		if n < 2 {
			*out = n
			return nil
		}
		a, b := new(int), new(int)
		g := k.NewGroup(nil)
		g.Go(fibTask(k, n-1, a))
		g.Go(fibTask(k, n-2, b))
		c.Join(g, func(*kernel.Ctx, error) { *out = *a + *b })
		return nil // no worker waits for the halves
	}
}

// A task waits for its children with Join, which runs a continuation when
// they are done, instead of blocking.
func ExampleCtx_Join() {
	k, _ := kernel.New()
	defer k.Shutdown(context.Background())

	var out int
	root := k.NewGroup(nil)
	root.Go(fibTask(k, 20, &out))
	root.Wait()
	fmt.Println(out)
	// Output: 6765
}
