package spec_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/spec"
)

func zero() uint32 { return 0 }

// run schedules on p and fails t unless it runs want with inheritTime.
func mustRun(t *testing.T, s *spec.Scheduler, p, want int, inherit bool) {
	t.Helper()
	g, in, ok, err := s.Schedule(p, zero)
	if err != nil || !ok || g != want || in != inherit {
		t.Fatalf("Schedule(P%d) = task %d, inheritTime %v, ok %v, %v; want task %d, inheritTime %v", p, g, in, ok, err, want, inherit)
	}
}

func mustReturn(t *testing.T, s *spec.Scheduler, p int, want spec.TaskState) {
	t.Helper()
	if st, err := s.Return(p); err != nil || st != want {
		t.Fatalf("Return(P%d) = %v, %v; want %v", p, st, err, want)
	}
}

func TestSchedulerSpawnedTaskRunsNextInheritingTheSlice(t *testing.T) {
	s := spec.NewScheduler(1, 4)
	a := s.Submit()
	mustRun(t, s, 0, a, false)
	b, _ := s.Spawn(0)
	c, _ := s.Spawn(0) // b moves to the ring, c takes runnext
	mustReturn(t, s, 0, spec.TaskDead)
	mustRun(t, s, 0, c, true)
	mustReturn(t, s, 0, spec.TaskDead)
	mustRun(t, s, 0, b, false)
	if s.Tick(0) != 2 {
		t.Fatalf("schedtick %d, want 2: the runnext run inherited the slice", s.Tick(0))
	}
}

func TestSchedulerYieldGoesToTheGlobalTail(t *testing.T) {
	s := spec.NewScheduler(1, 4)
	a, b := s.Submit(), s.Submit()
	mustRun(t, s, 0, a, false)
	if err := s.Yield(0); err != nil {
		t.Fatal(err)
	}
	mustReturn(t, s, 0, spec.TaskRunnable)
	// a went to the global tail, behind b.
	mustRun(t, s, 0, b, false)
	mustReturn(t, s, 0, spec.TaskDead)
	mustRun(t, s, 0, a, false)
}

func TestSchedulerEvery61stExecutionTakesFromTheGlobalQueue(t *testing.T) {
	s := spec.NewScheduler(1, 256)
	first := s.Submit()
	mustRun(t, s, 0, first, false) // tick 0: the fairness check itself
	// Fill the local ring with 100 tasks, then put one on the global queue.
	var local []int
	for range 100 {
		g, _ := s.Spawn(0)
		local = append(local, g)
	}
	mustReturn(t, s, 0, spec.TaskDead)
	global := s.Submit()
	for i := 1; ; i++ {
		g, _, ok, err := s.Schedule(0, zero)
		if err != nil || !ok {
			t.Fatalf("Schedule: %v %v", ok, err)
		}
		mustReturn(t, s, 0, spec.TaskDead)
		if g == global {
			if s.Tick(0) != spec.FairnessTick+1 {
				t.Fatalf("the global task ran at schedtick %d, want the check at %d", s.Tick(0)-1, spec.FairnessTick)
			}
			return
		}
		if i > spec.FairnessTick+1 {
			t.Fatalf("the global task did not run within %d executions", i)
		}
	}
}

func TestSchedulerWakeBeforeTheParkCommitsRunsTheTaskAgainAtOnce(t *testing.T) {
	s := spec.NewScheduler(1, 4)
	a := s.Submit()
	mustRun(t, s, 0, a, false)
	w, err := s.Park(0)
	if err != nil {
		t.Fatal(err)
	}
	if woke, err := s.Wake(w, 0); !woke || err != nil {
		t.Fatalf("Wake during the run = %v, %v; want it to take", woke, err)
	}
	mustReturn(t, s, 0, spec.TaskRunnable)
	mustRun(t, s, 0, a, true)
	// The same Waker does nothing a second time.
	if woke, _ := s.Wake(w, -1); woke {
		t.Fatal("a second Wake of one park took effect")
	}
}

