package kernel

// The scheduler
//
// The kernel spreads runnable tasks over worker goroutines as the Go
// runtime spreads goroutines over threads (runtime/proc.go), and keeps the
// runtime's names:
//
//	G - a task (g, task.go): a function, and what its current run asked for.
//	M - a worker goroutine (m). It runs tasks only while it holds a P, and
//	    parks on its note when it has none.
//	P - a processor (p): the right to run tasks, with a local run queue of
//	    runq.Size slots and a runnext slot. There are procs Ps, fixed by New.
//
// A function's comment names the runtime function it mirrors and who
// may call it. Where vsched differs from the runtime, the comment points
// to docs/DESIGN.md §3, which says how and why; this comment describes
// what holds.
//
// Running a task
//
// execute runs a task's function to its end (nothing can preempt it) and
// then does what the run asked for. A task that asked for nothing is dead,
// and its record goes to the P's free list (gfput). A child spawned with
// Ctx.Go went to the P's runnext as it was spawned, and the task it
// displaced to the tail of the local queue (newproc). A yield puts the
// task on the global tail (Gosched). A park or an I/O wait commits by a
// CAS on the Waker's park word or on the descriptor's wait slot (gopark's
// commit function, netpollblockcommit): a Wake or readiness that came
// before the commit makes the CAS fail, and the task runs again at once
// from the P's resume slot, inheriting the time slice, so no wakeup is
// lost. A woken task goes to the runnext of the waker's P when the waker
// is a task running on a P (goready), otherwise to the global queue with
// a wakep.
//
// Finding work
//
// An M with a P runs findRunnable, in the runtime's order: the resume
// slot; deadlines that have passed (checkTimers); every 61st
// non-inherited run, one task from the global queue, so that two tasks
// that spawn each other cannot keep the others waiting for ever; the
// local queue, runnext first; a fair share of the global queue, at most
// runq.Size/2; a poll of the netpoller that does not block; then, if this
// M spins already or fewer than half of the busy Ps have spinning Ms,
// stealTries passes over the other Ps in random coprime orders
// (steal.Order), stealing half of the first non-empty queue, and a
// victim's runnext only on the last pass and after a pause
// (WithStealPause). When all of that finds nothing, the M drops its P
// under the lock, unless the global queue filled meanwhile (it takes from
// it) or a spinning M asked for a spinner (needspinning: it spins
// instead); then, if it was spinning, it looks at every queue once more
// (recheckNoP); it becomes the one M blocked in the netpoller if tasks
// wait on it and no other M is (pollBlocking); and otherwise it parks on
// its note (stopm) until startm hands it a P.
//
// Worker parking and unparking
//
// The hard part, as in the runtime, is to run enough Ms to use the Ps
// without waking one per task, and without losing a task to the race
// between a submitter and the last spinning M giving up. A submitter
// wakes an M (wakep) only if there is an idle P and no M spins, trusting a
// spinning M to find the task. Both sides follow a two-step pattern, and
// one of them always sees the other:
//
//   - submitter: (1) publish the task (the local queue's tail with a
//     release store, or the global queue under the lock); (2) a
//     sequentially consistent fence (xsync.FenceSC, in wakep); (3) look at
//     nmspinning, and wakep if it is zero;
//   - spinner giving up: (1) drop the P and decrement nmspinning, a
//     sequentially consistent read-modify-write; (2) look at the global
//     queue (under the lock) and at every busy P's local queue (with
//     sequentially consistent loads) again, and take an idle P and spin
//     again if any has work.
//
// Each side needs a StoreLoad barrier between its store and its loads. In
// the C/C++ memory model (RC11) a release store followed by a load is not
// one, so the submitter's side has the fence (without it, the explorer's
// RC11 models report a lost wakeup); the spinner's side needs none, since
// two sequentially consistent accesses stay in order. On hardware the
// fence costs nothing in the default build: there every xsync store but
// StoreRelaxed is sync/atomic's (the tail's StoreRel here), an XCHG on
// amd64, an STLR on arm64 that the following LDAR of nmspinning may not
// pass, and on ppc64 the load of nmspinning begins with a SYNC, as in the
// runtime. Checking before decrementing would lose
// wakeups: a task published between the check and the decrement finds
// nmspinning non-zero, and no spinner looks again.
//
// Three more steps close the other windows. A spinning M that finds work
// but no idle P for it sets needspinning, and a non-spinning M about to
// drop its P becomes a spinner instead: a spawn whose wakep finds no idle
// P claims a spinner in nmspinning for a moment, an M that drops its P
// meanwhile may not steal while the claim stands, and without needspinning
// it would go idle beside the task (runtime issue #45867). injectglist
// (Ctx.GoBatch, Kernel.GoBatch, the polls) ends with a wakep for Ps that
// went idle after it counted the idle ones (#63555). A spinning M that
// finds work stops spinning and, since it may have been the last spinner,
// calls wakep (resetspinning). Each of these steps, and the decrement
// before the recheck, has a seeded bug that an explorer model must report
// (docs/VERIFICATION.md). Every spinning M looks at the queues again when
// it drops its P, not only the last one, as in the runtime, to be safe
// against increments of nmspinning that are given back outside that path
// (runtime issue #43997); here such a claim is made and given back in one
// critical section of the lock.
//
// Memory orders
//
// The kernel's atomics are sequentially consistent, the runtime's choice
// for its scheduler state, except where a comment at the access says
// otherwise (the fence in wakep, the per-P counters that only their P
// writes). In the default build that costs nothing beyond what a weaker
// order would: sync/atomic has only SC operations. For weak machines, the
// explorer's RC11 mode and its minimality table (docs/VERIFICATION.md) say
// which accesses need SC: weakening the nmspinning decrement, npidle or
// the monitor's state, among others, loses a wakeup or deadlocks a model;
// for most others the capped searches find no counterexample, which is
// not proof enough to weaken them.
//
// Polling (netpoll.go)
//
// Once a Poller exists, the kernel polls it as the runtime polls its
// netpoller, and only while tasks wait on it:
//
//   - findRunnable, after the local and global queues and before stealing,
//     polls without blocking while no M blocks in the poller (lastpoll is
//     not zero) and no other M polls (pollingNet); the first ready task
//     runs, the rest are injected;
//   - an M that has dropped its P and found nothing blocks in the poller
//     if no other M does (it swaps lastpoll to zero), never past the
//     earliest deadline; then it takes an idle P for what it got, or puts
//     all of it on the global queue with an M started per idle P;
//   - the monitor polls when nobody has for pollMaxGap, so a kernel whose
//     Ps are all busy still sees I/O, and queues what it gets globally.
//
// injectglist makes what a poll returns runnable: as many tasks as there
// are idle Ps go to the global queue with an M started for each, the rest
// to the polling P's local queue, then a trailing wakep. New work needs no
// break of the blocked poller, since wakep starts another M on an idle P;
// a deadline earlier than the one the poller sleeps towards breaks it, and
// so does a stop. A task woken by a descriptor's Close, or by a deadline
// set in the past, is readied as a Wake readies it.
//
// Block and the monitor (monitor.go)
//
// Ctx.Block is entersyscall and exitsyscall. With HandoffLazy the P stays
// with the blocked M, marked pSyscall, and the monitor (sysmon) hands it to
// another M (retake, handoffp) once the Block has lasted a monitor round
// and the P's local queue has work, or no M spins and no P is idle, or an
// M back from Block waits for a P, or the Block has lasted forcePreempt;
// HandoffEager hands the P off as Block starts. Coming back, the M takes
// its own P if nobody took it, else an idle P, else it waits in syswait
// for the next P that comes free, ahead of queued tasks: a non-spinning M
// at its next scheduling point hands its P over (givepSyswait). A
// goroutine cannot move to another M, so the M waits (DESIGN.md §3.4).
//
// The monitor also breaks a runnext chain, or a chain of failed commits
// through the resume slot, that has held a P for forcePreempt: the task
// that would inherit the time slice goes to the global queue, since the
// running one cannot be preempted (DESIGN.md §3.1). It reports tasks that
// run past the stall threshold (WithStall). Between rounds it sleeps from
// monitorMinDelay to monitorMaxDelay while anything runs, doubling after
// monitorIdleRounds rounds with nothing to do, and without a deadline
// while every P is idle and no M is in Block; a P that starts running
// wakes it (pidleget). When it starts over at monitorMinDelay is in
// DESIGN.md §3.4.
//
// Invariants
//
// Checked where they are relied on; a broken one stops the program with a
// message that names it (throw): a P put on the idle list has an empty
// queue (pidleput); a spinning M's P has no local work (schedule); a
// spinning start gets an empty P (startm); nmspinning never goes negative
// (wakep, resetspinning, findRunnable); a global batch fits the empty
// local ring (runqputbatch).

