package proptest

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/spec"
)

// CheckGroups drives task groups in a deterministic single-M run of the
// real kernel (a testhook.Manual, as in CheckKernel) and spec.Groups in
// lock step. From outside the kernel the test adds tasks to a group (with
// Go, or with TryGo, which must start a task exactly when the
// specification's does), sets a group's limit, waits for a group that the
// specification says is done, and schedules a P of its choice. Each task,
// when the kernel runs it, draws what it does (add a task to a group with
// Go or TryGo, join a group, set a limit, yield) and whether it returns an
// error; each Join continuation checks the error it receives and may add
// and join too. The task that runs must be one the specification has
// started: not one still in a limit queue, a continuation whose group is
// not done, or a task that finished. After every step each group's pending
// count, whether it has had a limit, its active count, the length of its
// limit queue, its registered continuations and its first error must agree
// with the specification, whose own invariants are checked too. At the end
// the test stops drawing actions and schedules until nothing runs: every
// task and continuation must have finished, each exactly once, and every
// group must be done.
func CheckGroups(t *rapid.T) {
	s := newGroupSystem(t)
	t.Repeat(map[string]func(*rapid.T){
		"go":        s.goFromOutside,
		"try go":    s.tryGoFromOutside,
		"set limit": s.setLimitFromOutside,
		"wait":      s.wait,
		"schedule":  func(t *rapid.T) { s.schedule(t) },
		"schedule many": func(t *rapid.T) {
			for range rapid.IntRange(1, 30).Draw(t, "schedules") {
				if !s.schedule(t) {
					return
				}
			}
		},
		"": s.check,
	})
	s.drain(t)
}

// groupSystem is the kernel's groups and their specification, operated
// together.
type groupSystem struct {
	t      *rapid.T // the current step's
	mk     testhook.Manual
	k      *kernel.Kernel
	s      spec.Groups
	groups []*kernel.Group // by the specification's ids; groups[0] is nil
	procs  int

	// The run in progress.
	ran      int         // the task or continuation that ran
	ret      groupReturn // how its run ended
	panicked any         // a rapid failure inside a task, to re-raise outside
	draining bool        // tasks draw no more actions
}

// groupReturn is how a run of a group task ended.
type groupReturn struct {
	err   error
	again bool
}

func newGroupSystem(t *rapid.T) *groupSystem {
	procs := rapid.IntRange(1, 2).Draw(t, "procs")
	mk, err := testhook.NewManual(procs)
	if err != nil {
		t.Fatal(err)
	}
	s := &groupSystem{t: t, mk: mk, k: mk.Kernel().(*kernel.Kernel), procs: procs, groups: []*kernel.Group{nil}}
	for range rapid.IntRange(1, 3).Draw(t, "groups") {
		s.s.NewGroup()
		s.groups = append(s.groups, s.k.NewGroup(nil))
	}
	return s
}

// drawGroup draws a group of at least min.
func (s *groupSystem) drawGroup(t *rapid.T, min int) int {
	return rapid.IntRange(min, len(s.groups)-1).Draw(t, "group")
}

func (s *groupSystem) goFromOutside(t *rapid.T) {
	s.t = t
	g := s.drawGroup(t, 1)
	id, _, err := s.s.Go(g)
	must(t, err)
	must(t, s.groups[g].Go(s.task(id)))
}

func (s *groupSystem) tryGoFromOutside(t *rapid.T) {
	s.t = t
	s.tryGo(t, s.drawGroup(t, 1))
}

// tryGo calls Group.TryGo on group g: it must start a task exactly when
// the specification's TryGo does.
func (s *groupSystem) tryGo(t *rapid.T, g int) {
	id, err := s.s.TryGo(g)
	must(t, err)
	fn := func(*kernel.Ctx) error {
		s.guard(func() { mismatch(s.t, "a function that group %d's TryGo declined ran", g) })
		return nil
	}
	if id != 0 {
		fn = s.task(id)
	}
	started, err := s.groups[g].TryGo(fn)
	must(t, err)
	equal(t, fmt.Sprintf("group %d's TryGo started its task", g), id != 0, started)
}

func (s *groupSystem) setLimitFromOutside(t *rapid.T) {
	s.t = t
	g := s.drawGroup(t, 1)
	n := rapid.IntRange(-1, 3).Draw(t, "limit")
	_, err := s.s.SetLimit(g, n)
	must(t, err)
	s.groups[g].SetLimit(n)
}

// wait calls Group.Wait on a group the specification says is done: it
// must return at once, with the first error. (Blocked Waits are the
// explorer's and the stress tests' to check.)
func (s *groupSystem) wait(t *rapid.T) {
	s.t = t
	g := s.drawGroup(t, 1)
	done, want, err := s.s.Wait(g)
	must(t, err)
	if !done {
		return
	}
	equal(t, fmt.Sprintf("group %d's Wait", g), want, s.groups[g].Wait())
}

// guard runs body, the part of a task's run that draws and checks, and
// keeps a panic (a rapid failure) to raise again outside the kernel: a
// group recovers its tasks' panics.
func (s *groupSystem) guard(body func()) {
	defer func() {
		if v := recover(); v != nil && s.panicked == nil {
			s.panicked = v
		}
	}()
	body()
}

