package spec

import "fmt"

// The scheduler's constants, with the runtime names they mirror.
const (
	// FairnessTick: every 61st non-inherited execution on a P first takes
	// one task from a non-empty global queue (schedtick%61 in findRunnable).
	FairnessTick = 61
	// StealTries is the number of steal passes over the other Ps
	// (stealTries); runnext is taken only on the last one.
	StealTries = 4
)

// TaskState is a task's state, the runtime's _Grunnable, _Grunning,
// _Gwaiting and _Gdead.
type TaskState uint8

// The task states.
const (
	TaskRunnable TaskState = iota + 1 // queued somewhere, or about to run again
	TaskRunning                       // its function runs on a P
	TaskWaiting                       // parked, until its Waker's Wake
	TaskDead                          // returned without asking for more
)

var taskStateNames = [...]string{"", "runnable", "running", "waiting", "dead"}

// String returns the state's name, as the runtime's status names read.
func (s TaskState) String() string {
	if int(s) < len(taskStateNames) && s != 0 {
		return taskStateNames[s]
	}
	return fmt.Sprintf("TaskState(%d)", uint8(s))
}

// Scheduler is the specification of the kernel's task life cycle: procs Ps,
// each with a local queue (a [Queue] of ringCap slots plus runnext) and a
// schedtick, one global queue, and tasks told apart by ids from 1.
//
// It is sequential: one operation at a time, as a run with one M at a time
// sees it. Its operations are the kernel's, named as the runtime names them:
//
//   - [Scheduler.Submit] is Kernel.Go from outside any task: the new task
//     goes to the tail of the global queue.
//   - [Scheduler.Schedule] is findRunnable followed by execute on a P: the
//     61-tick global check, the local queue, a fair-share batch of the
//     global queue, then four steal passes over the other Ps, runnext only
//     on the last. The running task's state becomes running.
//   - While a task runs: [Scheduler.Spawn] (Ctx.Go: newproc puts the child
//     in this P's runnext), [Scheduler.Yield] (Ctx.Yield) and
//     [Scheduler.Park] (Ctx.Park) are requests; [Scheduler.Wake] can come
//     from any task or from outside.
//   - [Scheduler.Return] ends the run: a Yield puts the task at the tail of
//     the global queue (Gosched); a Park commits, and the task waits, unless
//     a Wake came first, in which case the commit fails and the task runs
//     again at once on the same P, inheriting the time slice, as a failed
//     gopark commit resumes its goroutine; with neither, the task is dead.
//
// A woken waiting task goes to the waker's runnext when the waker is a task
// running on a P (goready), and to the tail of the global queue otherwise.
// Misuse (an operation on a P that runs nothing, a second Park or a Yield
// and a Park in one run) returns an error and changes nothing.
type Scheduler struct {
	ringCap int
	ps      []schedP
	global  Global[int]
	tasks   []taskRec // by id; tasks[0] is unused
}

type schedP struct {
	q    *Queue[int]
	tick uint32 // schedtick: advanced by every non-inherited execution
	cur  int    // the running task, or 0
	// resume is a task whose park commit failed: the next Schedule on
	// this P runs it, inheriting the time slice.
	resume int
}

type taskRec struct {
	state TaskState
	// A request of the current run.
	yield, park bool
	// parks counts the task's parks; a Waker names one of them.
	parks int
	woken bool // the Wake of the current park came
}

// Waker names one park of one task: the Park that returned it.
type Waker struct{ Task, Park int }

// NewScheduler returns a scheduler of procs Ps whose rings hold ringCap
// items. It panics if procs < 1 or ringCap < 2.
func NewScheduler(procs, ringCap int) *Scheduler {
	if procs < 1 || ringCap < 2 {
		panic(fmt.Sprintf("spec: NewScheduler(%d, %d): want at least 1 P and a ring of at least 2", procs, ringCap))
	}
	s := &Scheduler{ringCap: ringCap, tasks: make([]taskRec, 1)}
	for range procs {
		s.ps = append(s.ps, schedP{q: NewQueue[int](ringCap)})
	}
	return s
}