import (
	"context"
	"math/bits"
	"runtime/pprof"
	"runtime/trace"

	"github.com/vsched/vsched/internal/pollproto"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/runq"
)

// The states of a P, in p.status.
const (
	pIdle    = iota // on the idle list, or being handed to an M
	pRunning        // owned by an M that runs tasks or looks for them
	pSyscall        // its M is in Block; the monitor may take it
)

// p is a processor: the right to run tasks, with its local run queue.
type p struct {
	id   int
	runq runq.Queue[g]

	// Owned by the P's current M.
	m         *m
	schedtick uint32 // non-inherited runs: the time slice counter
	runseq    uint32 // every run, for the monitor's stall check
	resume    *g     // a task whose park commit failed: it runs next
	gfree     []*g   // free task records, a stack of at most gfreeMax
	batch     []*g   // room for a batch from the global queue
	pollBuf   []*pollproto.Waiter
	pollG     []*g
	c         counters
	link      *p              // the idle list, under the lock
	listed    bool            // on the idle list: idle, for the lock holder without an atomic
	labels    context.Context // pprof labels of an M holding this P
	h         *histograms     // with WithHistograms
	hpub      *pubHistograms
	kindShown bool // kind holds a task's Kind

	// Shared.
	status      xsync.Uint32
	idle        xsync.Uint32 // on the idle list (the runtime's idlepMask bit)
	preempt     xsync.Uint32 // the monitor asks to break a runnext chain
	ticks       xsync.Stat   // runseq<<32 | schedtick, for the monitor
	syscalltick xsync.Stat   // Blocks entered, for the monitor
	pub         published
	pubAt       uint64            // c.tasksRun at the last publish; the owner's
	kind        xsync.Label[Kind] // the running task's kind, for the stall report
	_           [64]byte
}

