package compare

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vsched/vsched/kernel"
)

// forkJoinFib computes fib(n) with one task per internal node of the call
// tree: a node spawns fib(n-1) as a new task and goes on with fib(n-2)
// itself. A tree for fib(n) has F(n+1)-1 internal nodes, so a run spawns
// F(n+1)-1 tasks, the divisor of ns/task.
//
// native is the textbook goroutine version: go for fib(n-1), a WaitGroup
// to join. A kernel task cannot block to join, so the kernel runs in
// continuation style: each internal node gets a fibFrame with a pending
// count of 2 (the spawned child and the inline branch), and whichever
// finishes second adds the two values and continues with the parent
// frame. The pools run the same continuation code, submitting with TryGo
// and running the child inline when the pool is saturated (a blocking
// nested submit deadlocks a bounded pool once every worker is submitting);
// they report the fraction of spawns run inline as inline/task. So does
// kernel-trygo, the kernel under the same policy with Ctx.TryGo, which
// declines while every P is busy and the spawner's queue holds a task.
// kernel-group, kernel-group-spine and kernel-group-walk join with task
// groups instead of frames (groupFib, groupFibSpine, groupFibWalk).
// kernel-spine and kernel-walk are the last two's shapes with hand-written
// joins (pathNode): what each shape costs without a Group.
func forkJoinFib(n int) workload {
	const what = "ForkJoinFib"
	w := workload{name: what, tasks: fibOf(n+1) - 1, want: fibOf(n)}
	// byHand is a variant of the kernel whose run submits the task root
	// makes for s, and waits for s's result; inline: it reports
	// inline/task.
	byHand := func(impl string, inline bool, root func(s *fibRun) func(*kernel.Ctx)) variant {
		return variant{impl, func(tb testing.TB) runner {
			k := newKernel(tb)
			s := &fibRun{l: newLatch(tb, what, k)}
			r := runner{k: k}
			if inline {
				r.inline = &s.inline
			}
			root := root(s)
			r.run = func() int64 {
				submit(tb, k, root)
				return s.wait()
			}
			return r
		}}
	}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			return runner{run: func() int64 { return fibNative(n) }}
		}},
		byHand("kernel", false, func(s *fibRun) func(*kernel.Ctx) {
			return func(c *kernel.Ctx) { s.kernelNode(c, n, nil) }
		}),
		byHand("kernel-spine", false, func(s *fibRun) func(*kernel.Ctx) {
			return func(c *kernel.Ctx) { s.pathNode(c, n, walkShort, &s.result, nil) }
		}),
		byHand("kernel-walk", false, func(s *fibRun) func(*kernel.Ctx) {
			return func(c *kernel.Ctx) { s.pathNode(c, n, walkLong, &s.result, nil) }
		}),
		byHand("kernel-trygo", true, func(s *fibRun) func(*kernel.Ctx) {
			return func(c *kernel.Ctx) { s.kernelTryNode(c, n, nil) }
		}),
	}
	w.variants = append(w.variants,
		variant{"kernel-group", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: groupFibRun(tb, k, n, groupFib)}
		}},
		variant{"kernel-group-spine", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: groupFibRun(tb, k, n, groupFibSpine)}
		}},
		variant{"kernel-group-walk", func(tb testing.TB) runner {
			k := newKernel(tb)
			return runner{k: k, run: groupFibRun(tb, k, n, groupFibWalk)}
		}},
	)
	w.variants = append(w.variants, poolVariants(true, func(tb testing.TB, p goPool, _ int) runner {
		s := &fibRun{l: newLatch(tb, what, nil)}
		root := func() { s.poolNode(p, n, nil) }
		return runner{inline: &s.inline, run: func() int64 {
			p.Go(root)
			return s.wait()
		}}
	})...)
	return w
}

// groupFibRun returns a run that computes fib(n) with node, a task of a
// root group made per run, and waits for that group from outside.
func groupFibRun(tb testing.TB, k *kernel.Kernel, n int, node func(*kernel.Kernel, int, *int64) func(*kernel.Ctx) error) func() int64 {
	return func() int64 {
		var out int64
		root := k.NewGroup(nil)
		if err := root.Go(node(k, n, &out)); err != nil {
			tb.Fatalf("kernel Group.Go: %v", err)
		}
		if err := root.Wait(); err != nil {
			tb.Fatalf("kernel Group.Wait: %v", err)
		}
		return out
	}
}

