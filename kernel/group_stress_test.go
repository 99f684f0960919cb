package kernel

// Bounded stress tests of task groups on real cores, with the bounds and
// helpers of stress_test.go: each loop stops at a count or at the time
// budget, whichever comes first, and a wait longer than the hang bound
// fails the test instead of hanging it. They assert behaviour (each
// function runs exactly once, the limit is never exceeded, every result
// arrives) and never a timing.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// stressGroupWait waits for g with the hang bound.
func stressGroupWait(t testing.TB, k *Kernel, g *Group) error {
	t.Helper()
	res := make(chan error, 1)
	go func() { res <- g.Wait() }()
	select {
	case err := <-res:
		return err
	case <-time.After(stressHang()):
		t.Logf("goroutines:\n%s", stressStacks())
		t.Fatalf("Group.Wait did not return within %v (a lost continuation or wakeup); stats %+v", stressHang(), k.Stats())
		return nil
	}
}

// groupTree is a complete binary fork/join tree of tasks in heap order:
// each inner node adds its two children to a group of its own and joins
// it; the continuation, which belongs to the node's group, adds the
// children's results. A leaf's result is 1, so the root's is the number
// of leaves. The results are plain words: the group's protocol (a child's
// end before its group's completion, the completion before the
// continuation) is all that orders them, which the race detector checks.
type groupTree struct {
	k      *Kernel
	leaves int // nodes from leaves-1 on are leaves
	runs   []atomic.Int32
	conts  []atomic.Int32
	result []int64
}

func newGroupTree(k *Kernel, depth int) *groupTree {
	n := 1<<(depth+1) - 1
	return &groupTree{k: k, leaves: 1 << depth, runs: make([]atomic.Int32, n), conts: make([]atomic.Int32, n), result: make([]int64, n)}
}

func (tr *groupTree) tasks() int { return len(tr.runs) }

func (tr *groupTree) node(i int) func(*Ctx) error {
	return func(c *Ctx) error {
		tr.runs[i].Add(1)
		if i >= tr.leaves-1 {
			tr.result[i] = 1
			return nil
		}
		sub := tr.k.NewGroup(nil)
		if err := sub.Go(tr.node(2*i + 1)); err != nil {
			return err
		}
		if err := sub.Go(tr.node(2*i + 2)); err != nil {
			return err
		}
		c.Join(sub, func(_ *Ctx, err error) {
			tr.conts[i].Add(1)
			if err == nil {
				tr.result[i] = tr.result[2*i+1] + tr.result[2*i+2]
			}
		})
		return nil
	}
}

// check asserts that every node ran once, every inner node's continuation
// ran once, and the root's result counts every leaf.
func (tr *groupTree) check() error {
	for i := range tr.runs {
		if n := tr.runs[i].Load(); n != 1 {
			return fmt.Errorf("node %d ran %d times, want once", i, n)
		}
		if n, inner := tr.conts[i].Load(), i < tr.leaves-1; inner && n != 1 || !inner && n != 0 {
			return fmt.Errorf("the continuation of node %d (inner %v) ran %d times", i, inner, n)
		}
	}
	if tr.result[0] != int64(tr.leaves) {
		return fmt.Errorf("the root's result is %d, want %d leaves", tr.result[0], tr.leaves)
	}
	return nil
}

// TestStressGroupForkJoinTreesRunEveryTaskAndContinuationOnce pushes
// fork/join trees built of groups and Joins through kernels of 1,
// GOMAXPROCS and 2*GOMAXPROCS+1 Ps: on each, a tree of a million tasks
// (2^20-1, and half as many continuations); under -race, where that takes
// half a minute, trees of 65,535; under -short, of 2,047. Each tree's
// root waits with Group.Wait. Trees follow each other until the count or
// the budget is reached, whichever is first; the first always runs.
func TestStressGroupForkJoinTreesRunEveryTaskAndContinuationOnce(t *testing.T) {
	procs := stressProcs()
	budget := stressBudget() / time.Duration(len(procs))
	target := stressSize(1_000_000, 60_000, 2_000)
	depth := 19
	switch {
	case testing.Short():
		depth = 10
	case stressRace:
		depth = 15
	}
	for _, np := range procs {
		t.Run(fmt.Sprintf("procs=%d", np), func(t *testing.T) {
			k := newStressKernel(t, WithProcs(np))
			clock := newStressClock(budget)
			total := 0
			for total == 0 || total < target && !clock.expired() {
				tr := newGroupTree(k, depth)
				root := k.NewGroup(nil)
				if err := root.Go(tr.node(0)); err != nil {
					t.Fatal(err)
				}
				if err := stressGroupWait(t, k, root); err != nil {
					t.Fatalf("the root group's Wait: %v", err)
				}
				if err := tr.check(); err != nil {
					t.Fatal(err)
				}
				total += tr.tasks()
			}
			t.Logf("%d tasks in trees of %d", total, 1<<(depth+1)-1)
			stressShutdown(t, k)
		})
	}
}