// m is a worker goroutine, the runtime's M.
type m struct {
	k        *Kernel
	id       int
	gid      uintptr // xsync.Getg of its goroutine
	p        *p      // the P it holds, or nil
	nextp    *p      // the P it is woken with, or nil to exit
	spinning bool
	served   bool // it ran a task back from an I/O wait since it last stopped (stopm)
	curg     *g   // the task it runs, or nil
	link     *m   // the idle list or syswait, under the lock
	note     xsync.Note
	rng      uint64
	testRand func() uint32 // a manual kernel's steal randomness
	pollBuf  []*pollproto.Waiter
	pollG    []*g
}

// mQueue is a FIFO of Ms linked through m.link.
type mQueue struct{ head, tail *m }

func (q *mQueue) push(mp *m) {
	mp.link = nil
	if q.tail == nil {
		q.head = mp
	} else {
		q.tail.link = mp
	}
	q.tail = mp
}

func (q *mQueue) pop() *m {
	mp := q.head
	if mp != nil {
		q.head = mp.link
		if q.head == nil {
			q.tail = nil
		}
		mp.link = nil
	}
	return mp
}

// random returns the M's next random number (wyrand), or the test's.
func (mp *m) random() uint32 {
	if mp.testRand != nil {
		return mp.testRand()
	}
	mp.rng += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(mp.rng, mp.rng^0xe7037ed1a0b428db)
	return uint32(hi ^ lo)
}

// mstart is the body of an M's goroutine: acquire the P it was started
// with, then schedule until told to exit.
func (k *Kernel) mstart(mp *m) {
	mp.gid = xsync.Getg()
	k.lock.Lock()
	k.addm(mp)
	k.lock.Unlock()
	k.acquirep(mp, mp.nextp)
	mp.nextp = nil
	for {
		gp, inheritTime := k.schedule(mp)
		if gp == nil {
			return
		}
		if !k.execute(mp, gp, inheritTime) {
			return
		}
	}
}

// newmLocked returns a new M, counted; the caller starts its goroutine.
// Called with the lock held.
func (k *Kernel) newmLocked() *m {
	k.lock.AssertHeld("sched.lock")
	k.mcount++
	k.nextMID++
	return &m{k: k, id: k.nextMID, rng: k.seed + uint64(k.nextMID)*0x9e3779b97f4a7c15}
}

// An mEntry is an M of k.allm with its goroutine's identity, copied out
// of the M: callerM compares identities without reading an M's own
// memory, which its goroutine writes all the time.
type mEntry struct {
	gid uintptr
	mp  *m
}

// addm and delm keep k.allm, the Ms that may call back into the kernel
// from a task, copy-on-write. Called with the lock held.
func (k *Kernel) addm(mp *m) {
	k.lock.AssertHeld("sched.lock")
	old := *k.allm.Load()
	all := append(append(make([]mEntry, 0, len(old)+1), old...), mEntry{mp.gid, mp})
	k.allm.Store(&all)
}

func (k *Kernel) delm(mp *m) {
	k.lock.AssertHeld("sched.lock")
	old := *k.allm.Load()
	all := make([]mEntry, 0, len(old))
	for _, e := range old {
		if e.mp != mp {
			all = append(all, e)
		}
	}
	k.allm.Store(&all)
}

// callerMFast is callerM where xsync.Getg is cheap, and nil elsewhere, for
// hot paths. Differs from the runtime: DESIGN.md §3.1.
func (k *Kernel) callerMFast() *m {
	if !xsync.GetgCheap {
		return nil
	}
	return k.callerM()
}

// callerM returns the M whose goroutine is the caller, or nil.
func (k *Kernel) callerM() *m {
	id := xsync.Getg()
	for _, e := range *k.allm.Load() {
		if e.gid == id {
			return e.mp
		}
	}
	return nil
}

func (k *Kernel) acquirep(mp *m, pp *p) {
	if pp.m != nil || mp.p != nil {
		throw("acquirep: P or M already in use")
	}
	pp.m, mp.p = mp, pp
	pp.status.Store(pRunning)
	if gp := mp.curg; gp != nil && gp.kind != nil {
		pprof.SetGoroutineLabels(gp.kind.labels) // back from Block, mid-run
	} else {
		pprof.SetGoroutineLabels(pp.labels)
	}
}

func (k *Kernel) releasep(mp *m) *p {
	pp := mp.p
	if pp.m != mp {
		throw("releasep: the P is not held by this M")
	}
	pp.m, mp.p = nil, nil
	pp.status.Store(pIdle)
	return pp
}

