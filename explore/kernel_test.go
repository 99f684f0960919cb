//go:build vsched_explore

package explore_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/campaign"
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/kernel"
)

// Models of the real kernel, with two Ps unless said otherwise. The
// kernel's Ms are explorer threads (xsync.Go), its lock and notes are
// explorer primitives, and the monitor does not run (time does not pass in
// a model), except in the Monitor models, where its timed sleeps end only
// by a Wakeup. Every model ends with Shutdown, which returns only once
// every task that was accepted has run: a lost wakeup leaves a task queued
// with every M asleep, and the explorer reports that as a deadlock.

// newModelKernel returns a kernel of procs Ps set up for a model.
func newModelKernel(procs int, opts ...kernel.Option) *kernel.Kernel {
	opts = append([]kernel.Option{kernel.WithProcs(procs), testhook.KernelModel.(kernel.Option)}, opts...)
	k, err := kernel.New(opts...)
	if err != nil {
		panic(err)
	}
	return k
}

// newMonitorKernel returns a kernel of procs Ps whose monitor runs: its
// timed rounds end by a wakeup, or by a timeout when the model's
// exploration allows them (modelTimeouts).
func newMonitorKernel(procs int) *kernel.Kernel {
	k, err := kernel.New(kernel.WithProcs(procs))
	if err != nil {
		panic(err)
	}
	return k
}

// ktask is a model task that counts its runs.
type ktask struct {
	name string
	runs xsync.Int32
}

func (t *ktask) fn(c *kernel.Ctx) { t.runs.Add(1) }

// blockOn is a task that blocks (Ctx.Block) until release is woken and
// then counts its run in t.
func blockOn(release *xsync.Note, t *ktask) func(*kernel.Ctx) {
	return func(c *kernel.Ctx) {
		c.Block(func() { release.Sleep() })
		t.fn(c)
	}
}

// startedBlockOn is blockOn that first wakes started, which the model's
// other side waits for to know that the Block is under way.
func startedBlockOn(started, release *xsync.Note, t *ktask) func(*kernel.Ctx) {
	block := blockOn(release, t)
	return func(c *kernel.Ctx) {
		started.Wakeup()
		block(c)
	}
}

// awaited is the task that a spinning task waits for while another
// blocks: it counts its run in t, ends the spin (done) and the Block
// (release).
func awaited(t *ktask, done *xsync.Int32, release *xsync.Note) func(*kernel.Ctx) {
	return func(c *kernel.Ctx) {
		t.fn(c)
		done.Store(1)
		release.Wakeup()
	}
}

// spinUntil spins, in a task that keeps its P, until done is set.
func spinUntil(done *xsync.Int32) {
	for done.Load() == 0 {
		xsync.Spin()
	}
}

// ranOnce asserts that every task ran exactly once.
func ranOnce(ts ...*ktask) {
	for _, t := range ts {
		n := t.runs.Load()
		explore.Assertf(n == 1, "task %s ran %d times, want exactly once", t.name, n)
	}
}

// drain shuts k down and asserts that it drained.
func drain(k *kernel.Kernel) {
	err := k.Shutdown(context.Background())
	explore.Assertf(err == nil, "Shutdown: %v", err)
}

// remoteSubmitVsLastSpinner: two tasks submitted from outside; the first
// blocks until the second has run, without a monitor to retake its P, so
// the second can only run on the other P. The second submit races the Ms
// that the first one woke: the one that found the first task must wake
// another (resetspinning), and that spinner, finding nothing yet, goes
// idle while the submit publishes and looks at nmspinning: the runtime's
// "delicate dance" between a submitter and the last spinner giving up.
// (The races of runtime issues #45867 and #63555 need more than this:
// SpawnVsDroppingP and SpawnVsIdle/GoBatch reach them.)
func remoteSubmitVsLastSpinner() {
	k := newModelKernel(2)
	var release xsync.Note
	a, b := &ktask{name: "a"}, &ktask{name: "b"}
	k.Go(blockOn(&release, a))
	k.Go(func(c *kernel.Ctx) {
		b.fn(c)
		release.Wakeup()
	})
	drain(k)
	ranOnce(a, b)
}

