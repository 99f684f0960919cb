package kernel

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
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

// A continuation that runs on the record of the task that completed its
// group is a new task: the Waker of the dead task, which its owner may
// still hold and Wake, must not wake the continuation. Here the dead task's
// Waker is woken right after the continuation's Park, before the park
// commits, where a shared Waker would make the continuation run again at
// once; the continuation must instead wait for its own Waker.
func TestTheWakerOfTheTaskBeforeADirectContinuationDoesNotWakeIt(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	var stale, own atomic.Pointer[Waker]
	var released atomic.Bool
	var taskRecord atomic.Pointer[g]
	type second struct {
		released, sameRecord bool
	}
	report := make(chan second, 1)
	if err := k.Go(func(c *Ctx) {
		grp := k.NewGroup(nil)
		taskRuns := 0
		grp.Go(func(c *Ctx) error {
			if taskRuns++; taskRuns == 1 {
				w := c.Park() // and woken at once: the task runs again
				stale.Store(w)
				w.Wake()
			}
			taskRecord.Store(c.g)
			return nil
		})
		thenRuns := 0
		c.Join(grp, func(c *Ctx, _ error) {
			if thenRuns++; thenRuns == 1 {
				own.Store(c.Park())
				stale.Load().Wake() // the dead task's Waker
				return
			}
			report <- second{released.Load(), c.g == taskRecord.Load()}
		})
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		select {
		case r := <-report:
			if !r.released {
				t.Fatal("the continuation ran again before its own Waker was woken: the Waker of the task before it on its record woke it")
			}
			if !r.sameRecord {
				t.Fatal("the continuation did not run on the record of the task that completed its group: the test tests nothing")
			}
			return
		default:
		}
		if w := own.Load(); w != nil && w.state.Load() == wParked && !released.Load() {
			released.Store(true)
			w.Wake()
		}
		if i > 10_000_000 {
			t.Fatal("the continuation neither parked nor ran again")
		}
		runtime.Gosched()
	}
}

// Shutdown runs everything admitted, the functions waiting in a group's
// limit queue included. A task that panics hands its slot of the limit to
// the next queued function as a finishing task does, from its own M: a
// hand-off made as from outside the kernel would be refused once
// Shutdown has begun, and the queued function dropped.
func TestATaskThatPanicsDuringShutdownStartsTheNextQueuedFunction(t *testing.T) {
	k := newStressKernel(t, WithProcs(1))
	grp := k.NewGroup(nil)
	grp.SetLimit(1)
	started := make(chan struct{})
	var queuedRan atomic.Bool
	if err := grp.Go(func(*Ctx) error {
		close(started)
		for i := 0; k.state.Load() != stateDraining; i++ { // bounded: the test shuts k down
			if i > 10_000_000 {
				panic("Shutdown never began")
			}
			runtime.Gosched()
		}
		panic("the task's own panic")
	}); err != nil {
		t.Fatal(err)
	}
	if err := grp.Go(func(*Ctx) error { queuedRan.Store(true); return nil }); err != nil {
		t.Fatal(err)
	}
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := k.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if !queuedRan.Load() {
		t.Errorf("the queued function never ran (%d tasks dropped)", k.Stats().DroppedCount)
	}
	var pe *PanicError
	if err := grp.Wait(); !errors.As(err, &pe) {
		t.Errorf("Wait returned %v, want the task's panic", err)
	}
}
