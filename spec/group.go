package spec

import (
	"fmt"
	"slices"
)

// GroupTaskState is the state of a group task or of a Join continuation in
// [Groups].
type GroupTaskState uint8

// The states of a group task or continuation.
const (
	GroupTaskQueued   GroupTaskState = iota + 1 // in its group's limit queue, not started
	GroupTaskJoining                            // a continuation registered on a group that is not done
	GroupTaskStarted                            // handed to the kernel: runnable, running, or to run again
	GroupTaskFinished                           // its last run returned
)

var groupTaskStateNames = [...]string{"", "queued", "joining", "started", "finished"}

// String returns the state's name.
func (s GroupTaskState) String() string {
	if int(s) < len(groupTaskStateNames) && s != 0 {
		return groupTaskStateNames[s]
	}
	return fmt.Sprintf("GroupTaskState(%d)", uint8(s))
}

// Groups is the specification of task groups (kernel.Group and Ctx.Join)
// as a run with one M at a time sees them: groups and tasks told apart by
// ids from 1. It says nothing of where the kernel queues a started task;
// [Scheduler] does that.
//
// Its operations are the kernel's:
//
//   - [Groups.Go] is Group.Go: the group's pending count goes up; over
//     the limit the task waits in the group's FIFO queue, else it starts.
//   - [Groups.TryGo] is Group.TryGo: Go when the task would start, and
//     nothing otherwise.
//   - [Groups.SetLimit] is Group.SetLimit: a raised or removed limit starts
//     queued tasks, oldest first.
//   - [Groups.Join] is Ctx.Join by a running task: the continuation
//     belongs to the caller's group (its pending count goes up at once),
//     unless the caller belongs to no group or to the joined one; it
//     starts at once when the joined group is done, else it is registered.
//   - [Groups.Return] ends a run of a started task: a task's error becomes
//     its group's first error if it has none; when the task is finished, a
//     limited group hands its slot to the oldest queued task, and the task
//     that brings the pending count to 0 completes the group, which starts
//     every registered continuation. The kernel usually runs the first of
//     them on the finishing task's M right after it (a fork/join's parent
//     goes on where its last child ends); the model only says it started.
//   - [Groups.Wait] is Group.Wait: done when the pending count is 0, with
//     the group's first error.
//
// A group is done whenever its pending count is 0, and may become busy
// again. Its first error is kept for its whole life. A continuation
// receives the first error of the group it joined as it was when the
// continuation started: when that group completed, or at the Join if it
// was done ([Groups.JoinErr]). Continuations that wait for each
// other in a cycle (a task of group A joins B while one of B joins A)
// never run: a deadlock of the caller's making, in the model as in the
// kernel.
//
// The limit counts the tasks added after the group first had a limit
// (and the continuations joined from its tasks from then on): the
// counted ones. A counted task is active from its start to its end; a
// task is queued only when the group has a limit and as many active tasks.
// A finished counted task hands its slot to the oldest queued task while
// the active count is within the limit, and otherwise gives it back, so
// that a lowered limit takes effect as tasks finish.
//
// Misuse (an operation on a group or task that does not exist, a run of
// a task that is not started) returns a [*Violation] and changes nothing.
type Groups struct {
	groups []groupRec     // by id; groups[0] is unused
	tasks  []groupTaskRec // by id; tasks[0] is unused
}

type groupRec struct {
	pending int
	err     error // the first error
	limit   int   // SetLimit's n; <= 0: none
	limited bool  // it has had a limit: from then on its tasks are counted
	active  int   // counted tasks started and not finished
	queue   []int // tasks over the limit, oldest first
	joins   []int // registered continuations, in the order of their Joins
	done    int   // the completions so far
}

type groupTaskRec struct {
	grp     int   // the group it belongs to, or 0
	counted bool  // counted in grp's active count
	joined  int   // a continuation's joined group; 0 for a task
	jerr    error // what a started continuation receives
	state   GroupTaskState
	runs    int
}

// NewGroup models Kernel.NewGroup and returns the new group.
func (s *Groups) NewGroup() int {
	if s.groups == nil {
		s.groups = make([]groupRec, 1)
		s.tasks = make([]groupTaskRec, 1)
	}
	s.groups = append(s.groups, groupRec{})
	return len(s.groups) - 1
}

func (s *Groups) group(g int) (*groupRec, error) {
	if g < 1 || g >= len(s.groups) {
		return nil, violation("misuse", "group %d does not exist", g)
	}
	return &s.groups[g], nil
}

func (s *Groups) task(t int) (*groupTaskRec, error) {
	if t < 1 || t >= len(s.tasks) {
		return nil, violation("misuse", "task %d does not exist", t)
	}
	return &s.tasks[t], nil
}

func (s *Groups) newTask(r groupTaskRec) int {
	s.tasks = append(s.tasks, r)
	return len(s.tasks) - 1
}

