package kernel

import (
	"github.com/vsched/vsched/internal/pollproto"
	"runtime/debug"
	"runtime/trace"
	"unsafe"

	"github.com/vsched/vsched/internal/xsync"
)

// g is a task record, the runtime's g without a stack: the function, its
// Ctx, the requests of the current run, and the links of the free lists.
// Records are recycled through per-P and global free lists (gfput, gfget).
type g struct {
	// The record fits one 64-byte cache line (TestTaskRecordFitsACacheLine)
	// with what a plain task or a group task needs, so that such a task
	// spawned on one P and run on another moves one line between their
	// caches. What only some tasks use lives behind a pointer (x); a
	// record keeps it once made, and every run on that record looks at it
	// (execute), so a recycled record that once waited, parked, continued
	// a Join with an error or ran with WithHistograms moves a second line.
	fn   func(*Ctx)
	ctx  Ctx
	kind *Kind // for the stall hook, the tracer and the profiler; nil for none
	// The group task's group, and its function (fn is then
	// runGroupTask): the one Group.Go added or, when cont is set, a Join
	// continuation's, in the same word (then, setGroupTask); nil for
	// other tasks.
	grp *Group
	gfn func(*Ctx) error
	// x is the task's rarer state, made the first time the record needs
	// it and kept with the record: most records never wait on I/O, park,
	// continue a Join with an error or run with WithHistograms on.
	x *gext
	// The requests of the current run, read when fn returns.
	yield   bool
	parking bool
	// counted: the group task holds a slot of grp's limit
	// (Group.SetLimit).
	counted bool
	// cont: gfn is a Join continuation; jerr: the error it receives,
	// the joined group's first error, is in x.jerr (else it is nil).
	cont bool
	jerr bool
}

// gext is a task record's rarer state.
type gext struct {
	req ioWait // Ctx.WaitRead or WaitWrite, until the next run
	// pw is the task's place in a wait slot, made at its first wait and
	// kept with the record: no slot holds it while the record is free.
	pw  *pollproto.Waiter
	err error // Ctx.WaitErr in this run
	// readyAt is when the task last became runnable, with WithHistograms;
	// 0 while it runs or waits.
	readyAt int64
	// waker is the task's Waker, made at its first Park and kept until
	// it dies; a dead task's Waker is never reused.
	waker *Waker
	// jerr is the first error of the group a Join continuation joined,
	// as that group completed, when not nil (g.jerr); nil on every other
	// record.
	jerr error
}

// groupTask is what a group task or a Join continuation is made of: the
// task's group, if any, and its function, gfn for one that [Group.Go]
// added, then for a continuation, which gets jerr, the first error of the
// group it joined as that group completed. A continuation belongs to the
// group of the task that called Join, if any.
type groupTask struct {
	grp  *Group
	gfn  func(*Ctx) error
	then func(*Ctx, error)
	jerr error
	// counted: the task holds a slot of grp's limit (Group.SetLimit).
	counted bool
}

// setGroupTask makes t the record's group task. It writes a pointer only
// where the old or the new one is set: a record comes from the free list
// with them zero and goes back with them zero, and each pointer written
// costs a write barrier while the garbage collector runs. Only a non-nil
// jerr reaches the rarer state, so that a fork/join without errors keeps
// to the record's one line.
func (gp *g) setGroupTask(t groupTask) {
	if gp.grp != t.grp {
		gp.grp = t.grp
	}
	fn := t.gfn
	if t.then != nil {
		// A func value is one pointer to its closure, whatever its
		// signature: the word holds either kind, and cont says which.
		fn = *(*func(*Ctx) error)(unsafe.Pointer(&t.then))
	}
	if gp.gfn != nil || fn != nil {
		gp.gfn = fn
	}
	gp.cont = t.then != nil
	gp.counted = t.counted
	if gp.jerr || t.jerr != nil {
		gp.extra().jerr = t.jerr
		gp.jerr = t.jerr != nil
	}
}