// spawnOverflowVsLastSpinner: a task spawns six children on its P, the
// last of which overflows the P's local queue (four slots in the explorer
// build): half the ring and the new child, three tasks, go to the global
// queue. Then the task blocks, keeping its P, until every child ran, so
// only the other P can run them. That P's M spun, found nothing, and is
// going idle: its spawn's wakep sees the spinner and starts nobody, so the
// spinner, once it stops spinning, must find the global tasks in its
// recheck and take them all, the fair share it runs and the rest it
// queues on the P it takes back (the "delicate dance" with a batch).
func spawnOverflowVsLastSpinner() {
	k := newModelKernel(2)
	var release xsync.Note
	var left xsync.Int32
	parent := &ktask{name: "parent"}
	kids := make([]*ktask, 6)
	for i := range kids {
		kids[i] = &ktask{name: fmt.Sprintf("child %d", i)}
	}
	left.Store(int32(len(kids)))
	k.Go(func(c *kernel.Ctx) {
		for _, kid := range kids {
			c.Go(func(c *kernel.Ctx) {
				kid.fn(c)
				if left.Add(-1) == 0 {
					release.Wakeup()
				}
			})
		}
		blockOn(&release, parent)(c)
	})
	drain(k)
	ranOnce(append(kids, parent)...)
}

// wakeVsParkCommit: a task parks and hands its Waker to an outside thread,
// which wakes it at any moment: before Park returns, before the park
// commits after the function returned, or after. The task must run exactly
// twice, and its second run must see what its first wrote: the task counts
// its runs with relaxed operations, so under RC11 only the kernel (the park
// commit, the Wake, the queue) orders the runs. The Waker is handed out by
// a release store and an acquire load, the least that any hand-over in Go
// gives (channels, mutexes and sync/atomic all synchronize); a relaxed one
// would let the waker read a park state older than the Park it was handed.
func wakeVsParkCommit() {
	k := newModelKernel(2)
	var w xsync.Pointer[kernel.Waker]
	var runs xsync.Int32
	k.Go(func(c *kernel.Ctx) {
		n := runs.LoadRelaxed() + 1
		runs.StoreRelaxed(n)
		if n == 1 {
			w.StoreRel(c.Park())
		}
	})
	for w.LoadAcq() == nil {
		xsync.Spin()
	}
	w.LoadAcq().Wake()
	drain(k)
	n := runs.Load()
	explore.Assertf(n == 2, "the parked task ran %d times, want twice", n)
}

// twoWakesVsPark: a task parks and hands its Waker out; two outside
// threads wake it at once, before the park commits or after. Whatever the
// order, the two Wakes ready the task once between them, so it runs
// exactly twice.
func twoWakesVsPark() {
	k := newModelKernel(1)
	var w xsync.Pointer[kernel.Waker]
	var runs xsync.Int32
	k.Go(func(c *kernel.Ctx) {
		if runs.Add(1) == 1 {
			w.StoreRel(c.Park())
		}
	})
	for w.LoadAcq() == nil {
		xsync.Spin()
	}
	var second xsync.Note
	xsync.Go(func() {
		w.LoadAcq().Wake()
		second.Wakeup()
	})
	w.LoadAcq().Wake()
	second.Sleep()
	drain(k)
	n := runs.Load()
	explore.Assertf(n == 2, "the parked task ran %d times after two Wakes of one Park, want twice", n)
}