func (s *Scheduler) newTask() int {
	s.tasks = append(s.tasks, taskRec{state: TaskRunnable})
	return len(s.tasks) - 1
}

// Submit models Kernel.Go from outside any task and returns the new task.
func (s *Scheduler) Submit() int {
	g := s.newTask()
	s.global.Put(g)
	return g
}

// running returns the task running on p, or a violation.
func (s *Scheduler) running(p int) (int, error) {
	if p < 0 || p >= len(s.ps) {
		return 0, violation("misuse", "P %d does not exist", p)
	}
	if s.ps[p].cur == 0 {
		return 0, violation("misuse", "P %d runs no task", p)
	}
	return s.ps[p].cur, nil
}

// Spawn models Ctx.Go by the task running on p: the new task takes p's
// runnext, the one it displaces goes to the ring's tail, and an overflow of
// the ring goes to the tail of the global queue. It returns the new task.
func (s *Scheduler) Spawn(p int) (int, error) {
	if _, err := s.running(p); err != nil {
		return 0, err
	}
	g := s.newTask()
	s.global.PutBatch(s.ps[p].q.Put(g, true))
	return g, nil
}

// Yield models Ctx.Yield by the task running on p.
func (s *Scheduler) Yield(p int) error {
	g, err := s.running(p)
	if err != nil {
		return err
	}
	if t := &s.tasks[g]; t.park {
		return violation("misuse", "task %d asked to yield after asking to park", g)
	}
	s.tasks[g].yield = true
	return nil
}

// Park models Ctx.Park by the task running on p and returns its Waker.
func (s *Scheduler) Park(p int) (Waker, error) {
	g, err := s.running(p)
	if err != nil {
		return Waker{}, err
	}
	t := &s.tasks[g]
	if t.park || t.yield {
		return Waker{}, violation("misuse", "task %d asked to park twice, or after asking to yield", g)
	}
	t.park = true
	t.parks++
	t.woken = false
	return Waker{g, t.parks}, nil
}

// Wake models Waker.Wake, called by the task running on P by, or from
// outside any task when by is -1. A Wake for a park that is not the task's
// current one, or that was already woken, does nothing. It reports whether
// it woke the task.
func (s *Scheduler) Wake(w Waker, by int) (bool, error) {
	if by != -1 {
		if _, err := s.running(by); err != nil {
			return false, err
		}
	}
	if w.Task < 1 || w.Task >= len(s.tasks) {
		return false, violation("misuse", "Wake of task %d, which does not exist", w.Task)
	}
	t := &s.tasks[w.Task]
	if w.Park != t.parks || t.woken {
		return false, nil
	}
	switch t.state {
	case TaskRunning:
		if !t.park {
			return false, nil // parked before and already woken
		}
		t.woken = true // the commit at Return will fail
		return true, nil
	case TaskWaiting:
		t.woken = true
		t.state = TaskRunnable
		if by == -1 {
			s.global.Put(w.Task)
		} else {
			s.global.PutBatch(s.ps[by].q.Put(w.Task, true))
		}
		return true, nil
	}
	return false, nil
}

// Return models the end of the run of the task on p and returns the task's
// new state.
func (s *Scheduler) Return(p int) (TaskState, error) {
	g, err := s.running(p)
	if err != nil {
		return 0, err
	}
	pp, t := &s.ps[p], &s.tasks[g]
	pp.cur = 0
	switch {
	case t.yield:
		t.state = TaskRunnable
		s.global.Put(g)
	case t.park && t.woken:
		t.state = TaskRunnable
		pp.resume = g
	case t.park:
		t.state = TaskWaiting
	default:
		t.state = TaskDead
	}
	t.yield, t.park = false, false
	return t.state, nil
}