// then returns the Join continuation of the record's task, which
// setGroupTask stored in gfn's word. Called only where cont is set: gfn
// holds a func(*Ctx) error otherwise, and a call through the wrong type
// is undefined.
func (gp *g) then() func(*Ctx, error) {
	return *(*func(*Ctx, error))(unsafe.Pointer(&gp.gfn))
}

// extra returns gp's rarer state, making it the first time.
func (gp *g) extra() *gext {
	if gp.x == nil {
		gp.x = &gext{}
	}
	return gp.x
}

// waitAsked reports whether gp's current run asked for a descriptor wait.
func (gp *g) waitAsked() bool { return gp.x != nil && gp.x.req.d != nil }

// Ctx is a running task's handle on the kernel. A task receives it as the
// argument of its function; it is valid only while that function runs, on
// the goroutine that runs it. A Ctx used after its task returned, from
// another goroutine, or inside [Ctx.Block]'s function panics with a message
// that names the misuse (a record may be recycled for another task, so a
// Ctx kept past its run must never be used). The check reads the Ctx
// without synchronization, so under the race detector a use from another
// goroutine is reported as a data race, which names the misuse as well.
type Ctx struct {
	g *g
	m *m // the M running the task, or nil between runs
}

// running returns the M that runs c's task and may use its P, or panics
// naming the misuse.
func (c *Ctx) running(op string) *m {
	mp := c.m
	if mp == nil || mp.curg != c.g {
		panic("kernel: Ctx." + op + " called after its task returned (a Ctx is valid only while its task runs)")
	}
	if xsync.GetgCheap && xsync.Getg() != mp.gid {
		panic("kernel: Ctx." + op + " called from a goroutine other than its task's")
	}
	if mp.p == nil {
		panic("kernel: Ctx." + op + " called inside Block (the task holds no P while it blocks)")
	}
	return mp
}

// Go spawns fn as a new task on this task's P: the child goes to the P's
// runnext, so it runs next on this P, inheriting the time slice, unless a
// thief takes it; the task it displaces from runnext goes to the tail of the
// local queue. Then an idle P is woken if no M is spinning (wakep). This is
// the runtime's newproc. Go allocates nothing beyond the caller's closure.
// It panics if fn is nil.
func (c *Ctx) Go(fn func(*Ctx)) {
	c.spawn("Go", nil, fn)
}

// TryGo spawns fn as [Ctx.Go] does when the kernel has room to run it in
// parallel, and reports whether it did. It returns false, spawning nothing,
// when every P is busy (none idle, no M spinning) and this P's local queue
// already holds a task that a P running out of work would take first: a
// new task would only wait in the queue, and running fn's work in place is
// cheaper. Divide-and-conquer code calls TryGo at each split and does the
// work inline when it returns false, as with the TryGo of a bounded worker
// pool, so that a saturated kernel stops paying for tasks nobody is free
// to take (help-first while there is slack, work-first when there is
// none). The answer costs a few loads and is a snapshot: a P may go idle
// just after. It panics if fn is nil.
//
// Work done inline runs in the caller's run, with the caller's Ctx: a
// Park, Yield or wait in it is the caller's, and the caller's function
// runs again from the top when it resumes. Give TryGo functions that only
// compute and spawn.
func (c *Ctx) TryGo(fn func(*Ctx)) bool {
	mp := c.running("TryGo")
	if fn == nil {
		panic("kernel: Ctx.TryGo of a nil function")
	}
	if k := mp.k; k.npidle.Load() == 0 && k.nmspinning.Load() == 0 && mp.p.runq.Len() > 0 {
		return false
	}
	c.spawn("TryGo", nil, fn)
	return true
}

// spawn is Go and GoKind, named by what for the misuse messages.
func (c *Ctx) spawn(what string, kd *Kind, fn func(*Ctx)) {
	mp := c.running(what)
	if fn == nil {
		panic("kernel: Ctx." + what + " of a nil function")
	}
	k, pp := mp.k, mp.p
	gp := k.gfget(pp)
	gp.fn, gp.kind = fn, kd
	k.stampReady(gp)
	k.runqput(pp, gp, true)
	pp.c.spawned++
	k.wakep()
}

