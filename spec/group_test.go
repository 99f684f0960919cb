package spec_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/spec"
)

func mustGo(t *testing.T, s *spec.Groups, g int, wantStarted bool) int {
	t.Helper()
	task, started, err := s.Go(g)
	if err != nil || started != wantStarted {
		t.Fatalf("Go(%d) = task %d, started %v, %v; want started %v", g, task, started, err, wantStarted)
	}
	return task
}

func mustFinish(t *testing.T, s *spec.Groups, task int, taskErr error, want ...int) {
	t.Helper()
	started, err := s.Return(task, taskErr, false)
	if err != nil || !slices.Equal(started, want) {
		t.Fatalf("Return(%d) started %v, %v; want %v", task, started, err, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestGroupsKeepTheFirstErrorAndAreDoneWhenEveryTaskFinished(t *testing.T) {
	var s spec.Groups
	g := s.NewGroup()
	a, b := mustGo(t, &s, g, true), mustGo(t, &s, g, true)
	first, later := errors.New("first"), errors.New("later")
	// A run that asks to run again keeps the task pending; its error counts.
	if _, err := s.Return(a, first, true); err != nil {
		t.Fatal(err)
	}
	if done, _, _ := s.Wait(g); done {
		t.Fatal("done with two tasks unfinished")
	}
	mustFinish(t, &s, a, nil)
	mustFinish(t, &s, b, later)
	done, err, _ := s.Wait(g)
	if !done || err != first {
		t.Fatalf("Wait = %v, %v; want done with the first error", done, err)
	}
	// Reused: busy again, and the first error stays.
	c := mustGo(t, &s, g, true)
	mustFinish(t, &s, c, nil)
	if _, err, _ := s.Wait(g); err != first || s.Completions(g) != 2 {
		t.Fatalf("Wait after reuse = %v, %d completions", err, s.Completions(g))
	}
}

func TestGroupsLimitQueuesInFIFOOrderAndHandsOverSlots(t *testing.T) {
	var s spec.Groups
	g := s.NewGroup()
	s.SetLimit(g, 2)
	a, b := mustGo(t, &s, g, true), mustGo(t, &s, g, true)
	c, d, e := mustGo(t, &s, g, false), mustGo(t, &s, g, false), mustGo(t, &s, g, false)
	mustFinish(t, &s, b, nil, c) // b's slot goes to the oldest queued
	if started, _ := s.SetLimit(g, 3); !slices.Equal(started, []int{d}) {
		t.Fatalf("raising the limit to 3 started %v, want [%d]", started, d)
	}
	s.SetLimit(g, 1) // lowered: the finishing tasks give slots back until 1 is active
	mustFinish(t, &s, a, nil)
	mustFinish(t, &s, c, nil)
	mustFinish(t, &s, d, nil, e)
	mustFinish(t, &s, e, nil)
	if s.Pending(g) != 0 || s.Active(g) != 0 {
		t.Fatalf("pending %d, active %d after every task finished", s.Pending(g), s.Active(g))
	}
}

func TestGroupsTryGoStartsOnlyWhatGoWouldStart(t *testing.T) {
	var s spec.Groups
	g := s.NewGroup()
	if task, _ := s.TryGo(g); task == 0 || s.State(task) != spec.GroupTaskStarted {
		t.Fatalf("TryGo on a group without a limit = task %d, want a started task", task)
	}
	s.SetLimit(g, 1)
	a, _ := s.TryGo(g)
	if a == 0 || s.Active(g) != 1 {
		t.Fatalf("TryGo under a limit of 1 = task %d with %d active, want a started task and 1 active", a, s.Active(g))
	}
	pending := s.Pending(g)
	if task, _ := s.TryGo(g); task != 0 || s.Pending(g) != pending || len(s.Queued(g)) != 0 {
		t.Fatalf("TryGo at the limit = task %d, pending %d (was %d), %d queued; want nothing added", task, s.Pending(g), pending, len(s.Queued(g)))
	}
	mustFinish(t, &s, a, nil)
	if task, _ := s.TryGo(g); task == 0 {
		t.Fatal("TryGo declined after the limit's slot came back")
	}
	if _, err := s.TryGo(99); err == nil {
		t.Fatal("TryGo on a group that does not exist returned no violation")
	}
}

func TestGroupsLimitCountsOnlyTasksAddedOnceTheGroupHadALimit(t *testing.T) {
	var s spec.Groups
	g := s.NewGroup()
	before := mustGo(t, &s, g, true)
	s.SetLimit(g, 1)
	after := mustGo(t, &s, g, true)
	queued := mustGo(t, &s, g, false)
	// The task from before the limit has no slot to hand over.
	mustFinish(t, &s, before, nil)
	if s.State(queued) != spec.GroupTaskQueued {
		t.Fatalf("the queued task is %v after an uncounted task finished", s.State(queued))
	}
	mustFinish(t, &s, after, nil, queued)
}

// A continuation receives its group's first error as it was when the
// group completed: an error of a task added to the group after that, while
// the continuation waits to run, is not its.
func TestGroupsContinuationReceivesTheErrorAtCompletion(t *testing.T) {
	var s spec.Groups
	owner, children := s.NewGroup(), s.NewGroup()
	p := mustGo(t, &s, owner, true)
	c := mustGo(t, &s, children, true)
	cont, _, err := s.Join(children, p)
	if err != nil {
		t.Fatal(err)
	}
	mustFinish(t, &s, c, nil, cont)
	late := mustGo(t, &s, children, true)
	mustFinish(t, &s, late, errors.New("late"))
	if err, _ := s.JoinErr(cont); err != nil {
		t.Fatalf("the continuation receives %v, want nil: the group had no error when it completed", err)
	}
}

func TestGroupsJoinRunsOnceAfterTheGroupIsDoneAndBelongsToTheCallersGroup(t *testing.T) {
	var s spec.Groups
	parent, children := s.NewGroup(), s.NewGroup()
	p := mustGo(t, &s, parent, true)
	c := mustGo(t, &s, children, true)
	cont, started, err := s.Join(children, p)
	if err != nil || started {
		t.Fatalf("Join on a busy group: started %v, %v", started, err)
	}
	if grp, joined := s.Member(cont); grp != parent || joined != children {
		t.Fatalf("continuation belongs to %d and joined %d", grp, joined)
	}
	mustFinish(t, &s, p, nil)
	if s.Pending(parent) != 1 {
		t.Fatalf("the parent group's pending count is %d, want 1 for the continuation", s.Pending(parent))
	}
	boom := errors.New("boom")
	mustFinish(t, &s, c, boom, cont)
	if err, _ := s.JoinErr(cont); err != boom {
		t.Fatalf("the continuation receives %v, want the joined group's first error", err)
	}
	mustFinish(t, &s, cont, nil)
	if done, _, _ := s.Wait(parent); !done {
		t.Fatal("the parent group is not done after its continuation ran")
	}
	if _, err := s.Return(cont, nil, false); err == nil {
		t.Fatal("a continuation ran twice without a violation")
	}
	// A Join on a done group starts at once; one on the caller's own group
	// belongs to no group.
	q := mustGo(t, &s, parent, true)
	if _, started, _ := s.Join(children, q); !started {
		t.Fatal("a Join on a done group did not start at once")
	}
	own, _, _ := s.Join(parent, q)
	if grp, _ := s.Member(own); grp != 0 {
		t.Fatalf("a Join on the caller's own group belongs to group %d", grp)
	}
}

// TestGroupsRejectARunOfATaskThatIsNotStarted: only a started task runs.
// A function waiting in its group's limit queue, a continuation whose
// group is not done yet, and a task that finished must not run; a run of
// any of them is reported as a broken "exactly once".
func TestGroupsRejectARunOfATaskThatIsNotStarted(t *testing.T) {
	var s spec.Groups
	g, h := s.NewGroup(), s.NewGroup()
	s.SetLimit(g, 1)
	a := mustGo(t, &s, g, true)
	queued := mustGo(t, &s, g, false)
	x := mustGo(t, &s, h, true)
	cont, started, err := s.Join(h, a)
	if err != nil || started {
		t.Fatalf("Join of a busy group = %d, started %v, %v; want a registered continuation", cont, started, err)
	}
	for _, c := range []struct {
		what string
		task int
	}{{"queued over the limit", queued}, {"joining a busy group", cont}} {
		for _, again := range []bool{false, true} {
			_, err := s.Return(c.task, nil, again)
			if err == nil {
				t.Fatalf("a run of a task %s (again %v) was accepted", c.what, again)
			}
			wantViolation(t, err, "exactly once")
		}
	}
	mustFinish(t, &s, x, nil, cont)
	mustFinish(t, &s, cont, nil)
	_, err = s.Return(cont, nil, false)
	wantViolation(t, err, "exactly once")
}

func TestCheckWaitResultAcceptsOnlyTheErrorAtCompletionOrALaterFirstOne(t *testing.T) {
	a, b := errors.New("a"), errors.New("b")
	for _, c := range []struct {
		got, atCompletion, now error
		ok                     bool
	}{
		{a, a, a, true}, {nil, nil, nil, true}, {b, nil, b, true}, {nil, nil, b, true},
		{nil, a, a, false}, {b, a, a, false}, {a, nil, b, false},
	} {
		if err := spec.CheckWaitResult(c.got, c.atCompletion, c.now); (err == nil) != c.ok {
			t.Errorf("CheckWaitResult(%v, %v, %v) = %v", c.got, c.atCompletion, c.now, err)
		}
	}
}

// TestGroupsKeepTheirInvariants walks the model at random; Check must
// hold after every operation, and once every started task has finished
// every group is done with nothing queued or registered.
func TestGroupsKeepTheirInvariants(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s spec.Groups
		for range rapid.IntRange(1, 3).Draw(t, "groups") {
			s.NewGroup()
		}
		group := rapid.Custom(func(t *rapid.T) int { return rapid.IntRange(1, s.NumGroups()).Draw(t, "group") })
		started := func() []int {
			var ts []int
			for task := 1; task <= s.NumTasks(); task++ {
				if s.State(task) == spec.GroupTaskStarted {
					ts = append(ts, task)
				}
			}
			return ts
		}
		for step := range rapid.IntRange(1, 60).Draw(t, "steps") {
			ts := started()
			op := rapid.SampledFrom([]string{"go", "limit", "join", "return", "return again"}).Draw(t, "op")
			var err error
			switch {
			case op == "go":
				_, _, err = s.Go(group.Draw(t, "group"))
			case op == "limit":
				_, err = s.SetLimit(group.Draw(t, "group"), rapid.IntRange(-1, 3).Draw(t, "n"))
			case len(ts) == 0:
			case op == "join":
				// A task joins a group of its own id or above: Joins that
				// wait for each other in a cycle would never run.
				caller := rapid.SampledFrom(ts).Draw(t, "caller")
				grp, _ := s.Member(caller)
				_, _, err = s.Join(rapid.IntRange(max(grp, 1), s.NumGroups()).Draw(t, "joined"), caller)
			default:
				task := rapid.SampledFrom(ts).Draw(t, "task")
				var taskErr error
				if _, joined := s.Member(task); joined == 0 && rapid.Bool().Draw(t, "fails") {
					taskErr = fmt.Errorf("task %d", task)
				}
				_, err = s.Return(task, taskErr, op == "return again" && joined(&s, task) == 0)
			}
			if err != nil {
				t.Fatalf("step %d (%s): %v", step, op, err)
			}
			if err := s.Check(); err != nil {
				t.Fatalf("step %d (%s): %v", step, op, err)
			}
		}
		for ts := started(); len(ts) > 0; ts = started() {
			if _, err := s.Return(ts[0], nil, false); err != nil {
				t.Fatal(err)
			}
		}
		for g := 1; g <= s.NumGroups(); g++ {
			if done, _, _ := s.Wait(g); !done || len(s.Joins(g)) > 0 {
				t.Fatalf("group %d: done %v, joins %v after every task finished", g, done, s.Joins(g))
			}
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	})
}

func joined(s *spec.Groups, task int) int {
	_, j := s.Member(task)
	return j
}
