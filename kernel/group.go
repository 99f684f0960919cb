package kernel

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/trace"

	"github.com/vsched/vsched/internal/xsync"
)

// A Group is a set of tasks that are waited for together: from a goroutine
// outside the kernel with [Group.Wait], which blocks, and from inside a task
// with [Ctx.Join], which blocks nothing and runs a continuation task once
// the group is done. It keeps the first error of its tasks, cancels its
// [Group.Context] at that error, and may limit how many of its tasks are
// queued or running at once ([Group.SetLimit]). Make one with
// [Kernel.NewGroup].
//
// A group is done whenever none of its tasks is queued, running or parked.
// It may be reused: tasks added after it was done make it busy again, and a
// Wait or Join then waits for them too. The first error is kept for the
// group's whole life, and its context stays cancelled: after a failure, a
// new group is the usual choice.
//
// A Group's methods may be called from any goroutine and any task of its
// kernel, at the same time.
//
// A panic in a group task does not crash the program and does not reach
// [WithPanicHandler]: the group recovers it, and it becomes the group's
// error as a [*PanicError] with the value and the panicking task's stack, so
// it reaches whoever waits (the group's first error, if it is the first).
// A task that ends its run with runtime.Goexit (t.FailNow in a test) is
// finished with no error, as in errgroup; its worker goroutine leaves with
// it and another takes its P.
//
// A group task is a task like any other: it may spawn, park, wait for I/O
// and yield, and its function runs again from the top after each. Its
// error counts from any run; the task is finished when a run asks for
// none of those.
type Group struct {
	k *Kernel
	// pending counts, in its low bits (pendingMask), the tasks added
	// and not finished, the queued ones of a limited group included. It
	// is the only shared word of the hot path: Go adds, a finishing task
	// takes away, and the one that brings the count to 0 completes the
	// group under mu. Its bit pendingLimited is set once SetLimit gave a
	// limit: from then on Go and the finishing tasks keep active and
	// queue under mu. Go learns both from its one atomic add. Its bit
	// pendingJoinCounted is the counted flag of the first Join's
	// request (joinReq.counted); only code that holds mu changes the two
	// bits.
	pending xsync.Int64

	mu xsync.Mutex
	// The continuation of the first Join and the group it belongs to,
	// until the group is done: one Join is the usual case. Other Joins
	// wait in groupMore.joins.
	joinThen func(*Ctx, error)
	joinGrp  *Group
	// What only some groups use, made under mu by the first call that
	// needs it (moreLocked): fork/join with no error allocates only the
	// fields above, 48 bytes. Its fields are read where it exists: once
	// the group has had a limit or an error, or on a path that made it.
	*groupMore
}

// The bits of Group.pending.
const (
	pendingLimited     = 1 << 62                // SetLimit gave a limit once
	pendingJoinCounted = 1 << 61                // the first Join holds a slot of a limit
	pendingMask        = pendingJoinCounted - 1 // the count of tasks
)

// groupMore is a Group's state beyond its first Join.
type groupMore struct {
	err    error           // the first error
	parent context.Context // NewGroup's ctx, when not context.Background()
	ctx    context.Context // made by Context, derived from parent
	cancel context.CancelCauseFunc
	limit  int // SetLimit's n; <= 0: none
	// active counts the tasks that hold a slot of the limit, queued in
	// the kernel or running: those started once the group had a limit
	// (the task record's counted). A task started before holds none and
	// gives none back.
	active int
	queue  []func(*Ctx) error
	qhead  int
	// The continuations of the Joins after the first, and the blocked
	// Waits, until the group is done.
	joins   []joinReq
	waiters []*groupWaiter
	// roomWaiters are the GoWaits blocked on the limit, FIFO.
	roomWaiters []*groupWaiter
}

// moreLocked returns g's groupMore, making it the first time. Called with
// mu held.
func (g *Group) moreLocked() *groupMore {
	if g.groupMore == nil {
		g.groupMore = &groupMore{parent: context.Background()}
	}
	return g.groupMore
}