// schedule finds a task for mp to run (the runtime's schedule). It returns
// nil when the M must exit, having released everything it held.
func (k *Kernel) schedule(mp *m) (*g, bool) {
	for {
		if k.state.Load() == stateStopped {
			k.mexit(mp)
			return nil, false
		}
		// An M back from Block waits for a P ahead of queued tasks. A
		// spinning M looks for work instead, and gives the P up when it
		// drops it; a P whose resume slot is full runs that task first.
		if k.nsyswait.Load() != 0 && !mp.spinning && mp.p.resume == nil && k.givepSyswait(mp) {
			if !k.stopm(mp) {
				k.mexit(mp)
				return nil, false
			}
			continue
		}
		if mp.spinning && (mp.p.resume != nil || !mp.p.runq.Empty()) {
			throw("schedule: spinning with local work")
		}
		gp, inheritTime := k.findRunnable(mp)
		if gp == nil {
			k.mexit(mp)
			return nil, false
		}
		if k.state.Load() == stateStopped {
			k.lock.Lock()
			k.dropLocked(gp)
			k.lock.Unlock()
			continue
		}
		// The last spinning M to find work must start another.
		if mp.spinning {
			k.resetspinning(mp)
		}
		return gp, inheritTime
	}
}

// findRunnable returns a task to run on mp's P, in the runtime's order:
// a failed park's task, the 61-tick global check, the local queue, a
// fair-share batch of the global queue, four steal passes; and when all of
// that finds nothing, it drops the P and parks the M (stopm) until wakep
// hands it a P again. It returns nil when the M must exit (the kernel
// stopped); the M may then still hold a P. The top of this file describes
// the order. Differs from the runtime: DESIGN.md §3.3 and §3.5.
func (k *Kernel) findRunnable(mp *m) (gp *g, inheritTime bool) {
top:
	pp := mp.p
	if k.state.Load() == stateStopped {
		return nil, false
	}
	if gp := pp.resume; gp != nil {
		pp.resume = nil
		if pp.preempt.Load() != 0 {
			// A chain of failed commits (a task that waits on a slot
			// that is always ready, or parks and is woken at once) has
			// held the P for a time slice: to the global tail with it,
			// as with a runnext chain below.
			pp.preempt.Store(0)
			k.lock.Lock()
			k.globrunqputLocked(gp)
			k.lock.Unlock()
			k.wakep()
			goto top
		}
		return gp, true
	}

	// Deadlines that have passed, before any queue: their tasks join the
	// local queue (expireDeadlines). Not in an explorer model, where time
	// does not pass: no deadline can fire there, and the look would add a
	// scheduling point to every findRunnable of every model. Written out
	// here so that the usual case, no poller or no deadline set, costs a
	// load or two and no call.
	if !xsync.InModel() {
		if np := k.poller.Load(); np != nil {
			if ws := pollOps.Expire(np, pp.pollBuf[:0]); len(ws) != 0 {
				k.expireDeadlines(pp, ws)
			}
		}
	}

	// Check the global queue once in a while for fairness: two tasks that
	// keep spawning each other would otherwise hold the P forever.
	if pp.schedtick%fairnessTick == 0 && k.global.Len() > 0 {
		k.lock.Lock()
		gp := k.global.Get()
		k.lock.Unlock()
		if gp != nil {
			pp.c.globalPulls++
			return gp, false
		}
	}

	// The local queue.
	if gp, inheritTime := pp.runq.Get(); gp != nil {
		if inheritTime {
			if pp.preempt.Load() != 0 {
				// The monitor found this runnext chain holding the P for
				// a whole time slice: the task that would inherit it goes
				// to the global tail instead, as sysmon's preemption sends
				// the running one there.
				pp.preempt.Store(0)
				k.lock.Lock()
				k.globrunqputLocked(gp)
				k.lock.Unlock()
				k.wakep() // as goschedImpl does
				goto top
			}
			pp.c.runnextHits++
		}
		return gp, inheritTime
	}

	// The global queue: a fair share, the rest into the empty local ring.
	if k.global.Len() > 0 {
		k.lock.Lock()
		gp, rest := k.global.GetBatch(globalBatch, k.procs, pp.batch[:0])
		k.lock.Unlock()
		if gp != nil {
			k.runqputbatch(mp, rest)
			return gp, false
		}
	}

	// Poll without blocking, only an optimization before stealing: while
	// tasks wait on the poller, no M blocks in it, and no other M polls.
	if gp := k.pollNonBlocking(pp); gp != nil {
		return gp, false
	}

	// Steal, if this M spins already or not too many do: at most half of
	// the busy Ps may have spinning Ms.
	if mp.spinning || 2*k.nmspinning.Load() < int32(k.procs)-k.npidle.Load() {
		if !mp.spinning {
			k.becomeSpinning(mp)
		}
		gp, newWork := k.stealWork(mp)
		if gp != nil {
			return gp, false
		}
		if newWork {
			goto top
		}
	}

	if k.manual {
		// A manual kernel's M never parks: nothing to run anywhere.
		if mp.spinning {
			mp.spinning = false
			k.nmspinning.Add(-1)
		}
		return nil, false
	}

	// Drop the P. Under the lock, look at the global queue one last time,
	// and become the spinner that a spinning M asked for (needspinning)
	// rather than go idle.
	k.lock.Lock()
	if k.state.Load() == stateStopped {
		k.lock.Unlock()
		return nil, false
	}
	if k.global.Len() > 0 {
		gp, rest := k.global.GetBatch(globalBatch, k.procs, pp.batch[:0])
		k.lock.Unlock()
		k.runqputbatch(mp, rest)
		return gp, false
	}
	if !mp.spinning && k.needspinning.Load() == 1 {
		k.becomeSpinning(mp)
		k.lock.Unlock()
		goto top
	}
	k.releasep(mp)
	k.releasePLocked(pp)
	k.lock.Unlock()

	// The delicate dance: a spinning M stops spinning first and only then
	// looks at every queue again. A submitter publishes its task first and
	// then looks at nmspinning. Each side needs a StoreLoad barrier between
	// its store and its loads, so that one of the two sees the other (see
	// the top of this file).
	wasSpinning := mp.spinning
	if mp.spinning {
		mp.spinning = false
		if k.nmspinning.Add(-1) < 0 {
			throw("findRunnable: negative nmspinning")
		}
		// The spinner's side of the handshake needs no fence: the decrement
		// is a sequentially consistent read-modify-write and the recheck's
		// loads (runq's Empty, idle) are sequentially consistent, and two SC
		// accesses keep their order.
		if gp, pp := k.recheckNoP(); pp != nil {
			k.acquirep(mp, pp)
			k.becomeSpinning(mp)
			if gp != nil {
				k.runqputbatch(mp, pp.batch)
				pp.batch = pp.batch[:0]
				return gp, false
			}
			goto top
		}
	}

	// Block in the poller, if tasks wait on it and no other M does.
	if gp, pp, polled := k.pollBlocking(mp); polled {
		if gp != nil {
			return gp, false
		}
		if pp != nil {
			if wasSpinning {
				k.becomeSpinning(mp)
			}
			goto top
		}
	}

	if !k.stopm(mp) {
		return nil, false
	}
	goto top
}

