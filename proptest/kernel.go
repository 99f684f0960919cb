package proptest

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// CheckKernel drives a deterministic single-M run of the real kernel and
// spec.Scheduler in lock step. The test's goroutine is the kernel's only M
// (a kernel without workers, made for this module's tests): it submits
// tasks, schedules a P of its choice, and wakes parked tasks from outside;
// each task, when the kernel runs it, draws what it does while it runs
// (spawn, yield, park, wake another task) and does it on both. After every
// step the task that ran, whether it inherited the time slice, every local
// queue's length and the global queue's length must agree with the
// specification, whose own invariants are checked too.
func CheckKernel(t *rapid.T) {
	s := newKernelSystem(t, rapid.IntRange(1, 4).Draw(t, "procs"))
	t.Repeat(map[string]func(*rapid.T){
		"submit":   s.submit,
		"schedule": s.schedule,
		"wake":     s.wakeFromOutside,
		// Long runs on one P, so that schedtick reaches the 61-tick
		// check with work both local and global.
		"submit many": func(t *rapid.T) {
			for range rapid.IntRange(50, 150).Draw(t, "submits") {
				s.submit(t)
			}
		},
		"schedule many": func(t *rapid.T) {
			p := rapid.IntRange(0, s.procs-1).Draw(t, "P of the run")
			for range rapid.IntRange(1, 150).Draw(t, "schedules") {
				if !s.scheduleOn(t, p) {
					return
				}
			}
		},
		"": s.check,
	})
}

// CheckKernelStealPasses is CheckKernel from a state that its random
// walk reaches too rarely to be a check: an idle P steals while the other
// Ps hold nothing, only a runnext, or ring items as well. Each of those Ps
// first runs a task that spawns 0 to 3 children (the first child lands in
// runnext, each later one kicks the one before to the ring). The runtime
// takes a victim's runnext only on the last of its four passes, so a thief
// whose order meets a P with only a runnext first must pass it by and
// steal the ring items of a P behind it.
func CheckKernelStealPasses(t *rapid.T) {
	s := newKernelSystem(t, rapid.IntRange(3, 4).Draw(t, "procs"))
	thief := rapid.IntRange(0, s.procs-1).Draw(t, "thief")
	for p := range s.procs {
		if p == thief {
			continue
		}
		s.submitSpawner(t, rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("children spawned on P%d", p)))
		if !s.scheduleOn(t, p) {
			mismatch(t, "P%d ran nothing although a task was submitted", p)
		}
		s.check(t)
	}
	for range rapid.IntRange(1, 3).Draw(t, "steals") {
		s.scheduleOn(t, thief)
		s.check(t)
	}
}

// kernelSystem is the kernel and its specification, operated together.
type kernelSystem struct {
	t      *rapid.T // the current step's
	mk     testhook.Manual
	k      *kernel.Kernel
	s      *spec.Scheduler
	procs  int
	wakers map[int]kernelWaker // by task: its last park
	runs   int                 // task runs so far

	// The run in progress.
	p   int // the P it runs on
	ran int // the task that ran, as the task itself reports
}

// kernelWaker is one park of a task in the kernel and in the specification.
type kernelWaker struct {
	real *kernel.Waker
	spec spec.Waker
}

// newKernelSystem returns a manual kernel of procs Ps and its
// specification.
func newKernelSystem(t *rapid.T, procs int) *kernelSystem {
	mk, err := testhook.NewManual(procs)
	if err != nil {
		t.Fatal(err)
	}
	return &kernelSystem{t: t, mk: mk, k: mk.Kernel().(*kernel.Kernel), s: spec.NewScheduler(procs, runq.Size),
		procs: procs, wakers: map[int]kernelWaker{}}
}

func (s *kernelSystem) submit(t *rapid.T) {
	s.t = t
	g := s.s.Submit()
	must(t, s.k.Go(s.task(g)))
}

