package kernel_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// The hot paths allocate nothing beyond the caller's closure
// (ARCHITECTURE.md, "Performance rules"). These tests measure each path
// with testing.AllocsPerRun, which counts the mallocs of the whole process
// (the kernel's workers and monitor included) while the measured function
// runs, and divides by the number of runs, rounding down. Every closure is
// made once, outside the measured function, so the expected count is 0.
//
// Steady state is what is measured: first fillFreeLists makes allocFill
// task records at once, more than the runs ever hold (a run's tasks, and
// the at most gfreeMax-1 records each P's own free list keeps from the
// others), and frees them, and the measured function runs allocWarm
// times. After that a record is allocated only if the free lists run dry,
// which the fill rules out whatever the scheduling, and an M only in the
// rare race in which every M is busy as wakep finds an idle P: a bounded
// number of allocations in the whole test, fewer than allocRuns, so the
// count per run rounds down to 0. A path that allocates on every call
// counts at least 1.

const (
	allocFill = 1024 // records fillFreeLists makes for the small runs
	allocWarm = 20   // runs of the measured function before measuring
	allocRuns = 500  // measured runs
)

// allocKernel returns a kernel of 2 Ps that the test shuts down at its
// end, or skips the test in a build whose counts are not the default
// build's (allocSkip).
func allocKernel(t *testing.T) *kernel.Kernel {
	t.Helper()
	if allocSkip != "" {
		t.Skip(allocSkip)
	}
	k, err := kernel.New(kernel.WithProcs(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := k.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v; stats %+v", err, k.Stats())
		}
	})
	return k
}

// steadyAllocs fills k's free lists, warms f up and returns
// testing.AllocsPerRun(allocRuns, f).
func steadyAllocs(t *testing.T, k *kernel.Kernel, f func()) float64 {
	t.Helper()
	fillFreeLists(t, k, allocFill)
	for range allocWarm {
		f()
	}
	return testing.AllocsPerRun(allocRuns, f)
}