// joinReq is a registered Join: the continuation, and the group it
// belongs to (the group of the task that called Join), if any, and
// whether it holds a slot of that group's limit.
type joinReq struct {
	then    func(*Ctx, error)
	grp     *Group
	counted bool
}

// A PanicError is the error a group keeps for a task that panicked.
type PanicError struct {
	Value any    // what the task panicked with
	Stack []byte // the stack of the panicking task
}

// Error returns the panic's value and stack.
func (e *PanicError) Error() string {
	return fmt.Sprintf("kernel: a group task panicked: %v\n\n%s", e.Value, e.Stack)
}

// Unwrap returns the panic's value when it is an error, so that
// errors.Is and errors.As see through the panic.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// NewGroup returns an empty group of tasks on k. Its context
// ([Group.Context]) is derived from ctx; a nil ctx means
// context.Background().
func (k *Kernel) NewGroup(ctx context.Context) *Group {
	g := &Group{k: k}
	if ctx != nil && ctx != context.Background() {
		g.groupMore = &groupMore{parent: ctx}
	}
	return g
}

// Go adds fn to the group as a new task. From inside a task of the same
// kernel it spawns as [Ctx.Go] does (the child runs next on this P); from
// any other goroutine as [Kernel.Go] does. It costs one atomic add beyond
// the spawn and allocates nothing beyond the caller's closure.
//
// Over the group's limit ([Group.SetLimit]), Go does not start fn and
// never blocks: fn waits in the group's FIFO queue, and the next of the
// group's tasks to finish starts it. [Group.GoWait] is the Go that waits
// for room instead, for a goroutine outside the kernel that must not let
// the queue grow, and [Group.TryGo] the Go that declines, for any caller.
//
// Go returns [ErrNilFunc] for a nil fn, and [ErrClosed] from outside the
// kernel once Shutdown or Close has been called; fn is then not added.
func (g *Group) Go(fn func(*Ctx) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	counted := g.pending.Add(1)&pendingLimited != 0
	if counted && !g.admit(fn) {
		return nil // queued
	}
	if err := g.start(g.k.taskM(), fn, counted); err != nil {
		g.finishOne(nil, counted) // rolls back the count and the limit's slot
		return err
	}
	return nil
}

// TryGo adds fn to the group as a new task, as [Group.Go] does, only if
// it starts at once: when g has no limit, or fewer of its tasks hold a
// slot of the limit than the limit allows (see [Group.SetLimit] for which
// tasks hold one) and no function waits in its queue. Otherwise it adds
// nothing and returns false. A slot that a finishing task frees may go to
// a TryGo before a GoWait blocked on the limit takes it, as with Go. It never blocks and
// never queues, from a task or from any other goroutine: how a task adds
// to a limited group without letting the group's queue grow (a goroutine
// outside the kernel may wait for room with [Group.GoWait] instead). Like
// errgroup's TryGo, the answer is a snapshot: a slot may free up just
// after a false.
//
// TryGo returns false and [ErrNilFunc] for a nil fn, and false and
// [ErrClosed] from outside the kernel once Shutdown or Close has been
// called, when fn would otherwise have started (a full group declines
// first, with a nil error).
func (g *Group) TryGo(fn func(*Ctx) error) (bool, error) {
	if fn == nil {
		return false, ErrNilFunc
	}
	counted, ok := g.reserve()
	if !ok {
		return false, nil
	}
	if err := g.start(g.k.taskM(), fn, counted); err != nil {
		g.finishOne(nil, counted) // rolls back the count and the limit's slot
		return false, err
	}
	return true, nil
}

