package kernel

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/netpoll"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/steal"
)

// Errors returned by the kernel. Compare them with [errors.Is].
var (
	// ErrClosed is returned by [Kernel.Go] and [Kernel.GoBatch] once
	// [Kernel.Shutdown] or [Kernel.Close] has been called, and by
	// Shutdown when Close stopped the kernel first.
	ErrClosed = errors.New("kernel: closed")
	// ErrNilFunc is returned for a nil task function.
	ErrNilFunc = errors.New("kernel: nil task function")
	// ErrInTask is returned by [Kernel.Shutdown] and wrapped by the error
	// of [Group.Wait] and [Group.GoWait] called from inside a task of the
	// same kernel, which would block its worker and wait for itself. Call
	// them from another goroutine; a task waits for a group with
	// [Ctx.Join]. The check knows only the kernel's own tasks: a task of
	// another kernel that calls them blocks its worker, as any blocking
	// call does, and belongs inside [Ctx.Block].
	ErrInTask = errors.New("kernel: a blocking call from inside a task")
	// ErrBadOption is returned by [New] for an invalid option.
	ErrBadOption = errors.New("kernel: invalid option")
)

// The kernel's life cycle, in Kernel.state.
const (
	stateRunning  = iota // accepting work
	stateDraining        // Shutdown: no intake; running until quiescent
	stateStopped         // every M exits at its next scheduling point
)

// Kernel is a work-stealing scheduler of tasks: procs Ps, each with a local
// run queue, Ms (worker goroutines) that run them, a global queue, and a
// monitor. See the package documentation for how to use it.
//
// A Kernel is safe for concurrent use. Stop it with [Kernel.Shutdown] or
// [Kernel.Close]; until then its idle workers stay parked, using no CPU.
// A Kernel that is never stopped keeps its worker goroutines, its monitor
// and its [netpoll.Poller], if one was made, for the life of the process,
// even once nothing refers to it.
type Kernel struct {
	procs int
	allp  []*p
	order *steal.Order

	// Options, fixed by New.
	pause          steal.Pause
	panicHandler   func(v any, stack []byte)
	stallThreshold time.Duration
	stallHook      func(Stall)
	histograms     bool // WithHistograms
	eagerBlock     bool
	monitor        bool
	monRestart     time.Duration // monitorRestartAfter; tests change it
	seed           uint64
	manual         bool // driven by a test as its only M; see testhook.go

	// Read without the lock, written with it held.
	state xsync.Uint32

	// sched.lock and what it guards.
	lock       xsync.Mutex
	global     runq.Global[g]
	pidle      *p // idle Ps, linked through p.link
	midle      *m // idle Ms, linked through m.link
	nmidle     int
	mcount     int
	nextMID    int
	syswait    mQueue // Ms back from Block waiting for a P, FIFO
	gfree      []*g   // global free list of task records
	dropped    uint64
	remote     uint64 // tasks submitted from outside
	monitorRun bool   // the monitor goroutine has not exited
	drained    bool   // stopped by Shutdown once quiescent, not by Close
	// groupWaiters are the blocked Group.Waits, released when the kernel
	// stops.
	groupWaiters []*groupWaiter

	npidle       xsync.Int32  // len(pidle), read without the lock
	nmspinning   xsync.Int32  // spinning Ms, and wakep's pending increments
	needspinning xsync.Uint32 // a spinning M found work it could not take
	nmsys        xsync.Int32  // Ms in Block, until they hold a P again
	nsyswait     xsync.Int32  // len(syswait), read without the lock
	ngfreeHint   xsync.Int32  // ngfree, read without the lock
	allm         xsync.Pointer[[]mEntry]

	// The netpoller, once Poller made it.
	poller xsync.Pointer[netpoll.Poller]
	// lastpoll is when an M last polled, or 0 while an M blocks in the
	// poller (sched.lastpoll); pollingNet is set while an M or the monitor
	// polls without blocking (sched.pollingNet), and, for the monitor, until
	// what it woke is queued. A drain waits for both (checkDrainedLocked),
	// so a store that may complete its conditions with every P idle is
	// followed by checkDrainedLocked under the lock.
	lastpoll   xsync.Int64
	pollingNet xsync.Uint32

	// Counters kept outside the Ps.
	mparks, mspins, munparks, handoffs, stalls, outsideWakes, pollWakes xsync.Stat

	mon     monitorState
	monNote xsync.Note
	monMode xsync.Uint32 // monAwake, monDeep or monTimed
	// monDelay is the monitor's sleep in its latest timed round, and
	// monWokeDelay in its first one after its latest deep sleep (0 until
	// that round), in nanoseconds; only tests read them.
	monDelay, monWokeDelay xsync.Int64
	exited                 xsync.Event // every M and the monitor have exited
}