// TestStressGroupLimitHoldsUnderContention: outside goroutines (with Go,
// GoWait, and TryGo falling back to GoWait, in turn) and the group's own tasks (each may add a
// child to the group, with Go or TryGo) add functions to one group while
// another goroutine keeps changing its limit among 1, 2 and 4. No more of
// them may run at once than the largest limit, each function added runs
// exactly once, and one that TryGo declined never runs.
func TestStressGroupLimitHoldsUnderContention(t *testing.T) {
	const maxLimit = 4
	target := stressSize(200_000, 40_000, 4_000)
	const adders = 6
	const chain = 3 // a function adds at most this many generations below it
	k := newStressKernel(t, WithProcs(4))
	g := k.NewGroup(nil)
	g.SetLimit(2) // before any task: every function counts
	ran := make([]atomic.Int32, (target+adders)*(chain+1))
	declined := make([]atomic.Bool, len(ran))
	var next, running, peak atomic.Int64
	// tryGo adds f as function id with TryGo, and records a decline.
	tryGo := func(id int64, f func(*Ctx) error) error {
		ok, err := g.TryGo(f)
		if err == nil && !ok {
			declined[id].Store(true)
		}
		return err
	}
	var fn func(id int64, gen int) func(*Ctx) error
	fn = func(id int64, gen int) func(*Ctx) error {
		return func(*Ctx) error {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			ran[id].Add(1)
			if gen < chain && id%2 == 0 {
				child := next.Add(1) - 1
				var err error
				if id%4 == 0 {
					err = g.Go(fn(child, gen+1))
				} else {
					err = tryGo(child, fn(child, gen+1))
				}
				if err != nil {
					t.Errorf("Go or TryGo from a task: %v", err)
				}
			}
			running.Add(-1)
			return nil
		}
	}
	clock := newStressClock(stressBudget())
	var wg sync.WaitGroup
	var stop atomic.Bool
	for a := range adders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for int(next.Load()) < target && !clock.expired() {
				id := next.Add(1) - 1
				var err error
				switch a % 3 {
				case 0:
					err = g.Go(fn(id, 0))
				case 1:
					err = g.GoWait(fn(id, 0))
				default:
					// Declined, the adder waits for room with the
					// next function, as a caller that must not
					// spin would.
					if err = tryGo(id, fn(id, 0)); err == nil && declined[id].Load() {
						id = next.Add(1) - 1
						err = g.GoWait(fn(id, 0))
					}
				}
				if err != nil {
					t.Errorf("adder %d: %v", a, err)
					return
				}
			}
		}()
	}
	limiterDone := make(chan struct{})
	go func() {
		defer close(limiterDone)
		rng := rand.New(rand.NewPCG(1, 2))
		for !stop.Load() {
			g.SetLimit([]int{1, 2, maxLimit}[rng.IntN(3)])
		}
	}()
	wg.Wait()
	stop.Store(true)
	<-limiterDone
	g.SetLimit(maxLimit)
	if err := stressGroupWait(t, k, g); err != nil {
		t.Fatal(err)
	}
	added, nDeclined := int(next.Load()), 0
	for id := range added {
		want := int32(1)
		if declined[id].Load() {
			want = 0
			nDeclined++
		}
		if n := ran[id].Load(); n != want {
			t.Fatalf("function %d ran %d times, want %d (declined by TryGo: %v)", id, n, want, want == 0)
		}
	}
	for id := added; id < len(ran); id++ {
		if n := ran[id].Load(); n != 0 {
			t.Fatalf("function %d, never added, ran %d times", id, n)
		}
	}
	if p := peak.Load(); p < 1 || p > maxLimit {
		t.Fatalf("at most %d functions ran at once, want between 1 and the largest limit, %d", p, maxLimit)
	}
	t.Logf("%d functions, %d of them declined by TryGo, at most %d at once", added, nDeclined, peak.Load())
	stressShutdown(t, k)
}

