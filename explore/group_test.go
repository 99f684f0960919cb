//go:build vsched_explore

package explore_test

import (
	"errors"
	"os"
	"testing"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/kernel"
)

// Models of task groups in the real kernel (two Ps, no monitor): the last
// task of a group finishing races a Join being registered, a Go adding to
// the group, and a Wait arriving; a TryGo races the group's first limit.
// The group's protocol: a finishing task stores its error, then decrements
// the pending count; the one that brings it to 0 looks at it again under
// the group's lock and takes the registered continuations and Waits; Join
// and Wait look at the count under the same lock before they register. A
// continuation that is lost leaves the Wait of the joining task's group
// blocked for ever, and a Wait that is never woken stays blocked: the
// explorer reports either as a deadlock. Every model ends with Shutdown,
// so that a continuation started twice would run twice and be counted.

// gtask is a model group task: it counts its runs and returns err.
type gtask struct {
	name string
	err  error
	runs xsync.Int32
}

func (t *gtask) fn(*kernel.Ctx) error {
	t.runs.Add(1)
	return t.err
}

// finished asserts that every task ran exactly once, as seen by a
// continuation or a Wait that must come after them.
func finished(what string, ts ...*gtask) {
	for _, t := range ts {
		n := t.runs.Load()
		explore.Assertf(n == 1, "%s: task %s ran %d times, want once before", what, t.name, n)
	}
}

// lastTaskVsJoin: a task of group parent joins group g while g's only
// task, last, finishes with an error on the other P. The Join sees g busy
// and registers, or sees it done and starts the continuation at once; the
// continuation belongs to parent, whose Wait must return only after it
// ran, once, after last, with last's error.
func lastTaskVsJoin() {
	k := newModelKernel(2)
	parent, g := k.NewGroup(nil), k.NewGroup(nil)
	boom := errors.New("boom")
	last := &gtask{name: "last", err: boom}
	var conts xsync.Int32
	must(g.Go(last.fn))
	must(parent.Go(func(c *kernel.Ctx) error {
		c.Join(g, func(_ *kernel.Ctx, err error) {
			finished("the continuation", last)
			explore.Assertf(err == boom, "the continuation received %v, want the joined group's error", err)
			conts.Add(1)
		})
		return nil
	}))
	err := parent.Wait()
	explore.Assertf(err == nil, "the parent group's Wait: %v", err)
	explore.Assertf(conts.Load() == 1, "the parent group's Wait returned with its continuation run %d times", conts.Load())
	drain(k)
	explore.Assertf(conts.Load() == 1, "the continuation ran %d times, want exactly once", conts.Load())
}

// lastTaskVsGo: a task of group parent adds second to group g and then
// joins g, while g's first task finishes on the other P. first's end may
// bring the count to 0 just before the Go raises it again: the group is
// busy again, and the continuation, registered after second was added,
// must wait for second too. The joining task then blocks (Ctx.Block,
// its P handed off at once) until the continuation ran, so that the end
// of first can go on after the Join without a second preemption, while
// second waits in the joining task's P, which another M takes over.
func lastTaskVsGo() {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	parent, g := k.NewGroup(nil), k.NewGroup(nil)
	first, second := &gtask{name: "first"}, &gtask{name: "second"}
	var conts xsync.Int32
	var release xsync.Note
	must(g.Go(first.fn))
	must(parent.Go(func(c *kernel.Ctx) error {
		must(g.Go(second.fn))
		c.Join(g, func(_ *kernel.Ctx, err error) {
			// Released even when an assertion fails: the failure then
			// reaches the parent group's Wait as its error.
			defer release.Wakeup()
			conts.Add(1)
			finished("the continuation", first, second)
		})
		c.Block(func() { release.Sleep() })
		return nil
	}))
	err := parent.Wait()
	explore.Assertf(err == nil, "the parent group's Wait: %v", err)
	drain(k)
	explore.Assertf(conts.Load() == 1, "the continuation ran %d times, want exactly once", conts.Load())
}

// lastTaskVsWait: the model's thread waits for a group whose only task
// finishes with an error on a P: the Wait sees the group busy and blocks,
// or sees it done; it must return after the task, with its error.
func lastTaskVsWait() {
	k := newModelKernel(2)
	g := k.NewGroup(nil)
	boom := errors.New("boom")
	last := &gtask{name: "last", err: boom}
	must(g.Go(last.fn))
	err := g.Wait()
	finished("Wait", last)
	explore.Assertf(err == boom, "Wait returned %v, want the task's error", err)
	drain(k)
}