// recheckNoP is the spinning-to-idle recheck of an M that has dropped its
// P and its spinning: the global queue, then every P's local queue. When
// either has work it returns an idle P (pidlegetSpinning), with a global
// batch: the task to run and the rest in the P's batch buffer. It returns
// a nil P when there is no work, or no idle P to take it (needspinning is
// then set, and a non-spinning M about to go idle spins instead).
// Differs from the runtime: DESIGN.md §3.3.
func (k *Kernel) recheckNoP() (*g, *p) {
	k.lock.Lock()
	if k.global.Len() > 0 {
		if pp := k.pidlegetSpinning(); pp != nil {
			gp, rest := k.global.GetBatch(globalBatch, k.procs, pp.batch[:0])
			pp.batch = rest
			k.lock.Unlock()
			return gp, pp
		}
	}
	k.lock.Unlock()
	// checkRunqsNoP, with the idle flags of now, not a snapshot.
	for _, p2 := range k.allp {
		if p2.idle.Load() == 0 && !p2.runq.Empty() {
			k.lock.Lock()
			pp := k.pidlegetSpinning()
			k.lock.Unlock()
			return nil, pp
		}
	}
	return nil, nil
}

// stealWork makes stealTries passes over the other Ps in random orders and
// steals half of the first non-empty local queue it finds; runnext only on
// the last pass (the runtime's stealWork). newWork reports that the kernel
// stopped meanwhile.
func (k *Kernel) stealWork(mp *m) (gp *g, newWork bool) {
	pp := mp.p
	for i := range stealTries {
		stealRunNext := i == stealTries-1
		for e := k.order.Start(mp.random()); !e.Done(); e.Next() {
			if k.state.Load() == stateStopped {
				return nil, true
			}
			p2 := k.allp[e.Position()]
			if p2 == pp || p2.idle.Load() != 0 {
				continue
			}
			if gp := p2.runq.StealInto(&pp.runq, stealRunNext, k.pause); gp != nil {
				pp.c.stealOps++
				pp.c.stolen += 1 + uint64(pp.runq.Len())
				if trace.IsEnabled() {
					traceEvent("vsched.steal", "P%d stole %d tasks from P%d", pp.id, 1+pp.runq.Len(), p2.id)
				}
				return gp, false
			}
		}
	}
	return nil, false
}

// runqput puts gp on pp's local queue, in runnext with next, and moves an
// overflow to the global queue (runqput and runqputslow). Executed only by
// pp's owner.
func (k *Kernel) runqput(pp *p, gp *g, next bool) {
	if batch := pp.runq.Put(gp, next); batch != nil {
		pp.c.overflows++
		k.lock.Lock()
		k.globrunqputbatchLocked(batch)
		k.lock.Unlock()
	}
}

// runqputbatch puts the rest of a batch from the global queue into the
// empty ring of mp's P. A spinning M's schedule wakes the next spinner
// (resetspinning), which may steal the rest; a non-spinning M wakes one
// here. The runtime does not, and relies on preempting the goroutine that
// runs meanwhile: a task is never preempted, and one that runs for long
// would hold the rest on its P beside an idle one. Differs from the
// runtime: DESIGN.md §3.1.
func (k *Kernel) runqputbatch(mp *m, gs []*g) {
	pp := mp.p
	pp.c.globalPulls += 1 + uint64(len(gs))
	if rest := pp.runq.PutBatch(gs); len(rest) != 0 {
		throw("findRunnable: a global batch did not fit the local queue")
	}
	if len(gs) != 0 && !mp.spinning {
		k.wakep()
	}
}