// wakeFromBusyTask: two Ps. A task parks and hands its Waker out; a task
// on the other P wakes it, which readies it into the waker's own runnext,
// and then spins until the woken task has run again, which only the other
// P can do meanwhile. The Wake's wakep must start an M there, or the woken
// task waits behind a task that is never preempted.
func wakeFromBusyTask() {
	k := newModelKernel(2)
	var w xsync.Pointer[kernel.Waker]
	var runs, done xsync.Int32
	parked, waker := &ktask{name: "parked"}, &ktask{name: "waker"}
	k.Go(func(c *kernel.Ctx) {
		if runs.Add(1) == 1 {
			w.StoreRel(c.Park())
			return
		}
		parked.fn(c)
		done.Store(1)
	})
	k.Go(func(c *kernel.Ctx) {
		for w.LoadAcq() == nil {
			xsync.Spin()
		}
		w.LoadAcq().Wake()
		spinUntil(&done)
		waker.fn(c)
	})
	drain(k)
	ranOnce(parked, waker)
}

// blockHandoffVsSubmit: the only P's task blocks until a task submitted
// from outside runs, so that the waker can run only on the P handed off
// from the Block: eagerly, as the Block starts (entersyscallblock), or by
// the monitor's retake, whose rounds the model's timeouts let run (lazy).
func blockHandoffVsSubmit(eager bool) func() {
	return func() {
		var k *kernel.Kernel
		if eager {
			k = newModelKernel(1, kernel.WithBlockHandoff(kernel.HandoffEager))
		} else {
			k = newMonitorKernel(1)
		}
		var release xsync.Note
		blocker, waker := &ktask{name: "blocker"}, &ktask{name: "waker"}
		k.Go(blockOn(&release, blocker))
		k.Go(func(c *kernel.Ctx) {
			waker.fn(c)
			release.Wakeup()
		})
		drain(k)
		ranOnce(blocker, waker)
	}
}

// blockHandoffVsBusySubmit: two Ps, HandoffEager. One task blocks,
// handing its P off as the Block starts, and a second keeps the other P
// busy, spinning until a third task, submitted from outside once the first
// has started, has run. The submit's wakep may find no idle P (one is being
// handed off, the other busy) and a spinner claimed or needspinning set,
// and start nobody: then handoffp's looks under the lock, at the global
// queue (the runtime's sched.runqsize check) and at needspinning, are what
// start an M for the handed-off P, or the spinning task waits for ever.
func blockHandoffVsBusySubmit() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	var started, release xsync.Note
	var done xsync.Int32
	blocker, spinner, submitted := &ktask{name: "blocker"}, &ktask{name: "spinner"}, &ktask{name: "submitted"}
	k.Go(startedBlockOn(&started, &release, blocker))
	k.Go(func(c *kernel.Ctx) {
		spinUntil(&done)
		spinner.fn(c)
	})
	started.Sleep()
	k.Go(awaited(submitted, &done, &release))
	drain(k)
	ranOnce(blocker, spinner, submitted)
}

// blockHandoffVsBusySpawn: two Ps, HandoffEager. One task blocks, handing
// its P off as the Block starts; on the other P a task spawns a child into
// its own runnext and then spins until the child has run, which only the
// handed-off P can do. The spawn's wakep may find no idle P, the first one
// still in Block, and ask for a spinner (needspinning) after handoffp
// looked at nmspinning and npidle: handoffp's look under the lock must
// take that request, as findRunnable's drop does, or it idles the P and
// the child waits behind a task that is never preempted.
func blockHandoffVsBusySpawn() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	var started, release xsync.Note
	var done xsync.Int32
	blocker, spinner, child := &ktask{name: "blocker"}, &ktask{name: "spinner"}, &ktask{name: "child"}
	k.Go(startedBlockOn(&started, &release, blocker))
	k.Go(func(c *kernel.Ctx) {
		started.Sleep()
		c.Go(awaited(child, &done, &release))
		spinUntil(&done)
		spinner.fn(c)
	})
	drain(k)
	ranOnce(blocker, spinner, child)
}