// GoBatch spawns every function of fns as a new task, with the runtime's
// injectglist on this P: as many tasks as there are idle Ps go to the
// global queue with an M started for each, the rest to this P's local queue,
// and a final wakep covers Ps that went idle meanwhile. It panics if a
// function is nil, before spawning any. Beyond the callers' closures,
// GoBatch allocates one slice of len(fns) task pointers per call, the
// batch it hands to the queues in one step; [Ctx.Go] allocates nothing.
func (c *Ctx) GoBatch(fns ...func(*Ctx)) {
	mp := c.running("GoBatch")
	for _, fn := range fns {
		if fn == nil {
			panic("kernel: Ctx.GoBatch of a nil function")
		}
	}
	k, pp := mp.k, mp.p
	gs := make([]*g, len(fns))
	for i, fn := range fns {
		gs[i] = k.gfget(pp)
		gs[i].fn = fn
		k.stampReady(gs[i])
	}
	pp.c.spawned += uint64(len(fns))
	k.injectglist(pp, gs)
}

// Yield asks for the task to run again later: when its function returns,
// the task goes to the tail of the global queue (the runtime's Gosched) and
// its function runs again from the top. It panics after [Ctx.Park] in the
// same run.
func (c *Ctx) Yield() {
	c.running("Yield")
	if c.g.parking || c.g.waitAsked() {
		panic("kernel: Ctx.Yield after Ctx.Park, Ctx.WaitRead or Ctx.WaitWrite in the same run")
	}
	c.g.yield = true
}

// Park asks for the task to wait: when its function returns, the task waits
// until the returned [Waker] is woken, and then its function runs again from
// the top (its state lives in its closure). The park commits only after the
// function has returned, so a Wake that comes earlier, even before Park
// itself returns, is not lost: the task then runs again at once, inheriting
// its time slice (a failed gopark commit). Park panics when called twice in
// one run or after [Ctx.Yield], [Ctx.WaitRead] or [Ctx.WaitWrite].
//
// A task keeps one Waker for its whole life: every Park re-arms it.
func (c *Ctx) Park() *Waker {
	mp := c.running("Park")
	gp := c.g
	if gp.parking || gp.yield || gp.waitAsked() {
		panic("kernel: Ctx.Park called twice, or after Ctx.Yield, Ctx.WaitRead or Ctx.WaitWrite, in one run")
	}
	x := gp.extra()
	w := x.waker
	if w == nil {
		w = &Waker{g: gp, k: mp.k}
		x.waker = w
	}
	gp.parking = true
	w.state.Store(wRequested)
	return w
}

// The states of a Waker.
const (
	wIdle      = iota // the task is not parked and has not asked to be
	wRequested        // Park was called in the current run
	wWoken            // a Wake came before the park committed
	wParked           // the park committed: the task waits
	wDead             // the task is dead; the Waker does nothing any more
)

// Waker wakes a parked task; [Ctx.Park] returns it. Its zero value is not
// usable.
type Waker struct {
	// state is the park word: the runtime's g status together with the
	// commit of gopark's unlock function.
	state xsync.Uint32
	g     *g
	k     *Kernel
}

// Wake wakes the park that the task asked for last, once. It may be called
// from any goroutine at any time: before the park committed (the task then
// runs again as soon as its function returns), while the task waits (the
// task becomes runnable), or at any other time, when it does nothing (a task
// that is running without having asked to park, one already woken, or a
// dead one).
//
// A woken task goes to the runnext of the waker's P when the waker is a task
// running on a P (the runtime's goready), so the two hand off on one P;
// from any other goroutine it goes to the tail of the global queue, and an
// idle P is woken (wakep). After the kernel stopped, the woken task is
// dropped and counted in [Stats.DroppedCount].
func (w *Waker) Wake() {
	for {
		switch w.state.Load() {
		case wRequested:
			if w.state.Cas(wRequested, wWoken) {
				return
			}
		case wParked:
			if w.state.Cas(wParked, wIdle) {
				w.k.stampReady(w.g)
				w.k.ready(w.g)
				return
			}
		default:
			return
		}
	}
}