// reserve adds a new task to g's pending count if the task may start at
// once, and reports whether the task holds a slot of g's limit (counted)
// and whether it was added (ok). A group that never had a limit takes an
// atomic load and an add, and no lock.
func (g *Group) reserve() (counted, ok bool) {
	if g.pending.Load()&pendingLimited == 0 {
		if g.pending.Add(1)&pendingLimited == 0 {
			return false, true
		}
		// SetLimit came in between: this task holds a slot if there is
		// room, and otherwise its count is taken back, which completes
		// g if it was the last.
		g.mu.Lock()
		if g.hasRoomLocked() {
			g.active++
			g.mu.Unlock()
			return true, true
		}
		g.mu.Unlock()
		g.finishOne(nil, false)
		return false, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.hasRoomLocked() {
		return false, false
	}
	return g.countLocked(), true
}

// countLocked counts a new task in g that starts at once, and reports
// whether it holds a slot of g's limit. Called with mu held, where g has
// room.
func (g *Group) countLocked() bool {
	counted := g.pending.Add(1)&pendingLimited != 0
	if counted {
		g.active++
	}
	return counted
}

// admit counts fn as active if the limit allows, else queues it. It
// reports whether fn may start.
func (g *Group) admit(fn func(*Ctx) error) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.limit > 0 && g.active >= g.limit {
		g.queue = append(g.queue, fn)
		return false
	}
	g.active++
	return true
}

// start spawns fn as a task of g (see [Kernel.spawnGroupTask]). counted
// says whether it holds a slot of g's limit.
func (g *Group) start(mp *m, fn func(*Ctx) error, counted bool) error {
	if !g.k.spawnGroupTask(mp, groupTask{grp: g, gfn: fn, counted: counted}) {
		return ErrClosed
	}
	return nil
}

// spawnGroupTask makes t a new task: on mp's P, next, when mp is the
// calling task's M and holds a P, else onto the global queue. From outside
// a task it refuses a new group task once the kernel stops taking work,
// and a Join continuation, which finishes work already admitted, only once
// the kernel has stopped; it reports whether it made the task.
func (k *Kernel) spawnGroupTask(mp *m, t groupTask) bool {
	if mp != nil && mp.p != nil {
		pp := mp.p
		gp := k.gfget(pp)
		gp.fn = runGroupTask
		gp.setGroupTask(t)
		k.stampReady(gp)
		k.runqput(pp, gp, true)
		pp.c.spawned++
		k.wakep()
		return true
	}
	k.lock.Lock()
	if st := k.state.Load(); st == stateStopped || st == stateDraining && t.then == nil {
		k.lock.Unlock()
		return false
	}
	gp := k.gfgetLocked()
	gp.fn = runGroupTask
	gp.setGroupTask(t)
	k.globrunqputLocked(gp)
	k.remote++
	k.lock.Unlock()
	k.wakep()
	return true
}

// taskM returns the M of the calling goroutine when it runs a task that
// holds a P, else nil.
func (k *Kernel) taskM() *m {
	var mp *m
	if xsync.GetgCheap {
		mp = k.callerMFast()
	} else {
		mp = k.callerM()
	}
	if mp == nil || mp.curg == nil || mp.p == nil {
		return nil
	}
	return mp
}

// maxDirectJoins bounds the continuations one run of a record goes on
// with (see runGroupTask); the next one is spawned, and the P goes back
// through its scheduler, the global queue's fairness check included.
const maxDirectJoins = 16

// runGroupTask is the function of the record of every group task and
// every Join continuation: it runs the task's own function and, when the
// task is finished, finishes it in its group. When that completes the
// group and a Join waits for it, the record goes on with that Join's
// continuation as a new task, where the hand-written fork/join goes on
// with the parent's frame: no spawn, no queue, no other M woken.
func runGroupTask(c *Ctx) {
	gp := c.g
	for n := 1; ; n++ {
		j, jerr, next := runGroupTaskOnce(c, n <= maxDirectJoins)
		if !next {
			return
		}
		// gp's task is dead and j's continuation starts on its record,
		// as gdead and spawnGroupTask would have it, and it is a new run
		// for the monitor (its stall check), in the same time slice.
		pp := c.m.p
		pp.c.finished++
		pp.c.spawned++
		pp.beginRun()
		gp.retireWaker()
		if x := gp.x; x != nil {
			x.err = nil
		}
		gp.setGroupTask(groupTask{grp: j.grp, then: j.then, jerr: jerr, counted: j.counted})
	}
}