// blockExitVsHandoff: two Ps, HandoffEager, three tasks that block, each
// handing its P off as its Block starts: x and w, then y. The model's
// thread ends w's Block and x's while y's handoffp runs. w's M, back
// first, takes the idle P and w spins until x has run; x's M then finds
// no idle P and waits for one. If it starts waiting after handoffp looked
// for such Ms at its start, handoffp's last step under the lock must give
// y's P to it, or the P goes idle beside it and w spins for ever.
func blockExitVsHandoff() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	var xStarted, xRelease, wStarted, wRelease, yStarted, yRelease xsync.Note
	var done xsync.Int32
	x, w, y := &ktask{name: "x"}, &ktask{name: "w"}, &ktask{name: "y"}
	// block blocks c until release, waking started inside the Block, when
	// c's P has been handed off.
	block := func(c *kernel.Ctx, started, release *xsync.Note) {
		c.Block(func() {
			started.Wakeup()
			release.Sleep()
		})
	}
	k.Go(func(c *kernel.Ctx) {
		block(c, &xStarted, &xRelease)
		awaited(x, &done, &yRelease)(c)
	})
	xStarted.Sleep()
	k.Go(func(c *kernel.Ctx) {
		block(c, &wStarted, &wRelease)
		spinUntil(&done)
		w.fn(c)
	})
	wStarted.Sleep()
	k.Go(startedBlockOn(&yStarted, &yRelease, y))
	yStarted.Sleep()
	wRelease.Wakeup()
	xRelease.Wakeup()
	drain(k)
	ranOnce(x, w, y)
}

// blockHandoffVsRemoteSubmit: the only P's task starts a Block that hands
// the P off at once (HandoffEager) and waits in it until a task submitted
// from outside has run. The submit comes as soon as the task has started,
// so its wakep races handoffp's looks at the queues and at nmspinning;
// the default bound, two, lets it fall between any two of them.
func blockHandoffVsRemoteSubmit() {
	k := newModelKernel(1, kernel.WithBlockHandoff(kernel.HandoffEager))
	var started, release xsync.Note
	blocker, waker := &ktask{name: "blocker"}, &ktask{name: "waker"}
	k.Go(startedBlockOn(&started, &release, blocker))
	started.Sleep()
	k.Go(func(c *kernel.Ctx) {
		waker.fn(c)
		release.Wakeup()
	})
	drain(k)
	ranOnce(blocker, waker)
}

// blockVsRetake: the only P's task blocks until an outside thread releases
// it, at any moment, while a second task waits in the global queue and the
// monitor's rounds retake the P (retake and handoffp) and hand it to a new
// M. The end of the Block (exitsyscall) races the retake: the returning M
// either gets its P back, by winning the compare-and-swap on its status,
// or waits for a P while the new M runs the second task. Either way each
// task runs once, and no P is held by two Ms.
func blockVsRetake() {
	k := newMonitorKernel(1)
	var release xsync.Note
	blocker, other := &ktask{name: "blocker"}, &ktask{name: "other"}
	k.Go(blockOn(&release, blocker))
	k.Go(other.fn)
	release.Wakeup()
	drain(k)
	ranOnce(blocker, other)
}

// blockWithLocalWork: the only P's task spawns a child into its runnext
// and then blocks until the child has run. Only the monitor's retake can
// free the P, and handoffp must see the P's local work and start an M for
// it.
func blockWithLocalWork() {
	k := newMonitorKernel(1)
	var release xsync.Note
	parent, child := &ktask{name: "parent"}, &ktask{name: "child"}
	k.Go(func(c *kernel.Ctx) {
		c.Go(func(c *kernel.Ctx) {
			child.fn(c)
			release.Wakeup()
		})
		c.Block(func() { release.Sleep() })
		parent.fn(c)
	})
	drain(k)
	ranOnce(parent, child)
}