// joinVsParentWait: a task of group parent joins group g while g's only
// task finishes on the other P, and then goes on. The continuation
// belongs to parent from the moment of the Join, so parent is busy from
// its task's start to the continuation's end: its Wait must return after
// both, whichever of the two ends last.
func joinVsParentWait() {
	k := newModelKernel(2)
	parent, g := k.NewGroup(nil), k.NewGroup(nil)
	last := &gtask{name: "last"}
	var after, conts xsync.Int32
	must(g.Go(last.fn))
	must(parent.Go(func(c *kernel.Ctx) error {
		c.Join(g, func(*kernel.Ctx, error) { conts.Add(1) })
		after.Add(1)
		return nil
	}))
	must(parent.Wait())
	explore.Assertf(after.Load() == 1, "the parent group's Wait returned before its task went on from Join")
	explore.Assertf(conts.Load() == 1, "the parent group's Wait returned with its continuation run %d times", conts.Load())
	drain(k)
}

// countedJoinVsReuse: group parent has a limit of one, so the Join of its
// task is counted: the continuation holds a slot of parent's limit until
// it ends. g's first task finishes on the other P while parent's task adds
// second to g and then joins g: first's end may bring the count to 0 and
// complete g while the Go makes g busy again and the Join registers, and
// second's end then completes g once more. Whichever completion takes the
// continuation must take its counted flag with it, or parent's slot is
// never given back, and a task added to parent afterwards waits in its
// queue for ever (its Wait a deadlock). Bound 2: one preemption holds
// first's completion back, the other lets it take the lock before
// second's.
func countedJoinVsReuse() {
	first, second, probe := &gtask{name: "first"}, &gtask{name: "second"}, &gtask{name: "probe"}
	var conts xsync.Int32
	k, parent := countedJoinRace(first, second, func(*kernel.Ctx, error) {
		conts.Add(1)
		finished("the continuation", first, second)
	})
	explore.Assertf(conts.Load() == 1, "the parent group's Wait returned with its continuation run %d times", conts.Load())
	must(parent.Go(probe.fn))
	must(parent.Wait())
	finished("the parent group's second Wait", probe)
	drain(k)
}

// countedJoinSlot is countedJoinVsReuse with what the leak leaves
// behind looked at directly: once parent's Wait has returned, its task and
// the continuation have each given back their slot of the limit, so none
// is taken. Fewer steps than the probe's Go and Wait make the search at
// bound 2 shorter.
func countedJoinSlot() {
	k, parent := countedJoinRace(&gtask{name: "first"}, &gtask{name: "second"}, func(*kernel.Ctx, error) {})
	st := testhook.GroupStateOf(parent)
	explore.Assertf(st.Active == 0, "after the parent group's Wait %d of its limit's slots are taken, want 0", st.Active)
	drain(k)
}

// countedJoinRace runs the race of the counted-Join models: parent, limited
// to one, has a task that adds second to g, whose first task is already
// added, and joins g with then. It returns once parent's Wait has.
func countedJoinRace(first, second *gtask, then func(*kernel.Ctx, error)) (*kernel.Kernel, *kernel.Group) {
	k := newModelKernel(2)
	parent, g := k.NewGroup(nil), k.NewGroup(nil)
	parent.SetLimit(1)
	must(g.Go(first.fn))
	must(parent.Go(func(c *kernel.Ctx) error {
		must(g.Go(second.fn))
		c.Join(g, then)
		return nil
	}))
	must(parent.Wait())
	return k, parent
}

// waitAfterStop: Close drops the group's queued task, or the task ran
// before it; a Wait that starts after the kernel stopped returns at once,
// with ErrClosed if the group is not done.
func waitAfterStop() {
	k := newModelKernel(1)
	g := k.NewGroup(nil)
	t := &gtask{name: "t"}
	must(g.Go(t.fn))
	must(k.Close())
	err := g.Wait()
	explore.Assertf(err == nil && t.runs.Load() == 1 || errors.Is(err, kernel.ErrClosed) && t.runs.Load() == 0,
		"Wait after Close: %v with the task run %d times; want nil after it ran, ErrClosed if it was dropped", err, t.runs.Load())
}