// ready makes a woken task runnable (goready): into the runnext of the
// caller's P if the caller is a task running on a P, else onto the global
// queue. Called from any goroutine. Differs from the runtime: DESIGN.md
// §3.1.
func (k *Kernel) ready(gp *g) {
	if mp := k.callerMFast(); mp != nil && mp.curg != nil && mp.p != nil {
		pp := mp.p
		pp.c.wakes++
		k.runqput(pp, gp, true)
		k.wakep()
		return
	}
	k.outsideWakes.Add(1)
	k.lock.Lock()
	k.globrunqputLocked(gp)
	k.lock.Unlock()
	k.wakep()
}

// Block runs fn, which may block its goroutine (a lock, a file, a cgo
// call), while the P is free for other tasks: the runtime's entersyscall
// and exitsyscall. With [HandoffLazy] the P stays with this M, marked as in
// Block, and the monitor hands it to another M if fn takes long and there is
// other work; with [HandoffEager] it is handed off at once. When fn returns,
// the M takes a P again before the task goes on: its own if nobody took
// it, else an idle one, else it waits for the next P that comes free, ahead
// of queued tasks.
//
// fn must not use the Ctx: the task holds no P while fn runs. If fn panics,
// the panic goes on through the task once the M holds a P again.
func (c *Ctx) Block(fn func()) {
	mp := c.running("Block")
	k := mp.k
	pp := k.entersyscall(mp)
	defer k.exitsyscall(mp, pp)
	fn()
}

// runTask runs gp's function and reports whether it returned, or panicked
// into the panic handler; false means the goroutine is leaving through
// runtime.Goexit or an unrecovered panic, and the M dies with it.
func (k *Kernel) runTask(mp *m, gp *g) (ok bool) {
	defer func() {
		if ok {
			return
		}
		if k.panicHandler != nil {
			if v := recover(); v != nil {
				k.panicHandler(v, debug.Stack())
				gp.yield, gp.parking = false, false // it is dead
				cancelWait(gp)
				ok = true
				return
			}
		}
		k.mdying(mp, gp)
	}()
	if gp.kind == nil && !k.histograms && !trace.IsEnabled() {
		gp.fn(&gp.ctx)
		return true
	}
	k.runObserved(mp, gp)
	return true
}

// execute runs gp on mp's P and then does what the task asked for (the
// runtime's execute, and goexit0, gopark's commit or goschedImpl when the
// function returns). It reports false when the M's goroutine is leaving.
// Executed only by mp, on the P it holds. Differs from the runtime: DESIGN.md
// §3.1.
func (k *Kernel) execute(mp *m, gp *g, inheritTime bool) bool {
	pp := mp.p
	if !inheritTime {
		pp.schedtick++
	}
	pp.beginRun()
	if gp.kind != nil || pp.kindShown {
		// For the monitor's stall report: the kind of what runs now.
		pp.kind.Store(gp.kind)
		pp.kindShown = gp.kind != nil
	}
	if io := gp.x; io != nil {
		if io.req.d != nil {
			// This run follows a wait, whatever ended it.
			finishWait(io)
			mp.served = true // stopm's spin: this M serves I/O
		} else if io.err != nil {
			io.err = nil // no wait before this run (a recycled record, a yield)
		}
	}
	mp.curg = gp
	gp.ctx.m = mp
	if !k.runTask(mp, gp) {
		return false
	}
	gp.ctx.m = nil
	mp.curg = nil
	pp = mp.p // Block may have moved the task to another P
	switch {
	case gp.yield:
		gp.yield = false
		pp.c.yields++
		k.lock.Lock()
		k.globrunqputLocked(gp)
		k.lock.Unlock()
		k.wakep()
	case gp.waitAsked():
		if k.commitWait(pp, gp) {
			// From here the poller may run gp anywhere: do not touch it.
			pp.c.parks++
			traceParked(pp)
		}
	case gp.parking:
		gp.parking = false
		if gp.x.waker.state.Cas(wRequested, wParked) {
			// From here a Wake may run gp anywhere: do not touch it.
			pp.c.parks++
			traceParked(pp)
		} else {
			// Woken before the commit: run again at once.
			gp.x.waker.state.Store(wIdle)
			if pp.resume != nil {
				throw("execute: the resume slot is full")
			}
			pp.resume = gp
		}
	default:
		k.gdead(pp, gp)
	}
	// By distance, not by multiples: a run that goes on with Join
	// continuations counts several (runGroupTask).
	if pp.c.tasksRun-pp.pubAt >= publishEvery {
		pp.publish()
	}
	return true
}