// Go models Group.Go on group g, from inside a task or outside: it
// returns the new task and whether it started (false: it is queued).
func (s *Groups) Go(g int) (task int, started bool, err error) {
	gr, err := s.group(g)
	if err != nil {
		return 0, false, err
	}
	gr.pending++
	if gr.limited && gr.limit > 0 && gr.active >= gr.limit {
		t := s.newTask(groupTaskRec{grp: g, counted: true, state: GroupTaskQueued})
		gr.queue = append(gr.queue, t)
		return t, false, nil
	}
	if gr.limited {
		gr.active++
	}
	return s.newTask(groupTaskRec{grp: g, counted: gr.limited, state: GroupTaskStarted}), true, nil
}

// TryGo models Group.TryGo on group g, from inside a task or outside: the
// task starts as with [Groups.Go] when the group has room (no limit, or
// fewer counted tasks active than the limit and none queued), and
// otherwise nothing changes and task is 0.
func (s *Groups) TryGo(g int) (task int, err error) {
	gr, err := s.group(g)
	if err != nil {
		return 0, err
	}
	if gr.limited && gr.limit > 0 && (gr.active >= gr.limit || len(gr.queue) > 0) {
		return 0, nil
	}
	task, _, err = s.Go(g)
	return task, err
}

// SetLimit models Group.SetLimit(n) on group g and returns the queued
// tasks it started, in the order they were queued.
func (s *Groups) SetLimit(g, n int) ([]int, error) {
	gr, err := s.group(g)
	if err != nil {
		return nil, err
	}
	gr.limit = n
	if n > 0 {
		gr.limited = true
	}
	var started []int
	for len(gr.queue) > 0 && (n <= 0 || gr.active < n) {
		t := gr.queue[0]
		gr.queue = gr.queue[1:]
		gr.active++
		s.tasks[t].state = GroupTaskStarted
		started = append(started, t)
	}
	return started, nil
}

// Join models Ctx.Join(g, then) by the running task caller: it returns
// the continuation and whether it started at once (g was done).
func (s *Groups) Join(g, caller int) (cont int, started bool, err error) {
	gr, err := s.group(g)
	if err != nil {
		return 0, false, err
	}
	c, err := s.task(caller)
	if err != nil {
		return 0, false, err
	}
	if c.state != GroupTaskStarted {
		return 0, false, violation("misuse", "task %d joins while it is %v", caller, c.state)
	}
	r := groupTaskRec{joined: g, state: GroupTaskStarted}
	if c.grp != 0 && c.grp != g {
		owner := &s.groups[c.grp]
		r.grp = c.grp
		owner.pending++
		if owner.limited {
			r.counted = true
			owner.active++
		}
	}
	if gr.pending != 0 {
		r.state = GroupTaskJoining
		cont = s.newTask(r)
		gr.joins = append(gr.joins, cont)
		return cont, false, nil
	}
	r.jerr = gr.err
	return s.newTask(r), true, nil
}

// JoinErr returns the error the continuation cont receives when it runs:
// the first error of the group it joined as it was when cont started.
func (s *Groups) JoinErr(cont int) (error, error) {
	c, err := s.task(cont)
	if err != nil {
		return nil, err
	}
	if c.joined == 0 {
		return nil, violation("misuse", "task %d is not a continuation", cont)
	}
	return c.jerr, nil
}

// Return models the end of a run of the started task t, which returned
// taskErr (always nil for a continuation) and asked to run again (a
// yield, a park, a wait) or not. It returns the tasks that the end of t
// started: the queued task that took over its slot, then the
// continuations of the group that t completed.
func (s *Groups) Return(t int, taskErr error, again bool) ([]int, error) {
	tr, err := s.task(t)
	if err != nil {
		return nil, err
	}
	if tr.state != GroupTaskStarted {
		return nil, violation("exactly once", "task %d ran while it is %v", t, tr.state)
	}
	if tr.joined != 0 && (taskErr != nil || again) {
		return nil, violation("misuse", "continuation %d returned an error or asked to run again", t)
	}
	tr.runs++
	if tr.grp == 0 {
		if !again {
			tr.state = GroupTaskFinished
		}
		return nil, nil
	}
	gr := &s.groups[tr.grp]
	if taskErr != nil && gr.err == nil {
		gr.err = taskErr
	}
	if again {
		return nil, nil
	}
	tr.state = GroupTaskFinished
	var started []int
	if tr.counted {
		if len(gr.queue) > 0 && (gr.limit <= 0 || gr.active <= gr.limit) {
			next := gr.queue[0]
			gr.queue = gr.queue[1:]
			s.tasks[next].state = GroupTaskStarted
			started = append(started, next)
		} else {
			gr.active--
		}
	}
	gr.pending--
	if gr.pending == 0 {
		gr.done++
		for _, c := range gr.joins {
			s.tasks[c].state = GroupTaskStarted
			s.tasks[c].jerr = gr.err
		}
		started = append(started, gr.joins...)
		gr.joins = nil
	}
	return started, nil
}

// Wait models Group.Wait on group g from outside the kernel: done is
// whether it returns now, and err what it returns then. A Wait that is
// not done returns at g's next completion, with g's first error as it is
// when Wait returns (see [CheckWaitResult]).
func (s *Groups) Wait(g int) (done bool, firstErr error, err error) {
	gr, err := s.group(g)
	if err != nil {
		return false, nil, err
	}
	return gr.pending == 0, gr.err, nil
}