// An Option configures a [Kernel] made by [New].
type Option func(*Kernel) error

// MaxProcs is the most Ps a kernel may have. Each P costs about 6 KiB
// (its run queue of 256 slots, its free lists and its monitor record),
// allocated by [New]: at MaxProcs, New allocates about 6 MiB. More Ps than
// CPUs only add thieves.
const MaxProcs = 1024

// WithProcs sets the number of Ps, the most tasks that run at once. The
// default is runtime.GOMAXPROCS(0), capped at [MaxProcs]. New
// returns an error wrapping [ErrBadOption] for n < 1 or n > MaxProcs.
func WithProcs(n int) Option {
	return func(k *Kernel) error {
		if n < 1 || n > MaxProcs {
			return fmt.Errorf("%w: WithProcs(%d): want 1 to %d Ps", ErrBadOption, n, MaxProcs)
		}
		k.procs = n
		return nil
	}
}

// WithPanicHandler recovers a task's panic and calls h with the value and
// the stack of the panicking goroutine; the task is then finished (dead) and
// the kernel keeps running. h runs on the worker that ran the task and must
// not block for long. Without a handler, a task's panic crashes the program
// as an unrecovered panic in a goroutine does.
func WithPanicHandler(h func(v any, stack []byte)) Option {
	return func(k *Kernel) error {
		k.panicHandler = h
		return nil
	}
}

// WithStealPause sets what a thief does before it takes a running victim's
// runnext (the runtime's usleep(3)); see [steal.Pause]. The default is
// steal.SpinPause(steal.RunNextPause). A nil pause takes runnext at once.
func WithStealPause(pause steal.Pause) Option {
	return func(k *Kernel) error {
		k.pause = pause
		return nil
	}
}

// WithStall sets the threshold past which the monitor reports a task that
// is still running (default 10 ms) and an optional hook it calls for each
// report, from the monitor's goroutine; the hook must not block, and must
// not call Shutdown or Close, which wait for the monitor to exit. Stalls are
// counted in [Stats.StallCount] either way. New returns an error wrapping
// [ErrBadOption] for a threshold that is not positive.
func WithStall(threshold time.Duration, hook func(Stall)) Option {
	return func(k *Kernel) error {
		if threshold <= 0 {
			return fmt.Errorf("%w: WithStall(%v): want a positive threshold", ErrBadOption, threshold)
		}
		k.stallThreshold, k.stallHook = threshold, hook
		return nil
	}
}

// BlockHandoff says when [Ctx.Block] hands its P to another M.
type BlockHandoff int

const (
	// HandoffLazy keeps the P with the blocked M, marked as in Block, and
	// lets the monitor retake it if the block lasts: the runtime's
	// entersyscall and sysmon's retake. A short Block costs two atomic
	// operations. It is the default.
	HandoffLazy BlockHandoff = iota
	// HandoffEager hands the P off as Block starts (entersyscallblock),
	// which costs an M wakeup when there is work for the P, but never
	// leaves queued tasks waiting for the monitor.
	HandoffEager
)

// WithBlockHandoff chooses when [Ctx.Block] hands its P off; the default is
// [HandoffLazy].
func WithBlockHandoff(h BlockHandoff) Option {
	return func(k *Kernel) error {
		switch h {
		case HandoffLazy, HandoffEager:
			k.eagerBlock = h == HandoffEager
			return nil
		}
		return fmt.Errorf("%w: WithBlockHandoff(%d)", ErrBadOption, h)
	}
}