// globrunqputLocked puts gp on the global queue, or drops it if the kernel
// stopped: after Close nobody takes from the global queue again. Called
// with the lock held.
func (k *Kernel) globrunqputLocked(gp *g) {
	k.lock.AssertHeld("sched.lock")
	if k.state.Load() == stateStopped {
		k.dropLocked(gp)
		return
	}
	k.stampReady(gp)
	k.global.Put(gp)
}

// globrunqputbatchLocked puts gs on the global queue, or drops them if the
// kernel stopped. Called with the lock held.
func (k *Kernel) globrunqputbatchLocked(gs []*g) {
	k.lock.AssertHeld("sched.lock")
	if k.state.Load() == stateStopped {
		for _, gp := range gs {
			k.dropLocked(gp)
		}
		return
	}
	k.global.PutBatch(gs)
}

// injectglist makes the tasks of gs runnable (the runtime's injectglist).
// Without a P, all of them go to the global queue and an M is started per
// idle P, up to one per task; the caller has put them there already, in the
// critical section in which it checked that the kernel takes work, so that
// no Shutdown comes between the check and the put. With pp, only as many as
// there are idle Ps go to the global queue, each with an M started for it,
// and the rest go to pp's local queue. Either way a trailing wakep covers Ps
// that went idle after npidle was read (runtime issue #63555).
func (k *Kernel) injectglist(pp *p, gs []*g) {
	if len(gs) == 0 {
		return
	}
	if pp == nil {
		k.startIdle(len(gs))
	} else {
		n := min(int(k.npidle.Load()), len(gs))
		if n > 0 {
			k.lock.Lock()
			k.globrunqputbatchLocked(gs[:n])
			k.lock.Unlock()
			k.startIdle(n)
		}
		if rest := pp.runq.PutBatch(gs[n:]); len(rest) != 0 {
			k.lock.Lock()
			k.globrunqputbatchLocked(rest)
			k.lock.Unlock()
		}
	}
	k.wakep()
}

// startIdle starts up to n Ms on idle Ps, not spinning.
func (k *Kernel) startIdle(n int) {
	for range n {
		k.lock.Lock()
		pp := k.pidlegetSpinning()
		if pp == nil {
			k.lock.Unlock()
			return
		}
		k.startm(pp, false, true)
		k.lock.Unlock()
	}
}

// wakep starts a spinning M on an idle P, if there is an idle P and no M
// spins already (the runtime's wakep). With no idle P it sets needspinning,
// so that an M about to drop its P spins instead. Called from any
// goroutine.
// Differs from the runtime: DESIGN.md §3.3.
func (k *Kernel) wakep() {
	// The submitter's side of the handshake: the task is published, and
	// nmspinning is loaded after a StoreLoad barrier (see the top of this
	// file).
	xsync.FenceSC()
	if k.nmspinning.Load() != 0 || k.npidle.Load() == 0 && k.needspinning.Load() == 1 ||
		!k.nmspinning.Cas(0, 1) {
		return
	}
	k.lock.Lock()
	pp := k.pidlegetSpinning()
	if pp == nil {
		if k.nmspinning.Add(-1) < 0 {
			throw("wakep: negative nmspinning")
		}
		k.lock.Unlock()
		return
	}
	k.lock.Unlock()
	k.startm(pp, true, false)
}

// becomeSpinning marks mp spinning (the runtime's becomeSpinning).
func (k *Kernel) becomeSpinning(mp *m) {
	mp.spinning = true
	k.nmspinning.Add(1)
	k.needspinning.Store(0)
}

// resetspinning is called by a spinning M that found work: it stops
// spinning and, since it may have been the last spinner, starts another
// (the runtime's resetspinning).
func (k *Kernel) resetspinning(mp *m) {
	mp.spinning = false
	if k.nmspinning.Add(-1) < 0 {
		throw("resetspinning: negative nmspinning")
	}
	k.wakep()
}

// startm runs pp on an idle M, or a new one (the runtime's startm). With
// spinning the caller has already counted the M in nmspinning, and pp's
// queue must be empty.
func (k *Kernel) startm(pp *p, spinning, lockHeld bool) {
	if !lockHeld {
		k.lock.Lock()
	}
	if k.state.Load() == stateStopped {
		if spinning {
			k.nmspinning.Add(-1)
		}
		k.dropLocalLocked(pp)
		k.releasePLocked(pp)
		if !lockHeld {
			k.lock.Unlock()
		}
		return
	}
	nmp := k.midle
	fresh := nmp == nil
	if fresh {
		nmp = k.newmLocked()
	} else {
		k.midle = nmp.link
		k.nmidle--
		nmp.link = nil
	}
	if spinning && (pp.resume != nil || !pp.runq.Empty()) {
		throw("startm: P has runnable tasks")
	}
	nmp.spinning = spinning
	nmp.nextp = pp
	if !lockHeld {
		k.lock.Unlock()
	}
	if fresh {
		xsync.Go(func() { k.mstart(nmp) })
	} else {
		nmp.note.Wakeup()
	}
}