// Pending returns group g's pending count: its tasks queued, started and
// not finished, and the continuations that belong to it and have not run.
func (s *Groups) Pending(g int) int { return s.groups[g].pending }

// Err returns group g's first error.
func (s *Groups) Err(g int) error { return s.groups[g].err }

// Active returns the number of g's counted tasks started and not finished.
func (s *Groups) Active(g int) int { return s.groups[g].active }

// Limit returns g's limit, and whether g has ever had one.
func (s *Groups) Limit(g int) (n int, limited bool) { return s.groups[g].limit, s.groups[g].limited }

// Queued returns g's limit queue, oldest first. The caller must not
// change it.
func (s *Groups) Queued(g int) []int { return s.groups[g].queue }

// Joins returns the continuations registered on g, in the order of their
// Joins. The caller must not change it.
func (s *Groups) Joins(g int) []int { return s.groups[g].joins }

// Completions returns how many times g became done.
func (s *Groups) Completions(g int) int { return s.groups[g].done }

// State returns task t's state, or 0 if there is no such task.
func (s *Groups) State(t int) GroupTaskState {
	if t < 1 || t >= len(s.tasks) {
		return 0
	}
	return s.tasks[t].state
}

// Member returns the group task t belongs to (0: none) and, for a
// continuation, the group it joined (0 for a task).
func (s *Groups) Member(t int) (grp, joined int) { return s.tasks[t].grp, s.tasks[t].joined }

// Runs returns how many runs of task t have returned.
func (s *Groups) Runs(t int) int { return s.tasks[t].runs }

// NumGroups returns the number of groups made.
func (s *Groups) NumGroups() int { return max(len(s.groups)-1, 0) }

// NumTasks returns the number of tasks and continuations made.
func (s *Groups) NumTasks() int { return max(len(s.tasks)-1, 0) }

// Check verifies the model's own invariants: each group's pending count
// is the number of its unfinished tasks and continuations, its active
// count the number of its counted ones that are not queued; its queue
// holds exactly its queued tasks, and is empty unless the limit is
// reached; its registered continuations are exactly those joining it,
// and there are none while it is done; a continuation runs at most once.
func (s *Groups) Check() error {
	pending := make([]int, len(s.groups))
	active := make([]int, len(s.groups))
	queued := make([][]int, len(s.groups))
	joining := make([][]int, len(s.groups))
	for t := 1; t < len(s.tasks); t++ {
		tr := &s.tasks[t]
		if tr.joined != 0 && tr.runs > 1 {
			return violation("exactly once", "continuation %d ran %d times", t, tr.runs)
		}
		if tr.state == GroupTaskFinished || tr.grp == 0 && tr.state != GroupTaskJoining {
			continue
		}
		if tr.grp != 0 {
			pending[tr.grp]++
			if tr.counted && tr.state != GroupTaskQueued {
				active[tr.grp]++
			}
		}
		switch tr.state {
		case GroupTaskQueued:
			queued[tr.grp] = append(queued[tr.grp], t)
		case GroupTaskJoining:
			joining[tr.joined] = append(joining[tr.joined], t)
		}
	}
	for g := 1; g < len(s.groups); g++ {
		gr := &s.groups[g]
		switch {
		case gr.pending != pending[g]:
			return violation("group pending", "group %d counts %d pending, and has %d unfinished tasks and continuations", g, gr.pending, pending[g])
		case gr.active != active[g]:
			return violation("group limit", "group %d counts %d active, and has %d counted tasks started and unfinished", g, gr.active, active[g])
		case !sameMembers(gr.queue, queued[g]):
			return violation("group limit", "group %d's queue is %v, its queued tasks %v", g, gr.queue, queued[g])
		case !slices.IsSorted(gr.queue):
			// Ids grow with every Go, so FIFO order is ascending order.
			return violation("group limit", "group %d's queue %v is not in the order of the Gos", g, gr.queue)
		case len(gr.queue) > 0 && (gr.limit <= 0 || gr.active < gr.limit):
			return violation("group limit", "group %d queues %v with %d active and limit %d", g, gr.queue, gr.active, gr.limit)
		case !sameMembers(gr.joins, joining[g]):
			return violation("join", "group %d registers %v, and %v are joining it", g, gr.joins, joining[g])
		case len(gr.joins) > 0 && gr.pending == 0:
			return violation("join", "group %d is done and still registers continuations %v", g, gr.joins)
		}
	}
	return nil
}

// sameMembers reports whether a and b hold the same ids.
func sameMembers(a, b []int) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// CheckWaitResult checks what a blocked Group.Wait returned: the first
// error of its group when the group completed (atCompletion), or, if
// there was none then, the first error as it is now (the group may have
// been reused and failed before the waiter read it).
func CheckWaitResult(got, atCompletion, now error) error {
	if got != atCompletion && (atCompletion != nil || got != now) {
		return violation("wait", "Wait returned %v; the first error was %v when the group completed, and is %v now", got, atCompletion, now)
	}
	return nil
}