// New returns a running kernel with no workers started yet: the first task
// starts one. See [Option] for what can be configured.
func New(opts ...Option) (*Kernel, error) {
	k := &Kernel{
		procs:          min(runtime.GOMAXPROCS(0), MaxProcs),
		pause:          defaultPause,
		stallThreshold: defaultStallThreshold,
		monitor:        true,
		monRestart:     monitorRestartAfter,
		seed:           rand.Uint64(),
	}
	for _, opt := range opts {
		if opt == nil {
			return nil, fmt.Errorf("%w: a nil Option", ErrBadOption)
		}
		if err := opt(k); err != nil {
			return nil, err
		}
	}
	if xsync.InModel() {
		// An explorer model replays every execution from the start: the
		// steal order's randomness must be the same each time.
		k.seed = 1
	}
	k.order = steal.NewOrder(k.procs)
	k.allp = make([]*p, k.procs)
	for i := range k.allp {
		k.allp[i] = &p{id: i, batch: make([]*g, 0, globalBatch), gfree: make([]*g, 0, gfreeMax), labels: procLabels(i)}
		if k.histograms {
			k.allp[i].h, k.allp[i].hpub = new(histograms), new(pubHistograms)
		}
	}
	k.mon.ps = make([]monitorP, k.procs)
	empty := []mEntry{}
	k.allm.Store(&empty)
	k.lock.Lock()
	// Every P starts idle; Ps are taken off the idle list in reverse, so
	// push them in reverse to hand out P0 first.
	for i := len(k.allp) - 1; i >= 0; i-- {
		if k.manual {
			k.allp[i].status.Store(pRunning)
			continue
		}
		k.pidleput(k.allp[i])
	}
	k.monitorRun = k.monitor
	k.lastpoll.Store(nanotime()) // nobody is in the poller
	k.lock.Unlock()
	if k.monitor {
		xsync.Go(k.sysmon)
	}
	return k, nil
}

// Procs returns the number of Ps.
func (k *Kernel) Procs() int { return k.procs }

// Go submits fn as a new task from any goroutine. The task goes to the tail
// of the global queue and an idle P is woken for it (wakep); from inside a
// task, [Ctx.Go] is faster and runs the child next on the same P.
//
// Go returns [ErrNilFunc] for a nil fn and [ErrClosed] once Shutdown or
// Close has been called; the task is then not run.
func (k *Kernel) Go(fn func(*Ctx)) error {
	return k.submit(nil, fn)
}

// submit is Go and GoKind.
func (k *Kernel) submit(kd *Kind, fn func(*Ctx)) error {
	if fn == nil {
		return ErrNilFunc
	}
	k.lock.Lock()
	if k.state.Load() != stateRunning {
		k.lock.Unlock()
		return ErrClosed
	}
	gp := k.gfgetLocked()
	gp.fn, gp.kind = fn, kd
	k.stampReady(gp)
	k.global.Put(gp)
	k.remote++
	k.lock.Unlock()
	k.wakep()
	return nil
}

// GoBatch submits every function of fns as a new task from any goroutine,
// with one acquisition of the scheduler lock: the tasks go to the tail of the
// global queue in order and one M is started per idle P, up to one per task
// (the runtime's injectglist without a P). It returns [ErrNilFunc] if any
// function is nil and [ErrClosed] once Shutdown or Close has been called;
// either way no task of the batch is run. Beyond the callers' closures,
// GoBatch allocates one slice of len(fns) task pointers per call, the
// batch it hands to the queues in one step; [Kernel.Go] allocates nothing.
func (k *Kernel) GoBatch(fns ...func(*Ctx)) error {
	for _, fn := range fns {
		if fn == nil {
			return ErrNilFunc
		}
	}
	if len(fns) == 0 {
		return nil
	}
	gs := make([]*g, len(fns))
	k.lock.Lock()
	if k.state.Load() != stateRunning {
		k.lock.Unlock()
		return ErrClosed
	}
	for i, fn := range fns {
		gs[i] = k.gfgetLocked()
		gs[i].fn = fn
		k.stampReady(gs[i])
	}
	k.global.PutBatch(gs)
	k.remote += uint64(len(fns))
	k.lock.Unlock()
	k.injectglist(nil, gs)
	return nil
}