// runGroupTaskOnce runs the task of c's record once. When the task is
// finished, its group completes, direct is true, and a Join waits for the
// group, it returns that Join and the group's first error and true,
// instead of spawning the continuation.
func runGroupTaskOnce(c *Ctx, direct bool) (joinReq, error, bool) {
	gp := c.g
	grp := gp.grp
	finished := false
	if grp != nil {
		defer func() {
			if finished {
				return
			}
			// A panic, recovered here, or runtime.Goexit, which goes on
			// and takes the M with it (mdying): either way the task is
			// dead, whatever it asked for, and finished in its group.
			v := recover()
			gp.yield, gp.parking = false, false
			cancelWait(gp)
			if v != nil {
				grp.setErr(&PanicError{Value: v, Stack: debug.Stack()})
			}
			grp.finishOne(c.m, gp.counted)
		}()
	}
	var err error
	if !gp.cont {
		err = gp.gfn(c)
	} else {
		var jerr error
		if gp.jerr {
			jerr = gp.x.jerr
		}
		gp.then()(c, jerr)
	}
	finished = true
	if grp == nil {
		return joinReq{}, nil, false // a continuation of a task outside any group
	}
	if err != nil {
		grp.setErr(err)
	}
	if gp.yield || gp.parking || gp.waitAsked() {
		return joinReq{}, nil, false // it runs again
	}
	// Not once the kernel has stopped: the continuation is spawned, and
	// Close drops it, as it drops what any run spawns then.
	k := c.m.k
	direct = direct && !k.histograms && !trace.IsEnabled() && k.state.Load() != stateStopped
	return grp.finish(c.m, gp.counted, direct)
}

// errLocked returns g's first error. Called with mu held.
func (g *Group) errLocked() error {
	if g.groupMore == nil {
		return nil
	}
	return g.err
}

// setErr keeps err if it is the group's first, and cancels the group's
// context with it.
func (g *Group) setErr(err error) {
	g.mu.Lock()
	m := g.moreLocked()
	if m.err != nil {
		g.mu.Unlock()
		return
	}
	m.err = err
	cancel := m.cancel
	g.mu.Unlock()
	if cancel != nil {
		cancel(err)
	}
}

// finishOne ends one task of g, or takes back the count of one that was
// not started: a task that held a slot of the limit (counted) hands it to
// the next queued function, and the task that brings pending to 0
// completes the group. mp is the finishing task's M, nil outside the
// kernel.
func (g *Group) finishOne(mp *m, counted bool) {
	g.finish(mp, counted, false)
}

// finish is finishOne; with direct set, a completing group's first Join is
// returned with the group's first error and true rather than spawned.
func (g *Group) finish(mp *m, counted, direct bool) (joinReq, error, bool) {
	if counted {
		if fn := g.handOff(); fn != nil {
			if err := g.start(mp, fn, true); err != nil {
				// The kernel stopped: fn is dropped, as a queued
				// task is by Close.
				g.k.lock.Lock()
				g.k.dropped++
				g.k.lock.Unlock()
				g.pending.Add(-1)
			}
		}
	}
	if g.pending.Add(-1)&pendingMask == 0 {
		return g.complete(mp, direct)
	}
	return joinReq{}, nil, false
}

// handOff is a finishing task's turn at the limit: it returns the next
// queued function, which takes over the task's slot, or gives the slot
// back.
func (g *Group) handOff() func(*Ctx) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.qhead < len(g.queue) && (g.limit <= 0 || g.active <= g.limit) {
		fn := g.queue[g.qhead]
		g.queue[g.qhead] = nil
		g.qhead++
		if g.qhead == len(g.queue) {
			g.queue, g.qhead = g.queue[:0], 0
		}
		return fn
	}
	g.active--
	g.wakeRoomLocked()
	return nil
}