// Schedule models findRunnable and execute on P p, which must run no task.
// rand supplies the random number of each steal pass (steal.Order's start).
// It returns the task to run and whether it inherits the time slice, or
// ok false when there is nothing to run anywhere (the M would park).
func (s *Scheduler) Schedule(p int, rand func() uint32) (g int, inheritTime, ok bool, err error) {
	if p < 0 || p >= len(s.ps) {
		return 0, false, false, violation("misuse", "P %d does not exist", p)
	}
	pp := &s.ps[p]
	if pp.cur != 0 {
		return 0, false, false, violation("misuse", "P %d already runs task %d", p, pp.cur)
	}
	g, inheritTime = s.find(p, rand)
	if g == 0 {
		return 0, false, false, nil
	}
	if !inheritTime {
		pp.tick++
	}
	pp.cur = g
	s.tasks[g].state = TaskRunning
	return g, inheritTime, true, nil
}

// find is findRunnable's order for a single M.
func (s *Scheduler) find(p int, rand func() uint32) (int, bool) {
	pp := &s.ps[p]
	if g := pp.resume; g != 0 {
		pp.resume = 0
		return g, true
	}
	if pp.tick%FairnessTick == 0 && s.global.Len() > 0 {
		g, _ := s.global.Get()
		return g, false
	}
	if g, ok, inherit := pp.q.Get(); ok {
		return g, inherit
	}
	if s.global.Len() > 0 {
		batch := s.global.GetBatch(s.ringCap/2, len(s.ps))
		if rest := pp.q.PutBatch(batch[1:]); len(rest) != 0 {
			panic("spec: a fair-share batch did not fit an empty ring")
		}
		return batch[0], false
	}
	for pass := range StealTries {
		stealRunNext := pass == StealTries-1
		for _, v := range Visit(len(s.ps), rand()) {
			if v == p {
				continue
			}
			g, ok, err := s.ps[v].q.StealInto(pp.q, s.ps[v].q.RingLen(), stealRunNext)
			if err != nil {
				panic("spec: " + err.Error())
			}
			if ok {
				return g, false
			}
		}
	}
	return 0, false
}

// State returns task g's state.
func (s *Scheduler) State(g int) TaskState {
	if g < 1 || g >= len(s.tasks) {
		return 0
	}
	return s.tasks[g].state
}

// Tick returns P p's schedtick.
func (s *Scheduler) Tick(p int) uint32 { return s.ps[p].tick }

// Local returns P p's local queue. The caller must not change it.
func (s *Scheduler) Local(p int) *Queue[int] { return s.ps[p].q }

// GlobalLen returns the length of the global queue.
func (s *Scheduler) GlobalLen() int { return s.global.Len() }

// Tasks returns the number of tasks ever created.
func (s *Scheduler) Tasks() int { return len(s.tasks) - 1 }

// Check verifies the model's own invariants: every runnable task is in
// exactly one place (a ring, a runnext, the global queue, or a P's resume
// slot), every running task on exactly one P, and no other task anywhere.
func (s *Scheduler) Check() error {
	where := make([]int, len(s.tasks))
	place := func(g int, what string) error {
		if g < 1 || g >= len(s.tasks) {
			return violation("conservation", "%s holds task %d, which does not exist", what, g)
		}
		where[g]++
		if where[g] > 1 {
			return violation("conservation", "task %d is in two places (the second: %s)", g, what)
		}
		return nil
	}
	for i := range s.ps {
		pp := &s.ps[i]
		for _, g := range pp.q.Ring() {
			if err := place(g, fmt.Sprintf("P%d's ring", i)); err != nil {
				return err
			}
		}
		if g, ok := pp.q.RunNext(); ok {
			if err := place(g, fmt.Sprintf("P%d's runnext", i)); err != nil {
				return err
			}
		}
		for _, g := range []int{pp.cur, pp.resume} {
			if g != 0 {
				if err := place(g, fmt.Sprintf("P%d", i)); err != nil {
					return err
				}
			}
		}
	}
	for _, g := range s.global.Items() {
		if err := place(g, "the global queue"); err != nil {
			return err
		}
	}
	for g := 1; g < len(s.tasks); g++ {
		queued := where[g] == 1
		switch st := s.tasks[g].state; st {
		case TaskRunnable, TaskRunning:
			if !queued {
				return violation("conservation", "task %d is %v but nowhere", g, st)
			}
		default:
			if queued {
				return violation("conservation", "task %d is %v but queued", g, st)
			}
		}
	}
	return nil
}