// stopm parks mp on the idle-M list until startm hands it a P (the
// runtime's stopm). It reports false when the M must exit instead: the
// kernel stopped, or there are more Ms than Ps outside Block and already
// an idle M for every P. An M that ran a task back from an I/O wait since
// it last stopped spins on its note for up to stopSpin before it sleeps,
// while tasks wait on the poller. Differs from the runtime: DESIGN.md §3.3.
func (k *Kernel) stopm(mp *m) bool {
	k.lock.Lock()
	if k.state.Load() == stateStopped || k.mcount-int(k.nmsys.Load()) > k.procs && k.nmidle >= k.procs {
		k.lock.Unlock()
		return false
	}
	mp.link = k.midle
	k.midle = mp
	k.nmidle++
	k.lock.Unlock()
	k.mparks.Add(1)
	if mp.served && k.pollWaiters() {
		k.mspins.Add(1)
		mp.note.SpinSleep(stopSpin)
	} else {
		mp.note.Sleep()
	}
	mp.served = false
	k.munparks.Add(1)
	pp := mp.nextp
	mp.nextp = nil
	if pp == nil {
		return false
	}
	k.acquirep(mp, pp)
	return true
}

// mexit ends an M: whatever its P still holds is dropped (the kernel
// stopped), the P is released, and the M is no longer counted.
func (k *Kernel) mexit(mp *m) {
	if mp.spinning {
		mp.spinning = false
		k.nmspinning.Add(-1)
	}
	k.lock.Lock()
	if pp := mp.p; pp != nil {
		k.dropLocalLocked(pp)
		k.releasep(mp)
		k.releasePLocked(pp)
	}
	k.mcount--
	k.delm(mp)
	k.maybeExitedLocked()
	k.lock.Unlock()
}

// dropLocalLocked drops what is queued on pp, whose owner the caller is,
// because the kernel stopped. Called with the lock held.
func (k *Kernel) dropLocalLocked(pp *p) {
	k.lock.AssertHeld("sched.lock")
	if gp := pp.resume; gp != nil {
		pp.resume = nil
		k.dropLocked(gp)
	}
	for _, gp := range pp.runq.Drain(pp.batch[:0]) {
		k.dropLocked(gp)
	}
}

// mdying is called on an M whose goroutine is leaving through
// runtime.Goexit, or an unrecovered panic, in the middle of gp's run: the
// task is dead (counted finished; its record is not reused), the P is
// handed off, and the M is no longer counted. The M holds a P: a Goexit
// inside Block has run exitsyscall on the way. No runtime counterpart:
// DESIGN.md §3.1.
func (k *Kernel) mdying(mp *m, gp *g) {
	if k.manual {
		return // the caller of Manual.Schedule is the M: the panic is its own
	}
	gp.ctx.m = nil
	mp.curg = nil
	gp.retireWaker()
	cancelWait(gp)
	if pp := mp.p; pp != nil {
		pp.c.finished++
		k.releasep(mp)
		k.handoffp(pp)
	}
	k.lock.Lock()
	k.mcount--
	k.delm(mp)
	k.maybeExitedLocked()
	k.lock.Unlock()
}

// pidleput puts pp on the idle list (the runtime's pidleput). Its queue
// must be empty. After a stop, the last P back may end the stop's wait.
// Called with the lock held. Differs from the runtime: DESIGN.md §3.4.
func (k *Kernel) pidleput(pp *p) {
	k.lock.AssertHeld("sched.lock")
	if pp.listed {
		throw("pidleput: P already idle")
	}
	if pp.resume != nil || !pp.runq.Empty() {
		throw("pidleput: P has runnable tasks")
	}
	pp.listed = true
	pp.publish()
	pp.preempt.Store(0)
	pp.idle.Store(1)
	pp.link = k.pidle
	k.pidle = pp
	k.npidle.Add(1)
	k.checkDrainedLocked()
	if k.state.Load() == stateStopped {
		// The stop waits for every P to be idle (maybeExitedLocked), and
		// the last one may come back after the last M has exited: from a
		// submitter outside the kernel whose startm found the kernel
		// stopped, or from the monitor's handoffp.
		k.maybeExitedLocked()
	}
}

// pidleget takes a P off the idle list, or returns nil (the runtime's
// pidleget), and wakes the monitor from its deep sleep. Called with the
// lock held. Differs from the runtime: DESIGN.md §3.4.
func (k *Kernel) pidleget() *p {
	k.lock.AssertHeld("sched.lock")
	pp := k.pidle
	if pp == nil {
		return nil
	}
	k.pidle = pp.link
	pp.link, pp.listed = nil, false
	pp.idle.Store(0)
	k.npidle.Add(-1)
	// A P is about to run: wake the monitor from its deep sleep.
	if k.monMode.Load() == monDeep && k.monMode.Cas(monDeep, monAwake) {
		k.monNote.Wakeup()
	}
	return pp
}

// pidlegetSpinning is pidleget for an M that found work: with no idle P it
// sets needspinning (the runtime's pidlegetSpinning). Called with the lock
// held.
func (k *Kernel) pidlegetSpinning() *p {
	k.lock.AssertHeld("sched.lock")
	pp := k.pidleget()
	if pp == nil {
		k.needspinning.Store(1)
	}
	return pp
}