// tryGoVsSetLimit: two tasks of group parent, on the two Ps: one calls
// TryGo on group g, the other gives g a limit of 1 and adds holder, which
// takes the slot if it is free and waits in g's queue otherwise. TryGo
// may look at g before the limit and add to the count after it: its task
// then holds the slot if it is free, and otherwise is not added, and its
// count is taken back. Whichever order, the tried task runs exactly when
// TryGo says it started, holder runs once, and once both groups are done
// g has nothing pending, active or queued. Here holder ends when it
// likes, so one preemption puts TryGo's add between the limit and
// holder's start (the slot is free); in tryGoVsHeldSlot it keeps the slot
// until TryGo has returned, so that one preemption puts TryGo's add
// after holder took the slot.
func tryGoVsSetLimit() { tryGoModel(false) }

// tryGoVsHeldSlot is tryGoVsSetLimit with holder blocked (Ctx.Block, its
// P handed off at once) until TryGo has returned.
func tryGoVsHeldSlot() { tryGoModel(true) }

func tryGoModel(holdSlot bool) {
	k := newModelKernel(2, kernel.WithBlockHandoff(kernel.HandoffEager))
	parent, g := k.NewGroup(nil), k.NewGroup(nil)
	tried := &gtask{name: "tried"}
	var started, holderRuns xsync.Int32
	var returned xsync.Note
	triedFn := func(c *kernel.Ctx) error {
		// Both tried and holder hold a slot only after the limit: at
		// most one of them may, and does, count while it runs.
		st := testhook.GroupStateOf(g)
		explore.Assertf(st.Active <= 1, "tried runs with %d tasks active in a limit of 1", st.Active)
		return tried.fn(c)
	}
	must(parent.Go(func(*kernel.Ctx) error {
		ok, err := g.TryGo(triedFn)
		if ok {
			started.Store(1)
		}
		returned.Wakeup()
		return err
	}))
	must(parent.Go(func(*kernel.Ctx) error {
		g.SetLimit(1)
		return g.Go(func(c *kernel.Ctx) error {
			holderRuns.Add(1)
			if holdSlot {
				c.Block(func() { returned.Sleep() })
			}
			return nil
		})
	}))
	must(parent.Wait())
	must(g.Wait())
	drain(k)
	n := tried.runs.Load()
	explore.Assertf(n == started.Load(), "TryGo reported started=%v and its task ran %d times", started.Load() == 1, n)
	explore.Assertf(holderRuns.Load() == 1, "holder ran %d times, want once", holderRuns.Load())
	st := testhook.GroupStateOf(g)
	explore.Assertf(st.Pending == 0 && st.Active == 0 && st.Queued == 0,
		"the group once done: %d pending, %d active, %d queued; want none", st.Pending, st.Active, st.Queued)
}

func must(err error) {
	explore.Assertf(err == nil, "%v", err)
}

// groupModels are the models of task groups, by name.
var groupModels = []struct {
	name  string
	model func()
}{
	{"LastTaskVsJoin", lastTaskVsJoin},
	{"LastTaskVsGo", lastTaskVsGo},
	{"LastTaskVsWait", lastTaskVsWait},
	{"JoinVsParentWait", joinVsParentWait},
	{"CountedJoinVsReuse", countedJoinVsReuse},
	{"CountedJoinSlot", countedJoinSlot},
	{"WaitAfterStop", waitAfterStop},
	{"TryGoVsSetLimit", tryGoVsSetLimit},
	{"TryGoVsHeldSlot", tryGoVsHeldSlot},
}

// groupConfig is kernelConfig for the group models: bound 1 unless the
// flag or VSCHED_MAX_PREEMPTIONS sets one, or the model's defaultBound,
// and the model's defaultCap; every search complete but CountedJoinSlot's.
func groupConfig(name string) explore.Config {
	cfg := explore.Config{MaxPreemptions: *kernelBound, MaxExecutions: *kernelExecutions}
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

func TestGroupModels(t *testing.T) {
	for _, gm := range groupModels {
		t.Run(gm.name, func(t *testing.T) {
			groupConfig(gm.name).Check(t, gm.model)
		})
	}
}

// TestGroupModelsRC11 explores the group models under the weak memory
// model, at the same bound and the default two stale choices.
func TestGroupModelsRC11(t *testing.T) {
	for _, gm := range groupModels {
		t.Run(gm.name, func(t *testing.T) {
			cfg := groupConfig(gm.name)
			cfg.Memory = explore.RC11
			cfg.Check(t, gm.model)
		})
	}
}