// enter records that task id runs; the specification must have started
// it. A run may follow another in the same schedule only as the kernel
// goes on with a Join continuation where the task that completed the
// joined group finished: the end of that task's run must have started id.
func (s *groupSystem) enter(t *rapid.T, id int) {
	if s.ran != 0 {
		started, err := s.s.Return(s.ran, s.ret.err, s.ret.again)
		must(t, err)
		if _, joined := s.s.Member(id); joined == 0 || !slices.Contains(started, id) {
			mismatch(t, "task %d ran inside the run of task %d, which started %v", id, s.ran, started)
		}
	}
	s.ran, s.ret = id, groupReturn{}
	if st := s.s.State(id); st != spec.GroupTaskStarted {
		mismatch(t, "task %d ran while it is %v", id, st)
	}
}

// task is the function of group task id.
func (s *groupSystem) task(id int) func(*kernel.Ctx) error {
	return func(c *kernel.Ctx) error {
		s.guard(func() {
			t := s.t
			s.enter(t, id)
			s.actions(t, c, id, true)
			if !s.draining && rapid.Bool().Draw(t, fmt.Sprintf("task %d fails", id)) {
				s.ret.err = fmt.Errorf("task %d failed", id)
			}
		})
		return s.ret.err
	}
}

// cont is the function of Join continuation id.
func (s *groupSystem) cont(id int) func(*kernel.Ctx, error) {
	return func(c *kernel.Ctx, got error) {
		s.guard(func() {
			t := s.t
			s.enter(t, id)
			want, err := s.s.JoinErr(id)
			must(t, err)
			equal(t, fmt.Sprintf("the error continuation %d receives", id), want, got)
			s.actions(t, c, id, false)
		})
	}
}

// actions draws and does what task id does while it runs: add a task to
// a group, join a group, set a limit, and (a task, not a continuation)
// yield, after which it runs again.
func (s *groupSystem) actions(t *rapid.T, c *kernel.Ctx, id int, task bool) {
	if s.draining {
		return
	}
	kinds := []string{"go", "try go", "join", "set limit"}
	if task {
		kinds = append(kinds, "yield")
	}
	for range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("actions of task %d", id)) {
		switch rapid.SampledFrom(kinds).Draw(t, "action") {
		case "go":
			g := s.drawGroup(t, 1)
			child, _, err := s.s.Go(g)
			must(t, err)
			must(t, s.groups[g].Go(s.task(child)))
		case "try go":
			s.tryGo(t, s.drawGroup(t, 1))
		case "join":
			// A task joins a group of its own group's id or above, so
			// that no two continuations wait for each other.
			grp, _ := s.s.Member(id)
			g := s.drawGroup(t, max(grp, 1))
			cont, _, err := s.s.Join(g, id)
			must(t, err)
			c.Join(s.groups[g], s.cont(cont))
		case "set limit":
			g := s.drawGroup(t, 1)
			n := rapid.IntRange(-1, 3).Draw(t, "limit")
			_, err := s.s.SetLimit(g, n)
			must(t, err)
			s.groups[g].SetLimit(n)
		case "yield":
			if !s.ret.again {
				c.Yield()
				s.ret.again = true
			}
		}
	}
}

// schedule runs findRunnable and the task it finds on a P, then ends the
// task's run in the specification, and reports whether a task ran.
func (s *groupSystem) schedule(t *rapid.T) bool {
	s.t = t
	p := rapid.IntRange(0, s.procs-1).Draw(t, "P")
	seeds := rapid.SliceOfN(rapid.Uint32(), spec.StealTries, spec.StealTries).Draw(t, "steal seeds")
	s.ran, s.panicked = 0, nil
	ok, _ := s.mk.Schedule(p, sequence(seeds))
	if s.panicked != nil {
		panic(s.panicked)
	}
	if !ok {
		// Nothing to run anywhere: every started task has finished.
		for id := 1; id <= s.s.NumTasks(); id++ {
			if s.s.State(id) == spec.GroupTaskStarted {
				mismatch(t, "no task ran, and task %d was started and has not finished", id)
			}
		}
		return false
	}
	if s.ran == 0 {
		mismatch(t, "a task ran on P%d that is no task of the test", p)
	}
	_, err := s.s.Return(s.ran, s.ret.err, s.ret.again)
	must(t, err)
	s.ran = 0
	return true
}

func (s *groupSystem) check(t *rapid.T) {
	must(t, s.s.Check())
	for g := 1; g < len(s.groups); g++ {
		st := testhook.GroupStateOf(s.groups[g])
		_, limited := s.s.Limit(g)
		what := func(x string) string { return fmt.Sprintf("group %d's %s", g, x) }
		equal(t, what("pending count"), int64(s.s.Pending(g)), st.Pending)
		equal(t, what("limit, had"), limited, st.Limited)
		equal(t, what("active count"), s.s.Active(g), st.Active)
		equal(t, what("queued functions"), len(s.s.Queued(g)), st.Queued)
		equal(t, what("registered continuations"), len(s.s.Joins(g)), st.Joins)
		equal(t, what("first error"), s.s.Err(g), st.Err)
	}
}

// drain schedules until nothing runs, with the tasks drawing no more
// actions: then every task and continuation has finished, and every
// group is done.
func (s *groupSystem) drain(t *rapid.T) {
	s.draining = true
	for s.schedule(t) {
		s.check(t)
	}
	s.check(t)
	for id := 1; id <= s.s.NumTasks(); id++ {
		if st := s.s.State(id); st != spec.GroupTaskFinished {
			mismatch(t, "task %d is %v after the kernel ran out of work", id, st)
		}
	}
	for g := 1; g < len(s.groups); g++ {
		equal(t, fmt.Sprintf("group %d's Wait after the drain", g), s.s.Err(g), s.groups[g].Wait())
	}
}