// releasePLocked gives up a P that no M holds: to the first M waiting to
// come back from Block, else to the idle list. Called with the lock held.
func (k *Kernel) releasePLocked(pp *p) {
	k.lock.AssertHeld("sched.lock")
	if mp := k.syswait.pop(); mp != nil {
		k.nsyswait.Add(-1)
		mp.nextp = pp
		mp.note.Wakeup()
		return
	}
	k.pidleput(pp)
}

// givepSyswait hands mp's P to the first M waiting to come back from Block,
// if there is one; mp then holds no P.
func (k *Kernel) givepSyswait(mp *m) bool {
	k.lock.Lock()
	w := k.syswait.pop()
	if w == nil {
		k.lock.Unlock()
		return false
	}
	k.nsyswait.Add(-1)
	w.nextp = k.releasep(mp)
	k.lock.Unlock()
	w.note.Wakeup()
	return true
}

// handoffp finds an owner for a P whose M is in Block (the runtime's
// handoffp): an M back from Block that waits for a P, else a new M when
// there is work, nobody spins, or a wakep asked for a spinner
// (needspinning), else the idle list. Called by whoever took the P:
// retake, entersyscall or mdying. Differs from the runtime: DESIGN.md §3.1
// and §3.4.
func (k *Kernel) handoffp(pp *p) {
	if trace.IsEnabled() {
		traceEvent("vsched.handoff", "P%d handed off", pp.id)
	}
	k.lock.Lock()
	if mp := k.syswait.pop(); mp != nil {
		k.nsyswait.Add(-1)
		mp.nextp = pp
		k.lock.Unlock()
		mp.note.Wakeup()
		return
	}
	k.lock.Unlock()
	if pp.resume != nil || !pp.runq.Empty() || k.global.Len() > 0 {
		k.startm(pp, false, false)
		return
	}
	// No local work: start a spinner if there is neither a spinning M nor
	// an idle P, so that work anywhere else is still looked for.
	if k.nmspinning.Load()+k.npidle.Load() == 0 && k.nmspinning.Cas(0, 1) {
		k.needspinning.Store(0)
		k.startm(pp, true, false)
		return
	}
	k.lock.Lock()
	if k.global.Len() > 0 {
		k.lock.Unlock()
		k.startm(pp, false, false)
		return
	}
	// A wakep that found no idle P, since this one was still in Block,
	// asked for a spinner (needspinning) after the look above: this P is
	// that spinner rather than go idle, as findRunnable's drop does. The
	// work that wakep was for may sit in a busy P's queue, behind a task
	// that is never preempted.
	if k.needspinning.Load() == 1 {
		k.needspinning.Store(0)
		k.nmspinning.Add(1)
		k.lock.Unlock()
		k.startm(pp, true, false)
		return
	}
	k.releasePLocked(pp)
	k.lock.Unlock()
}

// entersyscall marks mp's P as in Block, so that the monitor may retake it,
// or hands it off at once with HandoffEager (entersyscall and
// entersyscallblock). It returns the P. Called by mp, from Ctx.Block.
// Differs from the runtime: DESIGN.md §3.4.
func (k *Kernel) entersyscall(mp *m) *p {
	pp := mp.p
	// Neither holds the other while the task blocks: the P goes back to
	// this M (exitsyscall) or to another (retake, handoffp), whoever wins
	// the compare-and-swap on its status.
	pp.m, mp.p = nil, nil
	k.nmsys.Add(1)
	pp.syscalltick.Add(1)
	pp.status.Store(pSyscall)
	// After Close nothing retakes the P: hand it off now, so that what is
	// queued on it is dropped, and let Close stop waiting for this M.
	stopped := k.state.Load() == stateStopped
	if (k.eagerBlock || stopped) && pp.status.Cas(pSyscall, pIdle) {
		k.handoffs.Add(1)
		k.handoffp(pp)
	}
	if stopped {
		k.lock.Lock()
		k.maybeExitedLocked()
		k.lock.Unlock()
	}
	return pp
}

// exitsyscall gives mp a P again after Block (the runtime's exitsyscall):
// its own if nobody took it, else an idle one, else it waits for the next
// P that comes free, ahead of queued tasks. Taking its own P back can
// also take a P that went round (retaken, run by another M) and is in
// another M's Block now: that Block then finds its P taken, as after a
// retake, which is the runtime's behaviour too. Differs from the runtime:
// DESIGN.md §3.4.
func (k *Kernel) exitsyscall(mp *m, oldp *p) {
	if oldp.status.Cas(pSyscall, pRunning) {
		oldp.m, mp.p = mp, oldp
		k.nmsys.Add(-1)
		return
	}
	k.lock.Lock()
	pp := k.pidleget()
	if pp == nil {
		k.syswait.push(mp)
		k.nsyswait.Add(1)
		k.lock.Unlock()
		mp.note.Sleep()
		pp = mp.nextp
		mp.nextp = nil
		k.lock.Lock()
	}
	k.nmsys.Add(-1)
	k.lock.Unlock()
	k.acquirep(mp, pp)
}