// groupFib is fork/join with task groups and nothing hand-written: the
// node fib(n) adds both halves as tasks of a new group and joins it; the
// continuation sums them into out. The continuation belongs to the node's
// own group, so the parent's Join waits for it. Each internal node costs
// two spawns and one continuation task (three tasks where kernel spawns
// one), a Group, and four closures.
func groupFib(k *kernel.Kernel, n int, out *int64) func(*kernel.Ctx) error {
	return func(c *kernel.Ctx) error {
		if n < 2 {
			*out = int64(n)
			return nil
		}
		halves := new([2]int64)
		g := k.NewGroup(nil)
		g.Go(groupFib(k, n-1, &halves[0]))
		g.Go(groupFib(k, n-2, &halves[1]))
		c.Join(g, func(*kernel.Ctx, error) { *out = halves[0] + halves[1] })
		return nil
	}
}

// groupFibSpine is groupFib in the shape of the continuation variants: the
// node spawns fib(n-1) and walks the fib(n-2) branch itself, spawning
// fib(n-1) of every node on the way, all into one group, so that it
// spawns one task per internal node, as kernel does. It then joins the
// group once and sums fib(n) = fib(n-1) + fib(n-3) + ... + fib(n mod 2).
// A task whose n >= 2 costs one continuation, a Group, a slice and its
// closures.
func groupFibSpine(k *kernel.Kernel, n int, out *int64) func(*kernel.Ctx) error {
	return func(c *kernel.Ctx) error {
		m := n
		if m < 2 {
			*out = int64(m)
			return nil
		}
		vals := make([]int64, m/2)
		g := k.NewGroup(nil)
		for i := 0; m >= 2; i, m = i+1, m-2 {
			g.Go(groupFibSpine(k, m-1, &vals[i]))
		}
		leaf := int64(m)
		c.Join(g, func(*kernel.Ctx, error) {
			sum := leaf
			for _, v := range vals {
				sum += v
			}
			*out = sum
		})
		return nil
	}
}

// groupFibWalk is groupFibSpine along the other branch: the node walks
// the fib(n-1) branch itself and spawns fib(n-2) at every node on the way,
// all into one group, and sums fib(n) = fib(n-2) + fib(n-3) + ... +
// fib(0) + fib(1). Its walks are longer, so fewer tasks join: only the
// 38% of them whose n >= 2 (a spawned fib(n-2) is a leaf at the 62% of
// internal nodes whose n is 2 or 3), where groupFibSpine's are 62%.
func groupFibWalk(k *kernel.Kernel, n int, out *int64) func(*kernel.Ctx) error {
	return func(c *kernel.Ctx) error {
		m := n
		if m < 2 {
			*out = int64(m)
			return nil
		}
		vals := make([]int64, m-1)
		g := k.NewGroup(nil)
		for i := 0; m >= 2; i, m = i+1, m-1 {
			g.Go(groupFibWalk(k, m-2, &vals[i]))
		}
		c.Join(g, func(*kernel.Ctx, error) {
			sum := int64(1) // fib(1), where the walk ends
			for _, v := range vals {
				sum += v
			}
			*out = sum
		})
		return nil
	}
}

// fibOf is the n-th Fibonacci number, fib(0) = 0, fib(1) = 1.
func fibOf(n int) int64 {
	a, b := int64(0), int64(1)
	for range n {
		a, b = b, a+b
	}
	return a
}

func fibNative(n int) int64 {
	if n < 2 {
		return int64(n)
	}
	var wg sync.WaitGroup
	var x int64
	wg.Add(1)
	go func() {
		x = fibNative(n - 1)
		wg.Done()
	}()
	y := fibNative(n - 2)
	wg.Wait()
	return x + y
}

// A fibFrame is the join of one internal node: vals[0] receives fib(n-1)
// from the spawned child, vals[1] fib(n-2) from the inline branch. Each
// writes its value and then decrements pending; the one that brings it to
// zero reads both (the atomic decrement orders the other's write before).
type fibFrame struct {
	pending int32
	vals    [2]int64
	parent  *fibFrame
	slot    int // this node's slot in parent.vals
}

type fibRun struct {
	l      *latch
	result int64
	inline atomic.Int64
}