// Shutdown stops the kernel gracefully: it stops intake ([Kernel.Go] returns
// [ErrClosed]), lets the kernel run what is queued and what running and
// woken tasks spawn, and returns once no task is runnable or running and
// every worker has exited. Tasks parked and never woken are not waited for:
// [Stats.ParkedTasks] counts them, and a Wake after Shutdown has returned drops
// its task ([Stats.DroppedCount]).
//
// If ctx is done first, Shutdown returns ctx.Err() and the kernel goes on
// draining; call Close to stop it at once. Shutdown returns [ErrClosed] if
// Close stopped the kernel first, and [ErrInTask] if called from inside a
// task, which would wait for itself. It may be called more than once.
func (k *Kernel) Shutdown(ctx context.Context) error {
	if k.callerM() != nil {
		return ErrInTask
	}
	k.lock.Lock()
	closed := false
	switch k.state.Load() {
	case stateRunning:
		k.state.Store(stateDraining)
		// An M blocked in the poller holds woken tasks as soon as it
		// returns: break it, so that the drain sees what it got.
		if np := k.poller.Load(); np != nil {
			pollOps.Break(np)
		}
		k.checkDrainedLocked()
	case stateStopped:
		closed = !k.drained
	}
	k.lock.Unlock()
	if closed {
		k.exited.Wait()
		return ErrClosed
	}
	if ctx.Done() == nil {
		k.exited.Wait()
	} else {
		select {
		case <-k.exited.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	k.lock.Lock()
	drained := k.drained
	k.lock.Unlock()
	if !drained {
		return ErrClosed
	}
	return nil
}

// Close stops the kernel now: intake stops, queued tasks are dropped and
// counted in [Stats.DroppedCount], and every worker exits at its next scheduling
// point. A task cannot be interrupted, so Close waits for the runs in
// progress to return (and drops whatever they spawn, yield or wake), except
// the runs of tasks inside [Ctx.Block], whose blocking call may wait for a
// task that Close dropped: they end whenever that call returns. Called from
// inside a task, Close does not wait for that task's own run. Parked tasks
// stay parked and are counted in [Stats.ParkedTasks]. Close may be called more
// than once and always returns nil.
func (k *Kernel) Close() error {
	self := k.callerM()
	k.lock.Lock()
	if k.state.Load() != stateStopped {
		k.state.Store(stateStopped)
		for gp := k.global.Get(); gp != nil; gp = k.global.Get() {
			k.dropLocked(gp)
		}
		// Take the Ps of Ms inside Block too, so that what is queued on
		// them is dropped now rather than when the blocking call returns.
		for _, pp := range k.allp {
			if pp.status.Load() == pSyscall && pp.status.Cas(pSyscall, pIdle) {
				k.dropLocalLocked(pp)
				k.releasePLocked(pp)
			}
		}
		k.finishLocked()
	}
	k.lock.Unlock()
	if self == nil {
		k.exited.Wait()
	}
	return nil
}

// checkDrainedLocked finishes a draining kernel once it is quiescent: every
// P idle (so every local queue empty and no task running), no M in Block,
// the global queue empty, and no M in the poller (lastpoll not zero), whose
// woken tasks would otherwise be dropped. Called with the lock held, by Shutdown and by
// every pidleput.
func (k *Kernel) checkDrainedLocked() {
	k.lock.AssertHeld("sched.lock")
	if k.state.Load() == stateDraining && int(k.npidle.Load()) == k.procs &&
		k.nmsys.Load() == 0 && k.global.Len() == 0 && k.lastpoll.Load() != 0 && k.pollingNet.Load() == 0 {
		k.state.Store(stateStopped)
		k.drained = true
		k.finishLocked()
	}
}

// finishLocked runs once the kernel is stopped: it wakes every idle M so
// that it exits, and the monitor. Called with the lock held.
func (k *Kernel) finishLocked() {
	k.lock.AssertHeld("sched.lock")
	k.releaseGroupWaitersLocked()
	for mp := k.midle; mp != nil; {
		next := mp.link
		mp.link, mp.nextp = nil, nil
		mp.note.Wakeup() // with no P: exit
		mp = next
	}
	k.midle, k.nmidle = nil, 0
	if k.monMode.Swap(monAwake) != monAwake {
		k.monNote.Wakeup()
	}
	if np := k.poller.Load(); np != nil {
		pollOps.Break(np) // the M blocked in the poller exits
	}
	k.maybeExitedLocked()
}

// maybeExitedLocked sets k.exited once the kernel is stopped, every M
// but those inside Block, and the monitor, have exited, and every P is
// idle. An M inside Block is not waited for: its blocking call may wait
// for a task that Close dropped. It exits when the call returns and its
// task's run ends. But its P is: an M that enters Block counts itself in
// nmsys before it finds the kernel stopped and hands its P off, dropping
// what is queued there, and Close must not return in between. Called with
// the lock held. No runtime counterpart: DESIGN.md §3.4.
func (k *Kernel) maybeExitedLocked() {
	k.lock.AssertHeld("sched.lock")
	if k.state.Load() == stateStopped && k.mcount == int(k.nmsys.Load()) && !k.monitorRun &&
		int(k.npidle.Load()) == k.procs {
		// Nobody polls any more (an M inside Block exits without
		// polling): close the poller. Its descriptors stay their owners'
		// to close.
		if np := k.poller.Load(); np != nil {
			pollOps.Close(np)
		}
		k.exited.Set()
	}
}

// dropLocked counts a task that will never run because the kernel stopped.
// Called with the lock held.
func (k *Kernel) dropLocked(gp *g) {
	k.lock.AssertHeld("sched.lock")
	k.dropped++
	gp.fn = nil
}
