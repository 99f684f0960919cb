package kernel

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// chainOfJoins runs a chain of steps on k: each step adds a task to a new
// group and joins it, and the continuation is the next step, which runs
// on the record of the task that completed the group (runGroupTask). each
// runs in every step and every task; last in the last step.
func chainOfJoins(k *Kernel, steps int, each func(c *Ctx), last func(c *Ctx)) error {
	var step func(c *Ctx, i int)
	step = func(c *Ctx, i int) {
		each(c)
		if i == steps {
			last(c)
			return
		}
		g := k.NewGroup(nil)
		g.Go(func(c *Ctx) error { each(c); return nil })
		c.Join(g, func(c *Ctx, _ error) { step(c, i+1) })
	}
	return k.Go(func(c *Ctx) { step(c, 0) })
}

// Each continuation that runs on the record of the task before it is a
// run of its own for the monitor: the P's run count moves, so that a chain
// of short tasks is not taken for one long one (a stall).
func TestEachDirectContinuationIsANewRunForTheMonitor(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	const steps = 40
	seen := make(map[uint64]bool)
	done := make(chan bool, 1)
	err := chainOfJoins(k, steps, func(c *Ctx) {
		seen[c.m.p.ticks.Load()>>32] = true
	}, func(*Ctx) { done <- true })
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if runs := 2*steps + 1; len(seen) != runs {
		t.Fatalf("%d runs (a root, %d tasks and their continuations) saw %d run counts, want one each", runs, steps, len(seen))
	}
}

// A P busy with a chain of continuations still publishes its counters at
// least every publishEvery runs, although each run counts two (a task and
// the continuation it goes on with).
func TestStatsArePublishedDuringAChainOfContinuations(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	done := make(chan [2]uint64, 1)
	err := chainOfJoins(k, 300, func(*Ctx) {}, func(c *Ctx) {
		pp := c.m.p
		done <- [2]uint64{pp.c.tasksRun, pp.pub.tasksRun.Load()}
	})
	if err != nil {
		t.Fatal(err)
	}
	got := <-done
	if got[0]-got[1] > publishEvery {
		t.Fatalf("the P has run %d tasks and published %d: more than %d behind", got[0], got[1], publishEvery)
	}
}

// After Close, a Join continuation of a group whose last task finishes is
// dropped like anything a run spawns then, not run on that task's record.
func TestCloseDropsTheContinuationOfAGroupThatFinishesAfterIt(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	started := make(chan struct{})
	var ran atomic.Bool
	if err := k.Go(func(c *Ctx) {
		g := k.NewGroup(nil)
		g.Go(func(*Ctx) error {
			close(started)
			for k.state.Load() != stateStopped { // bounded: the test closes k
				runtime.Gosched()
			}
			return nil
		})
		c.Join(g, func(*Ctx, error) { ran.Store(true) })
	}); err != nil {
		t.Fatal(err)
	}
	<-started
	k.Close()
	if ran.Load() {
		t.Fatal("a continuation ran after Close")
	}
	if d := k.Stats().DroppedCount; d != 1 {
		t.Fatalf("%d tasks dropped, want the continuation", d)
	}
}