// fillFreeLists leaves at least n task records on k's free lists: n tasks
// park, all of them before any is woken, so that n records exist at once
// however the Ps run them, and then finish. Tasks that merely ran one
// after another, or a few at a time, would make only as many records as
// were alive at once.
func fillFreeLists(t *testing.T, k *kernel.Kernel, n int) {
	t.Helper()
	wakers := make([]*kernel.Waker, n)
	var parked, finished atomic.Int32
	allParked, allFinished := make(chan struct{}), make(chan struct{})
	for i := range wakers {
		woken := false
		err := k.Go(func(c *kernel.Ctx) {
			if !woken {
				woken = true
				wakers[i] = c.Park()
				if parked.Add(1) == int32(n) {
					close(allParked)
				}
				return
			}
			if finished.Add(1) == int32(n) {
				close(allFinished)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	<-allParked
	for _, w := range wakers {
		w.Wake()
	}
	<-allFinished
}

// countdown is a set of tasks of which the last to run reports on done.
type countdown struct {
	left atomic.Int32
	done chan struct{}
}

func newCountdown() *countdown { return &countdown{done: make(chan struct{}, 1)} }

func (cd *countdown) start(n int32) { cd.left.Store(n) }

func (cd *countdown) task(*kernel.Ctx) {
	if cd.left.Add(-1) == 0 {
		cd.done <- struct{}{}
	}
}

func TestKernelGoAllocatesNothingButTheClosure(t *testing.T) {
	k := allocKernel(t)
	const tasks = 16
	cd := newCountdown()
	task := cd.task
	allocs := steadyAllocs(t, k, func() {
		cd.start(tasks)
		for range tasks {
			if err := k.Go(task); err != nil {
				t.Fatal(err)
			}
		}
		<-cd.done
	})
	if allocs != 0 {
		t.Errorf("Kernel.Go of %d tasks and their runs: %v allocations, want 0", tasks, allocs)
	}
}

// fanOut returns a function that runs a task that spawns n children with
// Ctx.Go, and waits until they have run.
func fanOut(t *testing.T, k *kernel.Kernel, n int32) func() {
	cd := newCountdown()
	child := cd.task
	parent := func(c *kernel.Ctx) {
		for range n {
			c.Go(child)
		}
	}
	return func() {
		cd.start(n)
		if err := k.Go(parent); err != nil {
			t.Fatal(err)
		}
		<-cd.done
	}
}

func TestCtxGoAllocatesNothingButTheClosure(t *testing.T) {
	k := allocKernel(t)
	const children = 16
	allocs := steadyAllocs(t, k, fanOut(t, k, children))
	if allocs != 0 {
		t.Errorf("a task's Ctx.Go of %d children and their runs: %v allocations, want 0", children, allocs)
	}
}

// A task that spawns more children than its P's ring holds sends half of
// them to the global queue at a time; once the free lists hold a record
// for every child (how many are alive at once depends on how soon the
// other P steals) and the first bursts have grown the global ring, a burst
// allocates nothing: the ring is kept while it is empty (runq.Global keeps
// up to 64 Ki slots) and the records come back from the free lists.
func TestARepeatedBurstOfSpawnsAllocatesNothingOnceWarm(t *testing.T) {
	k := allocKernel(t)
	const children = 10000
	burst := fanOut(t, k, children)
	fillFreeLists(t, k, children+allocFill)
	for range allocWarm {
		burst()
	}
	if allocs := testing.AllocsPerRun(50, burst); allocs != 0 {
		t.Errorf("a task's burst of %d children: %v allocations per burst, want 0", children, allocs)
	}
}

// pingPong is two tasks that take turns: each run parks its task and
// wakes the other, until left runs out; the task that finds it out
// reports on done. Each run stores its task's Waker anew, so that the
// other side always wakes the current park.
type pingPong struct {
	w    [2]*kernel.Waker
	left atomic.Int32
	done chan struct{}
}

func (pp *pingPong) task(i int) func(*kernel.Ctx) {
	return func(c *kernel.Ctx) {
		pp.w[i] = c.Park()
		if pp.left.Add(-1) < 0 {
			pp.done <- struct{}{}
			return
		}
		pp.w[1-i].Wake()
	}
}

func TestParkAndWakeAllocateNothing(t *testing.T) {
	k := allocKernel(t)
	const turns = 16
	pp := &pingPong{done: make(chan struct{}, 1)}
	// Each task's first run parks it and reports; neither wakes the other
	// yet (left is 0).
	for i := range 2 {
		if err := k.Go(pp.task(i)); err != nil {
			t.Fatal(err)
		}
		<-pp.done
	}
	allocs := steadyAllocs(t, k, func() {
		pp.left.Store(turns)
		pp.w[0].Wake() // from outside: the global queue; then from task to task
		<-pp.done
	})
	if allocs != 0 {
		t.Errorf("%d park/wake turns between two tasks: %v allocations, want 0", turns, allocs)
	}
}

// TestGoBatchAllocatesOneSlicePerCall holds both GoBatch methods to their
// documented bound: one allocation per call (the batch of task pointers),
// whatever the number of functions.
func TestGoBatchAllocatesOneSlicePerCall(t *testing.T) {
	const tasks = 16
	cd := newCountdown()
	fns := make([]func(*kernel.Ctx), tasks)
	for i := range fns {
		fns[i] = cd.task
	}
	spawner := func(c *kernel.Ctx) { c.GoBatch(fns...) }
	for _, c := range []struct {
		name  string
		batch func(k *kernel.Kernel) error
	}{
		{"Kernel.GoBatch", func(k *kernel.Kernel) error { return k.GoBatch(fns...) }},
		{"Ctx.GoBatch", func(k *kernel.Kernel) error { return k.Go(spawner) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			k := allocKernel(t)
			allocs := steadyAllocs(t, k, func() {
				cd.start(tasks)
				if err := c.batch(k); err != nil {
					t.Fatal(err)
				}
				<-cd.done
			})
			if allocs > 1 {
				t.Errorf("%s of %d functions and their runs: %v allocations, want at most 1", c.name, tasks, allocs)
			}
		})
	}
}