// wakeRoomLocked wakes the first GoWait blocked on the limit when there
// is room. Called with mu held.
func (g *Group) wakeRoomLocked() {
	if len(g.roomWaiters) > 0 && g.hasRoomLocked() {
		w := g.roomWaiters[0]
		g.roomWaiters[0] = nil
		g.roomWaiters = g.roomWaiters[1:]
		w.wake(waiterDone)
	}
}

// hasRoomLocked reports whether a function added now would start at
// once. Called with mu held.
func (g *Group) hasRoomLocked() bool {
	return g.limit <= 0 || g.active < g.limit && g.qhead == len(g.queue)
}

// GoWait is [Group.Go] for a goroutine outside the kernel that must not
// let g's queue grow: when g is at its limit, or functions wait in its
// queue, GoWait blocks until one of g's tasks finishes and there is room,
// and then adds fn, which starts at once. Without a limit it is Go.
// Inside a task it returns an error wrapping [ErrInTask] (a task never
// blocks; it uses Go, which queues); inside the function of [Ctx.Block],
// which holds no P, it may block, as Wait may. GoWait returns
// [ErrNilFunc] for a nil fn and [ErrClosed] when the kernel stops, before
// or while it waits.
func (g *Group) GoWait(fn func(*Ctx) error) error {
	if fn == nil {
		return ErrNilFunc
	}
	k := g.k
	if k.taskM() != nil {
		return fmt.Errorf("kernel: Group.GoWait: %w", ErrInTask)
	}
	for {
		g.mu.Lock()
		g.moreLocked()
		if g.hasRoomLocked() {
			counted := g.countLocked()
			g.mu.Unlock()
			if err := g.start(nil, fn, counted); err != nil {
				g.finishOne(nil, counted)
				return err
			}
			return nil
		}
		w := &groupWaiter{}
		g.roomWaiters = append(g.roomWaiters, w)
		g.mu.Unlock()
		if k.sleepGroupWaiter(w) == waiterClosed {
			g.mu.Lock()
			g.roomWaiters = removeWaiter(g.roomWaiters, w)
			g.mu.Unlock()
			return ErrClosed
		}
	}
}

// complete runs when a finishing task brought pending to 0: unless a Go
// made the group busy again meanwhile, it wakes the blocked Waits and
// starts the Join continuations. Looking at pending again under mu, where
// Wait and Join look at it before they register, is what makes a
// registration either see 0 or be found here.
func (g *Group) complete(mp *m, direct bool) (joinReq, error, bool) {
	g.mu.Lock()
	v := g.pending.Load()
	if v&pendingMask != 0 {
		g.mu.Unlock()
		return joinReq{}, nil, false
	}
	j1 := joinReq{then: g.joinThen, grp: g.joinGrp, counted: v&pendingJoinCounted != 0}
	if j1.then != nil {
		g.joinThen, g.joinGrp = nil, nil
		if j1.counted {
			g.pending.Add(-pendingJoinCounted)
		}
	}
	var err error
	var js []joinReq
	var ws []*groupWaiter
	if g.groupMore != nil {
		err = g.err
		js, ws = g.joins, g.waiters
		g.joins, g.waiters = nil, nil
	}
	g.mu.Unlock()
	for _, w := range ws {
		w.wake(waiterDone)
	}
	for _, j := range js {
		g.startJoin(mp, j, err)
	}
	if j1.then != nil {
		if direct {
			return j1, err, true
		}
		g.startJoin(mp, j1, err)
	}
	return joinReq{}, nil, false
}

// startJoin spawns the continuation of a Join of g (see
// [Kernel.spawnGroupTask]); one that finds the kernel stopped is dropped.
func (g *Group) startJoin(mp *m, j joinReq, err error) {
	if !g.k.spawnGroupTask(mp, groupTask{grp: j.grp, then: j.then, jerr: err, counted: j.counted}) {
		g.k.lock.Lock()
		g.k.dropped++
		g.k.lock.Unlock()
	}
}