// beginRun counts a run that begins on pp, and tells the monitor: a run
// began (runseq), and the time slice changed or did not (schedtick, which
// the caller moved or not). Executed only by pp's owner.
func (pp *p) beginRun() {
	pp.runseq++
	pp.ticks.StoreRelaxed(uint64(pp.runseq)<<32 | uint64(pp.schedtick))
	pp.c.tasksRun++
}

// retireWaker ends gp's Waker, if it has one, as its task dies: a dead
// task's Waker is never reused, and no Wake moves it out of wIdle.
func (gp *g) retireWaker() {
	if x := gp.x; x != nil && x.waker != nil {
		x.waker.state.Store(wDead)
		x.waker = nil
	}
}

// gdead retires a finished task's record to pp's free list.
func (k *Kernel) gdead(pp *p, gp *g) {
	pp.c.finished++
	gp.retireWaker()
	gp.fn, gp.kind = nil, nil
	if k.histograms && gp.x != nil {
		gp.x.readyAt = 0
	}
	if gp.gfn != nil { // every group task and Join continuation
		gp.setGroupTask(groupTask{})
	}
	k.gfput(pp, gp)
}

// gfget returns a free task record: from pp's free list, refilled from the
// global one when empty, or a new one (the runtime's gfget). Executed only
// by pp's owner. Differs from the runtime: DESIGN.md §3.1.
func (k *Kernel) gfget(pp *p) *g {
	if len(pp.gfree) == 0 && k.ngfreeHint.Load() > 0 {
		k.lock.Lock()
		n := min(len(k.gfree), gfreeKeep)
		pp.gfree = append(pp.gfree, k.gfree[len(k.gfree)-n:]...)
		clear(k.gfree[len(k.gfree)-n:])
		k.gfree = k.gfree[:len(k.gfree)-n]
		k.ngfreeHint.Store(int32(len(k.gfree)))
		k.lock.Unlock()
	}
	if n := len(pp.gfree); n > 0 {
		gp := pp.gfree[n-1]
		pp.gfree[n-1] = nil
		pp.gfree = pp.gfree[:n-1]
		return gp
	}
	return k.newg()
}

// gfgetLocked returns a free record from the global list or a new one.
// Called with the lock held.
func (k *Kernel) gfgetLocked() *g {
	k.lock.AssertHeld("sched.lock")
	if n := len(k.gfree); n > 0 {
		gp := k.gfree[n-1]
		k.gfree[n-1] = nil
		k.gfree = k.gfree[:n-1]
		k.ngfreeHint.Store(int32(n - 1))
		return gp
	}
	return k.newg()
}

func (k *Kernel) newg() *g {
	gp := &g{}
	gp.ctx.g = gp
	return gp
}

// gfput puts a dead task's record on pp's free list, moving half of a full
// list to the global one (the runtime's gfput). Executed only by pp's owner.
// Differs from the runtime: DESIGN.md §3.1.
func (k *Kernel) gfput(pp *p, gp *g) {
	pp.gfree = append(pp.gfree, gp)
	if len(pp.gfree) >= gfreeMax {
		k.lock.Lock()
		keep := pp.gfree[:gfreeKeep]
		// Over gfreeGlobalMax the rest is left to the garbage collector.
		move := pp.gfree[gfreeKeep:]
		move = move[:min(len(move), max(gfreeGlobalMax-len(k.gfree), 0))]
		k.gfree = append(k.gfree, move...)
		clear(pp.gfree[gfreeKeep:])
		pp.gfree = keep
		k.ngfreeHint.Store(int32(len(k.gfree)))
		k.lock.Unlock()
	}
}