// TestStressGroupErrorCancelsATreeMidWay: a tree of tasks in one group,
// each adding its two children to the group, in which one inner task
// fails. Its error cancels the group's Context; a task that finds it
// cancelled adds no children. Every task added runs exactly once, Wait
// returns the error, and the context's cause is that error. How many
// tasks stop early depends on when the failing task runs; the test logs
// it and asserts nothing of it.
func TestStressGroupErrorCancelsATreeMidWay(t *testing.T) {
	depth := 17
	if stressRace {
		depth = 15
	}
	if testing.Short() {
		depth = 11
	}
	rounds := stressSize(4, 2, 2)
	clock := newStressClock(stressBudget())
	for r := 0; r < rounds && !clock.expired(); r++ {
		n := 1<<(depth+1) - 1
		k := newStressKernel(t, WithProcs(4))
		g := k.NewGroup(context.Background())
		ctx := g.Context()
		boom := errors.New("boom")
		failing := (r*7919 + n/3) % (n / 2) // an inner node
		added := make([]atomic.Int32, n)
		ran := make([]atomic.Int32, n)
		var stopped atomic.Int64
		var node func(i int) func(*Ctx) error
		node = func(i int) func(*Ctx) error {
			return func(*Ctx) error {
				ran[i].Add(1)
				if i == failing {
					return boom
				}
				if ctx.Err() != nil {
					stopped.Add(1)
					return nil // cancelled: stops early
				}
				for _, child := range []int{2*i + 1, 2*i + 2} {
					if child < n {
						added[child].Add(1)
						if err := g.Go(node(child)); err != nil {
							return err
						}
					}
				}
				return nil
			}
		}
		added[0].Add(1)
		if err := g.Go(node(0)); err != nil {
			t.Fatal(err)
		}
		if err := stressGroupWait(t, k, g); err != boom {
			t.Fatalf("Wait returned %v, want the failing task's error", err)
		}
		if cause := context.Cause(ctx); cause != boom {
			t.Fatalf("the group's context ended with cause %v, want the task's error", cause)
		}
		total := 0
		for i := range n {
			a, r := added[i].Load(), ran[i].Load()
			if a > 1 || a != r {
				t.Fatalf("node %d was added %d times and ran %d times", i, a, r)
			}
			total += int(r)
		}
		if ran[failing].Load() != 1 {
			t.Fatal("the failing node did not run")
		}
		t.Logf("round %d: %d of %d tasks ran, %d stopped early at the cancellation", r, total, n, stopped.Load())
		stressShutdown(t, k)
	}
}

// TestStressGroupReusedWhileItCompletes reuses each group at once: a task
// joins it while its only task finishes on the other P, and the test's
// goroutine adds a failing task to it meanwhile, so that the Go often
// lands while the completion of the first task is still taking the
// continuation and the first error. The continuation must run once and
// receive nil (the group was done before the failing task came) or the
// error (it waited for it), and Wait must return the error. Under -race
// it also checks that the completion reads the group's state only under
// the group's lock, where the failing task writes its error: a read after
// the unlock races that write.
func TestStressGroupReusedWhileItCompletes(t *testing.T) {
	k := newStressKernel(t, WithProcs(2))
	boom := errors.New("boom")
	rounds := stressSize(3000, 3000, 300)
	clock := newStressClock(stressBudget())
	var r int
	for r = 0; r < rounds && !clock.expired(); r++ {
		g := k.NewGroup(nil)
		g.Context() // the error's place exists before the first task ends
		got := make(chan error, 1)
		var conts atomic.Int32
		if err := k.Go(func(c *Ctx) {
			if err := g.Go(func(*Ctx) error { return nil }); err != nil {
				panic(err)
			}
			c.Join(g, func(_ *Ctx, err error) {
				conts.Add(1)
				got <- err
			})
		}); err != nil {
			t.Fatal(err)
		}
		for range r % 5 {
			runtime.Gosched() // vary where the Go below falls
		}
		if err := g.Go(func(*Ctx) error { return boom }); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-got:
			if err != nil && err != boom {
				t.Fatalf("round %d: the continuation received %v, want nil or the failing task's error", r, err)
			}
		case <-time.After(stressHang()):
			t.Fatalf("round %d: the continuation did not run within %v", r, stressHang())
		}
		if err := stressGroupWait(t, k, g); err != boom {
			t.Fatalf("round %d: Wait returned %v, want the failing task's error", r, err)
		}
		if n := conts.Load(); n != 1 {
			t.Fatalf("round %d: the continuation ran %d times", r, n)
		}
	}
	t.Logf("%d rounds", r)
	stressShutdown(t, k)
}