// closeVsBlockWithLocalWork: the only P's task spawns a child into its
// runnext and blocks (HandoffLazy, no monitor: nobody retakes the P) as
// Close runs on the model's thread. Either Close finds the P in Block and
// takes it, or the Block finds the kernel stopped and hands the P off:
// both drop the child before Close returns. The Block's store of its P's
// status and its load of the kernel's state race Close's store of the
// state and its look at the status, and one of the two must see the other.
func closeVsBlockWithLocalWork() {
	k := newModelKernel(1)
	var started, gate, release xsync.Note
	child := &ktask{name: "child"}
	k.Go(func(c *kernel.Ctx) {
		c.Go(child.fn)
		started.Wakeup()
		gate.Sleep()
		c.Block(func() { release.Sleep() })
	})
	started.Sleep()
	gate.Wakeup()
	must(k.Close())
	dropped := k.Stats().DroppedCount
	explore.Assertf(child.runs.Load() == 0 && dropped == 1,
		"Close returned with the child of a task in Block run %d times and %d tasks dropped; want 0 and 1", child.runs.Load(), dropped)
	release.Wakeup()
}

// closeVsRemoteWakep: one P, idle. A submit from outside takes the idle P
// in its wakep and, outside the lock, starts an M on it, while Close runs
// on the model's thread. If Close stops the kernel in between, the
// submitter's startm finds it stopped and puts the P back on the idle
// list after every M has exited: Close waits until every P is idle, and
// that P's return must end its wait.
func closeVsRemoteWakep() {
	k := newModelKernel(1)
	var submitted xsync.Note
	xsync.Go(func() {
		err := k.Go(func(*kernel.Ctx) {})
		explore.Assertf(err == nil || errors.Is(err, kernel.ErrClosed), "Go racing Close: %v", err)
		submitted.Wakeup()
	})
	must(k.Close())
	submitted.Sleep()
}

// spawnVsDroppingP is the race of runtime issue #45867, reached at bound 1
// (one preemption). Two tasks meet on the two Ps. The first, spawner, spawns a
// child and then waits, spinning on its P, until the child has run, so
// only the other P can run the child. The spawn's wakep finds no idle P: it
// has claimed a spinning M in nmspinning and sets needspinning before it
// gives the claim back. Meanwhile the second task, returner, ends, and its
// M, not spinning, finds nothing to run and reads nmspinning while the
// claim stands: it may not steal (at most half the busy Ps may have
// spinning Ms), so it must see needspinning when it takes the lock to
// drop its P, and spin instead of going idle.
//
// The returner comes back from a Block, handed off at once, and takes an
// idle P in exitsyscall: so no wakep of its own has set needspinning
// before the spawner's, which would make that wakep return at once. The
// tasks wait for each other on notes outside Block, holding their Ps as a
// task that computes would, so that no preemption is spent on it.
func spawnVsDroppingP() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	var wake, back, spawning, childRan xsync.Note
	child := &ktask{name: "child"}
	k.Go(func(c *kernel.Ctx) { // returner
		c.Block(func() { wake.Sleep() })
		back.Wakeup()
		spawning.Sleep()
	})
	k.Go(func(c *kernel.Ctx) { // spawner
		wake.Wakeup()
		back.Sleep()
		spawning.Wakeup()
		c.Go(func(c *kernel.Ctx) {
			child.fn(c)
			childRan.Wakeup()
		})
		childRan.Sleep()
	})
	drain(k)
	ranOnce(child)
}

// spawnVsIdle: a task spawns a child (Ctx.Go, or Ctx.GoBatch, the
// runtime's injectglist) and then blocks until the child ran, without a
// monitor to retake its P, while the other P's M finishes a task of its own
// and goes idle. Only the other P can run the child, and only if the
// spawn's wakep, its needspinning, injectglist's trailing wakep or the
// spinner's recheck saw it. With GoBatch this is the race of runtime issue
// #63555, at bound 1: injectglist counts no idle P, and the other P goes
// idle after that count; only the trailing wakep starts an M for it.
func spawnVsIdle(batch bool) func() {
	return func() {
		k := newModelKernel(2)
		var release xsync.Note
		child, other := &ktask{name: "child"}, &ktask{name: "other"}
		k.Go(func(c *kernel.Ctx) {
			fn := func(c *kernel.Ctx) {
				child.fn(c)
				release.Wakeup()
			}
			if batch {
				c.GoBatch(fn)
			} else {
				c.Go(fn)
			}
			c.Block(func() { release.Sleep() })
		})
		k.Go(other.fn)
		drain(k)
		ranOnce(child, other)
	}
}