// Join asks for then to run as a new task once g is done, with g's first
// error (nil if none): how a task waits for its children. It blocks
// nothing and holds no P meanwhile; the calling task goes on and may
// return. If g is done already, then is spawned at once, as [Ctx.Go]
// spawns: next on this P, after the calling task's run, unless the run
// spawns again, which puts the newer task first.
// Otherwise the first Join's continuation runs where the task that
// finished g last ends, on its M, right after it, as a new task on the
// same record: the parent of a fork/join goes on where its last child
// ends, with no queue and no wakeup between. It is spawned on that P
// instead (as Ctx.Go spawns) after a chain of 16 such continuations, with
// WithHistograms or the execution tracer on, and once the kernel has
// stopped; so are later Joins' continuations. Each Join runs its
// continuation exactly once.
// The error then receives is g's first error as it was when g was done.
//
// When the calling task belongs to a group (it was added with [Group.Go],
// or is itself a Join continuation of a task in a group), the
// continuation belongs to that group too, from the moment of the Join: a
// task that joins its own children keeps its parent group busy until
// the children's results are in, so fork/join recursion needs no counter
// of its own. The continuation of a Join on the caller's own group belongs
// to no group (it would wait for itself). A continuation belongs to a
// group over that group's limit, because the work it waits for has been
// admitted already.
//
// then returns no error: a continuation that must fail the group it
// belongs to adds a task to that group that returns the error (the
// joining task passes that group on to it), and the group keeps it as it
// keeps any task's.
//
// A continuation whose group is still busy when the kernel stops never
// runs. Join panics if g or then is nil or g belongs to another kernel.
func (c *Ctx) Join(g *Group, then func(*Ctx, error)) {
	mp := c.running("Join")
	if g == nil {
		panic("kernel: Ctx.Join with a nil group")
	}
	if then == nil {
		panic("kernel: Ctx.Join with a nil function")
	}
	if g.k != mp.k {
		panic("kernel: Ctx.Join on a group of another kernel")
	}
	j := joinReq{then: then}
	if gp := c.g; gp.grp != nil && gp.grp != g {
		j.grp = gp.grp
		if j.grp.pending.Add(1)&pendingLimited != 0 {
			j.counted = true
			j.grp.mu.Lock()
			j.grp.active++
			j.grp.mu.Unlock()
		}
	}
	g.mu.Lock()
	if g.pending.Load()&pendingMask != 0 {
		if g.joinThen == nil {
			g.joinThen, g.joinGrp = j.then, j.grp
			if j.counted {
				g.pending.Add(pendingJoinCounted)
			}
		} else {
			m := g.moreLocked()
			m.joins = append(m.joins, j)
		}
		g.mu.Unlock()
		return
	}
	err := g.errLocked()
	g.mu.Unlock()
	g.startJoin(mp, j, err)
}

// The outcomes of a blocked Wait.
const (
	waiterBlocked = iota
	waiterDone    // the group completed
	waiterClosed  // the kernel stopped first
)

// groupWaiter is a blocked Wait: the group that completes, or the kernel
// that stops, wakes it, whichever comes first.
type groupWaiter struct {
	state xsync.Uint32
	note  xsync.Note
}

// wake ends the wait with outcome, if nothing ended it yet.
func (w *groupWaiter) wake(outcome uint32) {
	if w.state.Cas(waiterBlocked, outcome) {
		w.note.Wakeup()
	}
}

// Wait blocks until every task added to g has finished, and returns g's
// first error (nil if none): a task's error or [*PanicError]. It is for
// goroutines outside the kernel; a task waits with [Ctx.Join]. Inside a
// task Wait returns an error wrapping [ErrInTask] at once (inside the
// function of [Ctx.Block], which holds no P, it may block).
//
// When the kernel stops before g is done (Close drops queued tasks;
// Shutdown does not wait for parked ones), Wait returns an error matching
// [ErrClosed], joined with g's first error if there is one.
func (g *Group) Wait() error {
	k := g.k
	if k.taskM() != nil {
		return fmt.Errorf("kernel: Group.Wait: %w", ErrInTask)
	}
	g.mu.Lock()
	if g.pending.Load()&pendingMask == 0 {
		err := g.errLocked()
		g.mu.Unlock()
		return err
	}
	w := &groupWaiter{}
	m := g.moreLocked()
	m.waiters = append(m.waiters, w)
	g.mu.Unlock()

	outcome := k.sleepGroupWaiter(w)
	g.mu.Lock()
	g.waiters = removeWaiter(g.waiters, w)
	err := g.err
	g.mu.Unlock()
	if outcome == waiterClosed {
		return errors.Join(ErrClosed, err)
	}
	return err
}