// task is the function of task g: it reports that it ran and draws what it
// does while it runs.
func (s *kernelSystem) task(g int) func(*kernel.Ctx) {
	return func(c *kernel.Ctx) {
		t := s.t
		if s.ran != 0 {
			mismatch(t, "task %d ran inside the run of task %d", g, s.ran)
		}
		s.ran = g
		for range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("actions of task %d", g)) {
			switch rapid.SampledFrom([]string{"spawn", "yield", "park", "wake"}).Draw(t, "action") {
			case "spawn":
				child, err := s.s.Spawn(s.p)
				must(t, err)
				c.Go(s.task(child))
			case "yield":
				if s.s.Yield(s.p) == nil { // spec refuses a yield after a park
					c.Yield()
				}
			case "park":
				if w, err := s.s.Park(s.p); err == nil {
					s.wakers[g] = kernelWaker{real: c.Park(), spec: w}
				}
			case "wake":
				if w, ok := s.pickWaker(t); ok {
					_, err := s.s.Wake(w.spec, s.p)
					must(t, err)
					w.real.Wake()
				}
			}
		}
	}
}

// submitSpawner submits a task that, when it runs, spawns that many
// children and does nothing else.
func (s *kernelSystem) submitSpawner(t *rapid.T, children int) {
	s.t = t
	g := s.s.Submit()
	must(t, s.k.Go(func(c *kernel.Ctx) {
		t := s.t
		if s.ran != 0 {
			mismatch(t, "task %d ran inside the run of task %d", g, s.ran)
		}
		s.ran = g
		for range children {
			child, err := s.s.Spawn(s.p)
			must(t, err)
			c.Go(s.task(child))
		}
	}))
}

// pickWaker draws one of the tasks' last parks.
func (s *kernelSystem) pickWaker(t *rapid.T) (kernelWaker, bool) {
	if len(s.wakers) == 0 {
		return kernelWaker{}, false
	}
	tasks := make([]int, 0, len(s.wakers))
	for g := range s.wakers {
		tasks = append(tasks, g)
	}
	slices.Sort(tasks)
	return s.wakers[rapid.SampledFrom(tasks).Draw(t, "woken task")], true
}

func (s *kernelSystem) wakeFromOutside(t *rapid.T) {
	s.t = t
	if w, ok := s.pickWaker(t); ok {
		_, err := s.s.Wake(w.spec, -1)
		must(t, err)
		w.real.Wake()
	}
}

func (s *kernelSystem) schedule(t *rapid.T) {
	s.scheduleOn(t, rapid.IntRange(0, s.procs-1).Draw(t, "P"))
}

// scheduleOn runs findRunnable and the task it finds on P p, in both, and
// reports whether a task ran.
func (s *kernelSystem) scheduleOn(t *rapid.T, p int) bool {
	s.t = t
	// Both draw the same random numbers for the steal passes.
	seeds := rapid.SliceOfN(rapid.Uint32(), spec.StealTries, spec.StealTries).Draw(t, "steal seeds")
	want, wantInherit, wantOK, err := s.s.Schedule(p, sequence(seeds))
	must(t, err)
	s.p, s.ran = p, 0
	ok, inherit := s.mk.Schedule(p, sequence(seeds))
	equal(t, fmt.Sprintf("a task ran on P%d", p), wantOK, ok)
	if !ok {
		return false
	}
	s.runs++
	equal(t, fmt.Sprintf("the task that ran on P%d", p), want, s.ran)
	equal(t, fmt.Sprintf("task %d inherited the time slice", want), wantInherit, inherit)
	_, err = s.s.Return(p)
	must(t, err)
	s.ran = 0
	return true
}

// sequence returns a function that hands out seeds in order, then zeros.
func sequence(seeds []uint32) func() uint32 {
	i := 0
	return func() uint32 {
		if i == len(seeds) {
			return 0
		}
		i++
		return seeds[i-1]
	}
}

func (s *kernelSystem) check(t *rapid.T) {
	must(t, s.s.Check())
	for p := range s.procs {
		equal(t, fmt.Sprintf("P%d's local queue length", p), s.s.Local(p).Len(), s.mk.Local(p))
	}
	st := s.k.Stats()
	equal(t, "the global queue length", s.s.GlobalLen(), st.GlobalQueueDepth)
	equal(t, "Stats.LocalScheduleCount+RemoteScheduleCount", uint64(s.s.Tasks()), st.LocalScheduleCount+st.RemoteScheduleCount)
}