// submitVsStaleNeedspinning: wakep's early return when no P is idle and
// needspinning is set, against a P that is idle. A batch submitted while
// both Ps are busy (one running a task, one held by a spinning M) finds no
// idle P for its task and sets needspinning. The task is taken by the M
// whose task ends, which does not spin, and it holds that P until a last
// task has run; the spinning M, finding nothing, drops the other P without
// looking at needspinning, which stays set with a P idle. The last task's
// submit must then start an M for the idle P: a wakep that returned because
// needspinning is set would leave it queued with every M asleep.
func submitVsStaleNeedspinning() {
	k := newModelKernel(2)
	var started, goOn, holding, last xsync.Note
	k.Go(func(c *kernel.Ctx) {
		started.Wakeup()
		goOn.Sleep()
	})
	started.Sleep()
	k.GoBatch(func(c *kernel.Ctx) {
		holding.Wakeup()
		last.Sleep()
	})
	goOn.Wakeup()
	holding.Sleep()
	k.Go(func(c *kernel.Ctx) { last.Wakeup() })
	drain(k)
}

// spawnIntoRingVsSpinner is the kernel's publish-then-check handshake
// through a P's ring: a task spawns a child with GoBatch, which goes into
// its P's ring (no P is idle to take it), and then holds the P, waiting
// until the child has run, while the other P's M spins, finds nothing yet
// and gives up. The spawn publishes the child with the ring's release
// store of tail and then looks at nmspinning; the spinner decrements
// nmspinning and then looks at the ring. Under the weak memory model both
// loads may miss the other side's store (store buffering) unless the
// submitter has a StoreLoad barrier (wakep's FenceSC); the spinner's SC
// decrement and SC loads need none. Under sequential consistency one side
// always sees the other.
func spawnIntoRingVsSpinner() {
	k := newModelKernel(2)
	var release xsync.Note
	child, other := &ktask{name: "child"}, &ktask{name: "other"}
	k.Go(func(c *kernel.Ctx) {
		c.GoBatch(func(c *kernel.Ctx) {
			child.fn(c)
			release.Wakeup()
		})
		release.Sleep() // holds the P, as a task that computes would
	})
	k.Go(other.fn)
	drain(k)
	ranOnce(child, other)
}

// shutdownVsSubmits: Shutdown races two submits from another thread, one
// by Go and one by GoBatch. A submit that returned nil must run exactly
// once, one that returned ErrClosed never, and Shutdown returns nil once the
// accepted ones ran.
func shutdownVsSubmits() {
	k := newModelKernel(2)
	a, b := &ktask{name: "a"}, &ktask{name: "b"}
	var errA, errB error
	submitter := explore.Go(func() {
		errA = k.Go(a.fn)
		errB = k.GoBatch(b.fn)
	})
	drain(k)
	submitter.Join()
	for _, c := range []struct {
		t   *ktask
		err error
	}{{a, errA}, {b, errB}} {
		n := c.t.runs.Load()
		switch {
		case c.err == nil:
			explore.Assertf(n == 1, "task %s was accepted and ran %d times", c.t.name, n)
		case errors.Is(c.err, kernel.ErrClosed):
			explore.Assertf(n == 0, "task %s was refused and ran %d times", c.t.name, n)
		default:
			explore.Assertf(false, "submit of %s: %v", c.t.name, c.err)
		}
	}
}

// monitorVsShutdown: Shutdown of an idle kernel whose monitor runs, as it
// goes to its deep sleep: the monitor must see the stop or be woken, or
// Shutdown waits for it forever. The monitor's first look at the idle
// kernel takes a timed round before its deep sleep, and in a model, where
// time does not pass, a timed round lasts until a Wakeup: the stop must
// end it. (MonitorWakeVsShutdown reaches the deep sleep.)
func monitorVsShutdown() {
	k, err := kernel.New(kernel.WithProcs(1))
	if err != nil {
		panic(err)
	}
	drain(k)
}