func (s *fibRun) wait() int64 {
	s.l.wait()
	return s.result
}

// kernelNode runs the node fib(n) whose value goes to slot of parent.
func (s *fibRun) kernelNode(c *kernel.Ctx, n int, parent *fibFrame) {
	s.node(n, parent, 0, func(m int, f *fibFrame) {
		c.Go(func(c *kernel.Ctx) { s.kernelNode(c, m, f) })
	})
}

// kernelTryNode is kernelNode with the pools' policy: Ctx.TryGo, and the
// child inline when it declines (every P busy and work already queued here).
func (s *fibRun) kernelTryNode(c *kernel.Ctx, n int, parent *fibFrame) {
	s.node(n, parent, 0, func(m int, f *fibFrame) {
		child := func(c *kernel.Ctx) { s.kernelTryNode(c, m, f) }
		if !c.TryGo(child) {
			s.inline.Add(1)
			child(c)
		}
	})
}

func (s *fibRun) poolNode(p goPool, n int, parent *fibFrame) {
	s.node(n, parent, 0, func(m int, f *fibFrame) {
		child := func() { s.poolNode(p, m, f) }
		if !p.TryGo(child) {
			s.inline.Add(1)
			child()
		}
	})
}

// node walks the fib(n-2) branch inline, spawning fib(n-1) at every
// internal node, then completes the leaf it reaches.
func (s *fibRun) node(n int, parent *fibFrame, slot int, spawn func(m int, f *fibFrame)) {
	for n >= 2 {
		f := &fibFrame{pending: 2, parent: parent, slot: slot}
		spawn(n-1, f)
		n, parent, slot = n-2, f, 1
	}
	s.complete(parent, slot, int64(n))
}

// complete delivers v to slot of f and, for as long as it is the second
// arrival, continues with the sum into the parent frames.
func (s *fibRun) complete(f *fibFrame, slot int, v int64) {
	for f != nil {
		f.vals[slot] = v
		if atomic.AddInt32(&f.pending, -1) != 0 {
			return
		}
		v = f.vals[0] + f.vals[1]
		f, slot = f.parent, f.slot
	}
	s.result = v
	s.l.signal()
}

// A spineJoin is the join of a node written by hand (pathNode):
// one count for each spawned child and one held by the node until then is
// set; the arrival that brings the count to 0 runs then, which sums the
// values and arrives at the parent's join.
type spineJoin struct {
	pending atomic.Int32
	then    func()
}

// The branch that a node of pathNode walks itself, spawning the other
// child of every node on the way: the step from one node of its walk to
// the next.
const (
	walkShort = 2 // the fib(n-2) branch, spawning fib(n-1): groupFibSpine's shape
	walkLong  = 1 // the fib(n-1) branch, spawning fib(n-2): groupFibWalk's shape
)

// pathNode is groupFibSpine (step walkShort, kernel-spine) or
// groupFibWalk (walkLong, kernel-walk) with a spineJoin in place of the
// Group and Join, allocating the same (a closure per spawn, of the same
// size class; per node whose n >= 2 a join, a slice and the
// continuation): fib(n) goes to out, and the node then arrives at parent.
func (s *fibRun) pathNode(c *kernel.Ctx, n, step int, out *int64, parent *spineJoin) {
	m := n
	if m < 2 {
		*out = int64(m)
		s.arrive(parent)
		return
	}
	vals := make([]int64, (m-2)/step+1)
	j := &spineJoin{}
	j.pending.Store(1)
	for i := 0; m >= 2; i, m = i+1, m-step {
		j.pending.Add(1)
		child, slot := m-3+step, &vals[i] // fib(m-1) or fib(m-2)
		c.Go(func(c *kernel.Ctx) { s.pathNode(c, child, step, slot, j) })
	}
	leaf := int64(m)
	j.then = func() {
		sum := leaf
		for _, v := range vals {
			sum += v
		}
		*out = sum
		s.arrive(parent)
	}
	s.arrive(j)
}

// arrive counts one arrival at j, running its continuation at the last;
// the root's (nil) ends the run, its value already in s.result.
func (s *fibRun) arrive(j *spineJoin) {
	if j == nil {
		s.l.signal()
		return
	}
	if j.pending.Add(-1) == 0 {
		j.then()
	}
}