func TestSchedulerWokenTaskGoesToTheWakersRunnextOrTheGlobalQueue(t *testing.T) {
	s := spec.NewScheduler(2, 4)
	a, b := s.Submit(), s.Submit()
	mustRun(t, s, 0, a, false)
	wa, _ := s.Park(0)
	mustReturn(t, s, 0, spec.TaskWaiting)
	mustRun(t, s, 1, b, false)
	if woke, err := s.Wake(wa, 1); !woke || err != nil {
		t.Fatalf("Wake by the task on P1 = %v, %v", woke, err)
	}
	if g, ok := s.Local(1).RunNext(); !ok || g != a {
		t.Fatalf("P1's runnext = %d, %v; want the woken task %d", g, ok, a)
	}
	mustReturn(t, s, 1, spec.TaskDead)
	mustRun(t, s, 1, a, true)
	wa, _ = s.Park(1)
	mustReturn(t, s, 1, spec.TaskWaiting)
	if woke, _ := s.Wake(wa, -1); !woke || s.GlobalLen() != 1 {
		t.Fatalf("a Wake from outside put %d tasks on the global queue, want 1", s.GlobalLen())
	}
}

func TestSchedulerStealsHalfOfAnotherPsRing(t *testing.T) {
	s := spec.NewScheduler(2, 8)
	a := s.Submit()
	mustRun(t, s, 0, a, false)
	var kids []int
	for range 5 {
		g, _ := s.Spawn(0)
		kids = append(kids, g)
	}
	// P0's ring holds kids[0..3], runnext kids[4]; P1 steals ceil(4/2).
	mustRun(t, s, 1, kids[1], false)
	if got := s.Local(1).Ring(); len(got) != 1 || got[0] != kids[0] {
		t.Fatalf("P1's ring after the steal = %v, want [%d]", got, kids[0])
	}
}

func TestSchedulerMisuseIsAnErrorAndChangesNothing(t *testing.T) {
	s := spec.NewScheduler(1, 4)
	if _, err := s.Spawn(0); err == nil {
		t.Fatal("Spawn on a P that runs nothing succeeded")
	}
	a := s.Submit()
	mustRun(t, s, 0, a, false)
	if _, _, _, err := s.Schedule(0, zero); err == nil {
		t.Fatal("Schedule on a busy P succeeded")
	}
	if _, err := s.Park(0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Park(0); err == nil {
		t.Fatal("a second Park in one run succeeded")
	}
	if err := s.Yield(0); err == nil {
		t.Fatal("a Yield after a Park succeeded")
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestSchedulerKeepsEveryTaskInExactlyOnePlace drives random operations and
// checks the model's invariants after each, and that once every task runs
// to completion the scheduler drains.
func TestSchedulerKeepsEveryTaskInExactlyOnePlace(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		procs := rapid.IntRange(1, 3).Draw(t, "procs")
		s := spec.NewScheduler(procs, 4)
		var wakers []spec.Waker
		rnd := func() uint32 { return rapid.Uint32().Draw(t, "r") }
		pick := func() int { return rapid.IntRange(0, procs-1).Draw(t, "p") }
		t.Repeat(map[string]func(*rapid.T){
			"Submit":   func(t *rapid.T) { s.Submit() },
			"Schedule": func(t *rapid.T) { s.Schedule(pick(), rnd) },
			"Spawn":    func(t *rapid.T) { s.Spawn(pick()) },
			"Yield":    func(t *rapid.T) { s.Yield(pick()) },
			"Park": func(t *rapid.T) {
				if w, err := s.Park(pick()); err == nil {
					wakers = append(wakers, w)
				}
			},
			"Wake": func(t *rapid.T) {
				if len(wakers) == 0 {
					t.Skip("no waker")
				}
				w := rapid.SampledFrom(wakers).Draw(t, "waker")
				s.Wake(w, rapid.IntRange(-1, procs-1).Draw(t, "by"))
			},
			"Return": func(t *rapid.T) { s.Return(pick()) },
			"": func(t *rapid.T) {
				if err := s.Check(); err != nil {
					t.Fatal(err)
				}
			},
		})
		// Drain: finish every running task, wake every waiter from
		// outside, and run everything to completion.
		for p := range procs {
			s.Return(p)
		}
		for _, w := range wakers {
			s.Wake(w, -1)
		}
		for range 10 * (s.Tasks() + 1) {
			ran := false
			for p := range procs {
				if _, _, ok, err := s.Schedule(p, rnd); err == nil && ok {
					ran = true
					s.Return(p)
				}
			}
			if !ran {
				break
			}
		}
		for g := 1; g <= s.Tasks(); g++ {
			if st := s.State(g); st != spec.TaskDead {
				t.Fatalf("task %d is %v after the drain, want dead", g, st)
			}
		}
	})
}