// monitorWakeVsShutdown: the monitor of a one-P kernel goes to its deep
// sleep (after the timed round its first quiet look takes, which the model
// lets time out) while two tasks are submitted, the second of which keeps its P
// until the monitor is out of its deep sleep; then Shutdown stops the
// kernel while the monitor is in a timed round. The pidleget that ends the
// quiet must wake the monitor, or the second task spins forever (a
// livelock), and the stop must end the timed round, which in a model
// (time does not pass) lasts until a Wakeup, or Shutdown waits for the
// monitor forever (a deadlock). One P and its only steal order: the
// kernel's random seed does not change what the model does.
func monitorWakeVsShutdown() {
	k, err := kernel.New(kernel.WithProcs(1))
	if err != nil {
		panic(err)
	}
	first, second := &ktask{name: "first"}, &ktask{name: "second"}
	k.Go(first.fn)
	k.Go(func(c *kernel.Ctx) {
		for !testhook.MonitorOutOfDeepSleep(k) {
			xsync.Spin()
		}
		second.fn(c)
	})
	drain(k)
	ranOnce(first, second)
}

// kernelModels are the models of the kernel, by name.
var kernelModels = []struct {
	name  string
	model func()
}{
	{"RemoteSubmitVsLastSpinner", remoteSubmitVsLastSpinner},
	{"SpawnOverflowVsLastSpinner", spawnOverflowVsLastSpinner},
	{"WakeVsParkCommit", wakeVsParkCommit},
	{"TwoWakesVsPark", twoWakesVsPark},
	{"WakeFromBusyTask", wakeFromBusyTask},
	{"BlockHandoffVsSubmit/lazy", blockHandoffVsSubmit(false)},
	{"BlockHandoffVsSubmit/eager", blockHandoffVsSubmit(true)},
	{"BlockHandoffVsRemoteSubmit", blockHandoffVsRemoteSubmit},
	{"BlockHandoffVsBusySubmit", blockHandoffVsBusySubmit},
	{"BlockHandoffVsBusySpawn", blockHandoffVsBusySpawn},
	{"BlockExitVsHandoff", blockExitVsHandoff},
	{"BlockVsRetake", blockVsRetake},
	{"BlockWithLocalWork", blockWithLocalWork},
	{"CloseVsBlockWithLocalWork", closeVsBlockWithLocalWork},
	{"CloseVsRemoteWakep", closeVsRemoteWakep},
	{"SpawnVsIdle/Go", spawnVsIdle(false)},
	{"SpawnVsIdle/GoBatch", spawnVsIdle(true)},
	{"SpawnVsDroppingP", spawnVsDroppingP},
	{"SubmitVsStaleNeedspinning", submitVsStaleNeedspinning},
	{"SpawnIntoRingVsSpinner", spawnIntoRingVsSpinner},
	{"ShutdownVsSubmits", shutdownVsSubmits},
	{"MonitorVsShutdown", monitorVsShutdown},
	{"MonitorWakeVsShutdown", monitorWakeVsShutdown},
}

// modelTimeouts are the timeouts per execution of the models whose
// monitor must run its rounds: two, since retake hands off a P only in
// the second round that finds the same Block, and since the monitor goes
// to its deep sleep only at the second look that finds the kernel quiet
// with no task run between.
var modelTimeouts = map[string]int{
	"BlockHandoffVsSubmit/lazy": 2,
	"BlockVsRetake":             2,
	"BlockWithLocalWork":        2,
	"NetpollDeadlineVsWait":     1,
	"MonitorWakeVsShutdown":     2,
}