func removeWaiter(ws []*groupWaiter, w *groupWaiter) []*groupWaiter {
	for i, x := range ws {
		if x == w {
			last := len(ws) - 1
			ws[i], ws[last] = ws[last], nil
			return ws[:last]
		}
	}
	return ws
}

// sleepGroupWaiter blocks a Wait or GoWait in w until its group wakes it
// or the kernel stops (w is registered with the kernel meanwhile, so that
// a stop releases it; a kernel stopped already ends the wait at once), and
// returns the outcome.
func (k *Kernel) sleepGroupWaiter(w *groupWaiter) uint32 {
	k.lock.Lock()
	if k.state.Load() == stateStopped {
		w.wake(waiterClosed)
	} else {
		k.groupWaiters = append(k.groupWaiters, w)
	}
	k.lock.Unlock()
	w.note.Sleep()
	k.lock.Lock()
	k.groupWaiters = removeWaiter(k.groupWaiters, w)
	k.lock.Unlock()
	return w.state.Load()
}

// releaseGroupWaitersLocked ends every blocked Wait once the kernel has
// stopped: no task of theirs will run any more. Called with the lock held.
func (k *Kernel) releaseGroupWaitersLocked() {
	for _, w := range k.groupWaiters {
		w.wake(waiterClosed)
	}
}

// SetLimit limits g to n tasks queued in the kernel or running at once;
// n <= 0 removes the limit. Functions added over the limit wait in g's
// FIFO queue, and each task of g that finishes starts the next one: the
// limit never blocks a task and never drops a function. A raised limit
// starts queued functions at once. The limit counts the tasks added
// once g first had a limit: the tasks added before (set the limit before
// adding) run on and hold no slot. Once a group has had a limit, its Go
// and its finishing tasks take g's lock, even after the limit is removed.
func (g *Group) SetLimit(n int) {
	g.mu.Lock()
	g.moreLocked().limit = n
	if n > 0 && g.pending.Load()&pendingLimited == 0 {
		g.pending.Add(pendingLimited) // only here, under mu: set once
	}
	var start []func(*Ctx) error
	for g.qhead < len(g.queue) && (n <= 0 || g.active < n) {
		start = append(start, g.queue[g.qhead])
		g.queue[g.qhead] = nil
		g.qhead++
		g.active++
	}
	if g.qhead == len(g.queue) {
		g.queue, g.qhead = g.queue[:0], 0
	}
	// Wake as many blocked GoWaits as there is room; each takes its
	// slot itself, and one that finds none waits again.
	for room := g.limit - g.active; len(g.roomWaiters) > 0 && (n <= 0 || room > 0); room-- {
		w := g.roomWaiters[0]
		g.roomWaiters[0] = nil
		g.roomWaiters = g.roomWaiters[1:]
		w.wake(waiterDone)
	}
	g.mu.Unlock()
	mp := g.k.taskM()
	for _, fn := range start {
		if err := g.start(mp, fn, true); err != nil {
			g.finishOne(nil, true)
		}
	}
}

// Context returns g's context: derived from the context given to
// [Kernel.NewGroup], and cancelled, with the error as its cause, at g's
// first error or panic. It is made at the first call; a group whose tasks
// never look at it pays nothing for it. Like any derived context it holds
// on to its parent's resources until the parent is done or g fails.
func (g *Group) Context() context.Context {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.moreLocked().ctx == nil {
		g.ctx, g.cancel = context.WithCancelCause(g.parent)
		if g.err != nil {
			g.cancel(g.err)
		}
	}
	return g.ctx
}