// The bound of the kernel's models. By default it is 1, or the model's
// defaultBound; most models are then explored completely in a few seconds,
// and those of defaultCap stop at their caps. VSCHED_MAX_PREEMPTIONS, or
// the flag the campaign (vsched check) passes, sets it for every model.
// A search without a cap may then take millions of executions, so the
// campaign caps the executions of each.
var (
	kernelBound      = flag.Int(campaign.FlagKernelBound, 0, "preemption bound of the kernel models (0: VSCHED_MAX_PREEMPTIONS, else 1)")
	kernelExecutions = flag.Int(campaign.FlagKernelExecutions, 0, "execution cap of each kernel model (0: the explorer's default)")
	kernelTime       = flag.Duration(campaign.FlagKernelTime, 0, "time budget of all kernel models together, shared evenly (0: none)")
)

func kernelConfig(name string) explore.Config {
	cfg := explore.Config{MaxPreemptions: *kernelBound, MaxExecutions: *kernelExecutions,
		MaxDuration: *kernelTime / time.Duration(len(kernelModels)), Timeouts: modelTimeouts[name]}
	if cfg.MaxPreemptions == 0 && os.Getenv("VSCHED_MAX_PREEMPTIONS") == "" {
		cfg.MaxPreemptions = 1
		if b, ok := defaultBound[name]; ok {
			cfg.MaxPreemptions = b
		}
		if cfg.MaxExecutions == 0 {
			cfg.MaxExecutions = defaultCap[name]
		}
	}
	return cfg
}

// defaultCap caps the default search of the models too large to complete
// in the fast tier; their log line says CAPPED. Each model's seeded bugs
// fail before its cap, in the deterministic order of its search;
// docs/VERIFICATION.md has the executions, to complete and to each
// failure.
var defaultCap = map[string]int{
	// Complete at bound 1 in about 2.5 times the cap. Seeded bugs:
	// global-batch-no-wakep and recheck-batch-dropped.
	"BlockHandoffVsBusySubmit": 130_000,
	// At its bound, 2, more than ten times the cap. Seeded bug:
	// monitor-lastpoll-store-not-cas (the cap counts the pruned
	// executions too).
	"NetpollMonitorPollVsTwoIdle": 130_000,
	// Complete at bound 1 in more than ten times the cap. Seeded bug:
	// handoffp-idles-p-past-syswait.
	"BlockExitVsHandoff": 200_000,
	// Complete at bound 1 in about four times the cap. Seeded bug:
	// blocking-poll-rest-stays-local.
	"NetpollTwoWokenVsIdleP": 30_000,
	// A group model. At its bound, 2, more than forty times the cap.
	// Seeded bug: complete-counted-from-early-look (the cap counts the
	// pruned executions too).
	"CountedJoinSlot": 60_000,
}

// defaultBound raises the default bound of the models whose bug needs more
// than one preemption.
var defaultBound = map[string]int{
	// Its seeded bug, monitor-release-skips-drain, needs two.
	"NetpollShutdownVsMonitorPoll": 2,
	// Two preemptions put the submit between any two of handoffp's looks.
	"BlockHandoffVsRemoteSubmit": 2,
	// Its seeded bug, monitor-lastpoll-store-not-cas, needs two: one
	// between the monitor's load of lastpoll and its store, one for the
	// second M to become the blocking poller.
	"NetpollMonitorPollVsTwoIdle": 2,
	// A group model. Its seeded bug, complete-counted-from-early-look,
	// needs two: one between the last task's look at the pending word and
	// its lock, one between the next completion's.
	"CountedJoinSlot": 2,
}

func TestKernelModels(t *testing.T) {
	for _, km := range kernelModels {
		t.Run(km.name, func(t *testing.T) {
			kernelConfig(km.name).Check(t, km.model)
		})
	}
}

// TestKernelModelsRC11 explores the kernel models under the weak memory
// model, at the same bounds and the default two stale choices per execution.
func TestKernelModelsRC11(t *testing.T) {
	for _, km := range kernelModels {
		t.Run(km.name, func(t *testing.T) {
			cfg := kernelConfig(km.name)
			cfg.Memory = explore.RC11
			cfg.Check(t, km.model)
		})
	}
}
