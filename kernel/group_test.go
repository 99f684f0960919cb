package kernel_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/kernel"
)

func newKernel(t *testing.T, opts ...kernel.Option) *kernel.Kernel {
	t.Helper()
	k, err := kernel.New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { k.Close() })
	return k
}

func TestGroupWaitReturnsAfterEveryTaskWithTheFirstError(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	first := errors.New("first")
	var ran atomic.Int32
	gate := make(chan struct{})
	require.NoError(t, g.Go(func(*kernel.Ctx) error {
		ran.Add(1)
		return first
	}))
	for range 100 {
		require.NoError(t, g.Go(func(*kernel.Ctx) error {
			<-gate // blocks its worker; the test only needs the tasks unfinished
			ran.Add(1)
			return errors.New("later")
		}))
	}
	close(gate)
	err := g.Wait()
	require.Equal(t, int32(101), ran.Load(), "Wait returned before every task finished")
	// The first error to be stored is the first task's or a later one's,
	// whichever finished first; it is kept for good.
	require.Error(t, err)
	require.Equal(t, err, g.Wait(), "a second Wait returns the same first error")
}

func TestGroupErrorCancelsTheContextWithTheErrorAsCause(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(context.Background())
	ctx := g.Context()
	boom := errors.New("boom")
	require.NoError(t, g.Go(func(*kernel.Ctx) error { return boom }))
	require.ErrorIs(t, g.Wait(), boom)
	<-ctx.Done()
	require.ErrorIs(t, context.Cause(ctx), boom)
	// A context asked for after the error is cancelled already.
	require.ErrorIs(t, context.Cause(g.Context()), boom)
}

func TestGroupContextMadeAfterTheErrorIsCancelled(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	boom := errors.New("boom")
	require.NoError(t, g.Go(func(*kernel.Ctx) error { return boom }))
	require.ErrorIs(t, g.Wait(), boom)
	ctx := g.Context() // its first call, after the error
	require.ErrorIs(t, ctx.Err(), context.Canceled)
	require.ErrorIs(t, context.Cause(ctx), boom)
}

func TestGroupContextFollowsItsParent(t *testing.T) {
	k := newKernel(t)
	parent, cancel := context.WithCancel(context.Background())
	g := k.NewGroup(parent)
	cancel()
	<-g.Context().Done()
	require.NoError(t, g.Wait(), "an empty group has no error")
}

func TestGroupPanicBecomesItsErrorWithTheValueAndStack(t *testing.T) {
	var handled atomic.Int32
	k := newKernel(t, kernel.WithPanicHandler(func(any, []byte) { handled.Add(1) }))
	g := k.NewGroup(nil)
	require.NoError(t, g.Go(func(*kernel.Ctx) error { panic("kaboom") }))
	err := g.Wait()
	var pe *kernel.PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "kaboom", pe.Value)
	require.Contains(t, string(pe.Stack), "group_test.go", "the stack is the panicking task's")
	require.Zero(t, handled.Load(), "a group task's panic goes to its group, not to the kernel's handler")
	// The kernel goes on running tasks.
	g2 := k.NewGroup(nil)
	require.NoError(t, g2.Go(func(*kernel.Ctx) error { return nil }))
	require.NoError(t, g2.Wait())
}

// A group task that ends its run with runtime.Goexit (t.FailNow in a
// test) is finished, as a task that returns nil: Wait and Join do not wait
// for it for ever. Shutdown runs the Join's continuation before it returns
// and does not wait for the group, so a lost finish shows as a
// continuation that never ran and a Wait that ends with ErrClosed.
func TestGroupTaskThatGoexitsIsFinished(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g, parent := k.NewGroup(nil), k.NewGroup(nil)
	var after, conts atomic.Int32
	require.NoError(t, g.Go(func(*kernel.Ctx) error {
		runtime.Goexit()
		return errors.New("not reached")
	}))
	require.NoError(t, g.Go(func(*kernel.Ctx) error { after.Add(1); return nil }))
	require.NoError(t, parent.Go(func(c *kernel.Ctx) error {
		c.Join(g, func(_ *kernel.Ctx, err error) {
			if err == nil {
				conts.Add(1)
			}
		})
		return nil
	}))
	require.NoError(t, k.Shutdown(context.Background()))
	require.Equal(t, int32(1), after.Load(), "the group's other task ran")
	require.Equal(t, int32(1), conts.Load(), "the Join's continuation ran once, with no error")
	require.NoError(t, g.Wait(), "the group is done")
	require.NoError(t, parent.Wait(), "the joining group is done")
}

// A task that asked to run again (Yield, Park) and then panicked is dead:
// its request dies with it, and it neither runs again nor finishes twice.
func TestGroupTaskThatPanicsAfterYieldOrParkRunsOnce(t *testing.T) {
	for _, ask := range []string{"Yield", "Park"} {
		t.Run(ask, func(t *testing.T) {
			k := newKernel(t, kernel.WithProcs(1))
			g := k.NewGroup(nil)
			var runs atomic.Int32
			wakers := make(chan *kernel.Waker, 1)
			require.NoError(t, g.Go(func(c *kernel.Ctx) error {
				if runs.Add(1) == 1 {
					if ask == "Yield" {
						c.Yield()
					} else {
						wakers <- c.Park()
					}
					panic("after " + ask)
				}
				return nil
			}))
			var pe *kernel.PanicError
			require.ErrorAs(t, g.Wait(), &pe)
			if ask == "Park" {
				(<-wakers).Wake() // the dead task's Waker: it wakes nothing
			}
			require.NoError(t, k.Shutdown(context.Background()))
			require.Equal(t, int32(1), runs.Load(), "the task ran again after it panicked")
			require.Zero(t, testhook.GroupStateOf(g).Pending, "the group's pending count")
		})
	}
}

func TestGroupPanicWithAnErrorUnwrapsToIt(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	boom := errors.New("boom")
	require.NoError(t, g.Go(func(*kernel.Ctx) error { panic(boom) }))
	require.ErrorIs(t, g.Wait(), boom)
}

func TestGroupWaitInsideATaskIsErrInTask(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	got := make(chan error, 1)
	require.NoError(t, k.Go(func(*kernel.Ctx) { got <- g.Wait() }))
	require.ErrorIs(t, <-got, kernel.ErrInTask)
}

func TestGroupWaitInsideBlockMayBlock(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(1))
	g := k.NewGroup(nil)
	var child atomic.Bool
	got := make(chan error, 1)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		c.Block(func() {
			// The P is free: the child runs while this goroutine waits.
			if err := g.Go(func(*kernel.Ctx) error { child.Store(true); return nil }); err != nil {
				got <- err
				return
			}
			got <- g.Wait()
		})
	}))
	require.NoError(t, <-got)
	require.True(t, child.Load())
}

func TestGroupGoWaitInsideBlockMayBlock(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(1))
	g := k.NewGroup(nil)
	g.SetLimit(1)
	var ran atomic.Int32
	got := make(chan error, 1)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		c.Block(func() {
			// The second GoWait waits for the first task to finish,
			// which runs on the P this goroutine does not hold.
			for range 2 {
				if err := g.GoWait(func(*kernel.Ctx) error { ran.Add(1); return nil }); err != nil {
					got <- err
					return
				}
			}
			got <- g.Wait()
		})
	}))
	require.NoError(t, <-got)
	require.EqualValues(t, 2, ran.Load())
}

func TestGroupGoMisuse(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	require.ErrorIs(t, g.Go(nil), kernel.ErrNilFunc)
	require.NoError(t, g.Wait(), "a rejected Go adds nothing")
	require.NoError(t, k.Shutdown(context.Background()))
	require.ErrorIs(t, g.Go(func(*kernel.Ctx) error { return nil }), kernel.ErrClosed)
	require.NoError(t, g.Wait(), "a rejected Go adds nothing")
}

func TestGroupTryGoMisuse(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	started, err := g.TryGo(nil)
	require.ErrorIs(t, err, kernel.ErrNilFunc)
	require.False(t, started)
	require.NoError(t, k.Shutdown(context.Background()))
	started, err = g.TryGo(func(*kernel.Ctx) error { return nil })
	require.ErrorIs(t, err, kernel.ErrClosed)
	require.False(t, started)
	require.NoError(t, g.Wait(), "a rejected TryGo adds nothing")
	require.Zero(t, testhook.GroupStateOf(g).Pending, "a rejected TryGo adds nothing")
}

// TryGo starts a function only when the group has room, from outside the
// kernel and from a task alike, and otherwise adds nothing: the function
// never runs, and neither the pending count nor the limit's queue grows.
func TestGroupTryGoStartsOnlyWhenThereIsRoom(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	started, err := g.TryGo(func(*kernel.Ctx) error { return nil })
	require.NoError(t, err)
	require.True(t, started, "TryGo on a group without a limit")
	require.NoError(t, g.Wait())

	g.SetLimit(1)
	gate := make(chan struct{})
	holding := make(chan struct{})
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		close(holding)
		c.Block(func() { <-gate }) // holds the only slot
		return nil
	}))
	<-holding
	var declinedRan atomic.Bool
	declined := func(*kernel.Ctx) error {
		declinedRan.Store(true)
		return nil
	}
	started, err = g.TryGo(declined)
	require.NoError(t, err)
	require.False(t, started, "TryGo from outside while the only slot is held")
	fromTask := make(chan bool, 1)
	require.NoError(t, k.Go(func(*kernel.Ctx) {
		ok, err := g.TryGo(declined)
		if err != nil {
			panic(err)
		}
		fromTask <- ok
	}))
	require.False(t, <-fromTask, "TryGo from a task while the only slot is held")
	st := testhook.GroupStateOf(g)
	require.Equal(t, int64(1), st.Pending, "declined TryGos added to the pending count")
	require.Zero(t, st.Queued, "declined TryGos queued")

	close(gate)
	require.NoError(t, g.Wait())
	var ran atomic.Bool
	started, err = g.TryGo(func(*kernel.Ctx) error {
		ran.Store(true)
		return nil
	})
	require.NoError(t, err)
	require.True(t, started, "TryGo once the slot came back")
	require.NoError(t, g.Wait())
	require.True(t, ran.Load())
	require.False(t, declinedRan.Load(), "a function TryGo declined ran")
}

func TestGroupWaitIsReleasedWhenTheKernelStopsFirst(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	parked := make(chan struct{})
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		c.Park() // never woken
		close(parked)
		return nil
	}))
	<-parked
	done := make(chan error, 1)
	go func() { done <- g.Wait() }()
	require.NoError(t, k.Shutdown(context.Background()))
	require.ErrorIs(t, <-done, kernel.ErrClosed)
	require.ErrorIs(t, g.Wait(), kernel.ErrClosed, "a Wait after the kernel stopped does not block")
}

func TestGroupLimitBoundsTheRunningTasksAndKeepsFIFOOrder(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(4))
	g := k.NewGroup(nil)
	g.SetLimit(2)
	var running, peak atomic.Int32
	var mu sync.Mutex
	var order []int
	gate := make(chan struct{})
	for i := range 50 {
		require.NoError(t, g.Go(func(*kernel.Ctx) error {
			n := running.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if i < 2 {
				<-gate // hold both slots until every Go has queued
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			running.Add(-1)
			return nil
		}))
	}
	close(gate)
	require.NoError(t, g.Wait())
	require.LessOrEqual(t, peak.Load(), int32(2))
	require.Len(t, order, 50)
	// The queued functions started in the order they were added; with two
	// slots, each finished no later than two places after its start.
	for pos, i := range order {
		require.LessOrEqual(t, i, pos+2, "order %v", order)
	}
}

func TestGroupRaisedLimitStartsQueuedTasks(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	g.SetLimit(1)
	gate := make(chan struct{})
	started := make(chan int, 3)
	for i := range 3 {
		require.NoError(t, g.Go(func(*kernel.Ctx) error {
			started <- i
			if i == 0 {
				<-gate
			}
			return nil
		}))
	}
	require.Equal(t, 0, <-started)
	g.SetLimit(0) // no limit: the two queued start while the first holds on
	require.ElementsMatch(t, []int{1, 2}, []int{<-started, <-started})
	close(gate)
	require.NoError(t, g.Wait())
}

func TestJoinRunsItsContinuationOnceWithTheFirstError(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	boom := errors.New("boom")
	got := make(chan error, 4)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		g := k.NewGroup(nil)
		for i := range 10 {
			g.Go(func(*kernel.Ctx) error {
				if i == 3 {
					return boom
				}
				return nil
			})
		}
		c.Join(g, func(_ *kernel.Ctx, err error) { got <- err })
		c.Join(g, func(_ *kernel.Ctx, err error) { got <- err })
	}))
	require.ErrorIs(t, <-got, boom)
	require.ErrorIs(t, <-got, boom)
	require.NoError(t, k.Shutdown(context.Background()))
	require.Empty(t, got, "a continuation ran more than once")
}

func TestJoinOnADoneGroupRunsAtOnce(t *testing.T) {
	k := newKernel(t)
	got := make(chan error, 2)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		c.Join(k.NewGroup(nil), func(_ *kernel.Ctx, err error) { got <- err })
	}))
	require.NoError(t, <-got)
	require.NoError(t, k.Shutdown(context.Background()))
	require.Empty(t, got)
}

// A group that once had a limit keeps a mark of it beside its count of
// tasks; done is a count of 0 whatever the mark, so a Join on such a group
// runs at once too.
func TestJoinOnADoneGroupThatHadALimitRunsAtOnce(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	g.SetLimit(2)
	require.NoError(t, g.Go(func(*kernel.Ctx) error { return nil }))
	require.NoError(t, g.Wait())
	got := make(chan error, 2)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		c.Join(g, func(_ *kernel.Ctx, err error) { got <- err })
	}))
	require.NoError(t, k.Shutdown(context.Background()))
	require.Len(t, got, 1, "the continuation of a Join on a done group that had a limit did not run once")
}

// Completing a group hands each registered continuation over once: a
// group reused after its Joins ran starts none of them again when it is
// done the second time. Two Joins, because the first one's continuation is
// kept apart from the later ones'.
func TestJoinContinuationsRunOnceWhenTheGroupIsReused(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	gate := make(chan struct{})
	ran := make(chan string, 4)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		g.Go(func(*kernel.Ctx) error { <-gate; return nil }) // keeps g busy while both Join
		c.Join(g, func(*kernel.Ctx, error) { ran <- "first" })
		c.Join(g, func(*kernel.Ctx, error) { ran <- "second" })
		close(gate)
	}))
	require.ElementsMatch(t, []string{"first", "second"}, []string{<-ran, <-ran})
	require.NoError(t, g.Go(func(*kernel.Ctx) error { return nil }))
	require.NoError(t, g.Wait())
	require.NoError(t, k.Shutdown(context.Background()))
	require.Empty(t, ran, "a continuation ran again when its group was done a second time")
}

// Task records are recycled: a continuation that gets a group's error
// leaves its record to later tasks, and the continuation of a group with
// no error that runs on it must get nil.
func TestJoinContinuationsGetTheirOwnGroupsError(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(1))
	boom := errors.New("boom")
	for i := range 20 {
		var want error
		if i%2 == 0 {
			want = boom
		}
		got := make(chan error, 1)
		require.NoError(t, k.Go(func(c *kernel.Ctx) {
			g := k.NewGroup(nil)
			g.Go(func(*kernel.Ctx) error { return want })
			c.Join(g, func(_ *kernel.Ctx, err error) { got <- err })
		}))
		require.Equal(t, want, <-got, "round %d", i)
	}
}

func TestGroupsForkJoinATree(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(4))
	var out int
	root := k.NewGroup(nil)
	require.NoError(t, root.Go(fibTask(k, 20, &out)))
	require.NoError(t, root.Wait())
	require.Equal(t, 6765, out)
}

// A continuation returns no error; it fails the group it belongs to by
// adding to that group a task that returns the error, as Join's doc says.
func TestAContinuationFailsItsGroupThroughATaskItAdds(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	leafErr := errors.New("leaf failed")
	root := k.NewGroup(nil)
	var thenRan atomic.Int32
	require.NoError(t, root.Go(func(c *kernel.Ctx) error {
		g := k.NewGroup(nil)
		g.Go(func(*kernel.Ctx) error { return nil })
		g.Go(func(*kernel.Ctx) error { return leafErr })
		c.Join(g, func(_ *kernel.Ctx, err error) {
			thenRan.Add(1)
			if err != nil {
				root.Go(func(*kernel.Ctx) error { return err })
			}
		})
		return nil
	}))
	require.ErrorIs(t, root.Wait(), leafErr, "root's Wait after a continuation that passed the leaf's error on")
	require.Equal(t, int32(1), thenRan.Load())
}

// Join's misuses panic with a message that names them: a nil group, a nil
// continuation, a group of another kernel.
func TestJoinMisusePanicsWithAMessageNamingIt(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(1))
	foreign := newKernel(t, kernel.WithProcs(1)).NewGroup(nil)
	var msgs []string
	g := k.NewGroup(nil)
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		for _, join := range []func(){
			func() { c.Join(nil, func(*kernel.Ctx, error) {}) },
			func() { c.Join(k.NewGroup(nil), nil) },
			func() { c.Join(foreign, func(*kernel.Ctx, error) {}) },
		} {
			func() {
				defer func() {
					msg, _ := recover().(string)
					msgs = append(msgs, msg)
				}()
				join()
			}()
		}
		return nil
	}))
	require.NoError(t, g.Wait())
	require.Len(t, msgs, 3)
	for i, want := range []string{"nil group", "nil function", "another kernel"} {
		require.Contains(t, msgs[i], want, "misuse %d", i)
	}
}

func TestJoinOnItsOwnGroupRunsAfterTheGroupIsDone(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	var children atomic.Int32
	got := make(chan int32, 2)
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		for range 5 {
			g.Go(func(*kernel.Ctx) error { children.Add(1); return nil })
		}
		c.Join(g, func(*kernel.Ctx, error) { got <- children.Load() })
		return nil
	}))
	require.Equal(t, int32(5), <-got)
	require.NoError(t, g.Wait())
	require.NoError(t, k.Shutdown(context.Background()))
	require.Empty(t, got)
}

func TestGroupTasksMayAddToTheirOwnGroup(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	var count atomic.Int64
	var spread func(depth int) func(*kernel.Ctx) error
	spread = func(depth int) func(*kernel.Ctx) error {
		return func(*kernel.Ctx) error {
			count.Add(1)
			if depth > 0 {
				g.Go(spread(depth - 1))
				g.Go(spread(depth - 1))
			}
			return nil
		}
	}
	require.NoError(t, g.Go(spread(12)))
	require.NoError(t, g.Wait())
	require.Equal(t, int64(1<<13-1), count.Load())
}

func TestPanicErrorMessageNamesTheValue(t *testing.T) {
	e := &kernel.PanicError{Value: "v", Stack: []byte("stack")}
	require.True(t, strings.Contains(e.Error(), "v") && strings.Contains(e.Error(), "stack"))
}

// TestGroupWaitDuringShutdownWaitsForTheTasks: Shutdown drains, so a Wait
// that begins while Shutdown waits for the group's task waits for that
// task too, and returns its result, not ErrClosed.
func TestGroupWaitDuringShutdownWaitsForTheTasks(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	inBlock, release := make(chan struct{}), make(chan struct{})
	want := errors.New("the task's own error")
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		c.Block(func() { close(inBlock); <-release })
		return want
	}))
	<-inBlock
	shut := make(chan error, 1)
	go func() { shut <- k.Shutdown(context.Background()) }()
	// Kernel.Go refuses work once Shutdown has begun to drain.
	for i := 0; k.Go(func(*kernel.Ctx) {}) == nil; i++ {
		require.Less(t, i, 10_000_000, "Shutdown never began to drain")
		runtime.Gosched()
	}
	waited := make(chan error, 1)
	go func() { waited <- g.Wait() }()
	for i := 0; testhook.GroupStateOf(g).Waiters == 0; i++ {
		select {
		case err := <-waited:
			t.Fatalf("Wait returned %v while the group's task still ran", err)
		default:
		}
		require.Less(t, i, 10_000_000, "Wait never blocked")
		runtime.Gosched()
	}
	close(release)
	err := <-waited
	require.ErrorIs(t, err, want)
	require.NotErrorIs(t, err, kernel.ErrClosed)
	require.NoError(t, <-shut)
}

func TestGroupGoWaitBlocksUntilThereIsRoom(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	g.SetLimit(1)
	gate := make(chan struct{})
	var running, peak atomic.Int32
	task := func(*kernel.Ctx) error {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		<-gate
		running.Add(-1)
		return nil
	}
	require.NoError(t, g.GoWait(task))
	added := make(chan error, 1)
	go func() { added <- g.GoWait(task) }()
	gate <- struct{}{} // the first task finishes; the second GoWait gets its slot
	require.NoError(t, <-added)
	close(gate)
	require.NoError(t, g.Wait())
	require.Equal(t, int32(1), peak.Load())
}

// SetLimit(0) removes the limit: it releases the GoWaits blocked on it
// at once, not at the next finishing task. Here no task would finish: the
// only one waits for what the blocked GoWait adds.
func TestGroupRemovingTheLimitReleasesGoWait(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(2))
	g := k.NewGroup(nil)
	g.SetLimit(1)
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		c.Block(func() { <-gate })
		return nil
	}))
	added := make(chan error, 1)
	go func() { added <- g.GoWait(func(*kernel.Ctx) error { open(); return nil }) }()
	for testhook.GroupStateOf(g).RoomWaiters == 0 {
		runtime.Gosched() // until the GoWait blocks on the limit
	}
	g.SetLimit(0)
	st := testhook.GroupStateOf(g)
	if st.RoomWaiters != 0 {
		open() // lets the group finish, and the GoWait with it
	}
	require.Zero(t, st.RoomWaiters, "GoWaits still blocked once the limit is gone")
	require.NoError(t, <-added)
	require.NoError(t, g.Wait())
}

func TestGroupGoWaitInsideATaskIsErrInTask(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	got := make(chan error, 1)
	require.NoError(t, k.Go(func(*kernel.Ctx) { got <- g.GoWait(func(*kernel.Ctx) error { return nil }) }))
	require.ErrorIs(t, <-got, kernel.ErrInTask)
}

func TestGroupGoWaitIsReleasedWhenTheKernelStops(t *testing.T) {
	k := newKernel(t)
	g := k.NewGroup(nil)
	g.SetLimit(1)
	parked := make(chan struct{})
	require.NoError(t, g.Go(func(c *kernel.Ctx) error {
		c.Park() // never woken: holds the only slot
		close(parked)
		return nil
	}))
	<-parked
	added := make(chan error, 1)
	go func() { added <- g.GoWait(func(*kernel.Ctx) error { return nil }) }()
	require.NoError(t, k.Shutdown(context.Background()))
	require.ErrorIs(t, <-added, kernel.ErrClosed)
}

// TestGroupLimitCountsOnlyTheTasksAddedOnceItWasSet: a task added before
// the group had a limit holds no slot, so its end hands none over. On one
// P the order of the runs shows it: a task spawns two functions into a
// group whose limit is 1; the second must wait in the group's queue until
// the first finished. Had the early task's end given back a slot it never
// took, both would be admitted, and the second, spawned into runnext last,
// would run first.
func TestGroupLimitCountsOnlyTheTasksAddedOnceItWasSet(t *testing.T) {
	k := newKernel(t, kernel.WithProcs(1))
	g := k.NewGroup(nil)
	gate := make(chan struct{})
	require.NoError(t, g.Go(func(*kernel.Ctx) error { <-gate; return nil }))
	g.SetLimit(1)
	close(gate) // the early task ends after the limit was set
	require.NoError(t, g.Wait())
	order := make(chan string, 2)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		g.Go(func(*kernel.Ctx) error { order <- "first"; return nil })
		g.Go(func(*kernel.Ctx) error { order <- "second"; return nil })
	}))
	require.Equal(t, "first", <-order, "the second function was admitted over the limit of 1")
	require.Equal(t, "second", <-order)
	require.NoError(t, g.Wait())
}

// The continuation of a Join runs where the task that completed the joined
// group finished, in the same turn of the scheduler: that task's M goes on
// with it, and nothing is queued for it. A chain of such continuations is
// cut after maxDirectJoins, so that the P goes back to its scheduler.
func TestJoinContinuationRunsWhereTheLastTaskFinished(t *testing.T) {
	mk, err := testhook.NewManual(1)
	require.NoError(t, err)
	k := mk.Kernel().(*kernel.Kernel)
	t.Cleanup(func() { k.Close() })
	zero := func() uint32 { return 0 }

	var order []string
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		g := k.NewGroup(nil)
		require.NoError(t, g.Go(func(*kernel.Ctx) error { order = append(order, "child"); return nil }))
		c.Join(g, func(*kernel.Ctx, error) { order = append(order, "first") })
		c.Join(g, func(*kernel.Ctx, error) { order = append(order, "second") })
	}))
	ran, _ := mk.Schedule(0, zero) // the parent
	require.True(t, ran)
	ran, _ = mk.Schedule(0, zero) // the child, then the first continuation
	require.True(t, ran)
	require.Equal(t, []string{"child", "first"}, order)
	require.Equal(t, 1, mk.Local(0), "the second continuation is queued")
	ran, _ = mk.Schedule(0, zero)
	require.True(t, ran)
	require.Equal(t, []string{"child", "first", "second"}, order)

	// A leaf under depth nested groups: each level's continuation ends its
	// own group, whose parent level joined it.
	const depth = 40
	conts := 0
	var nest func(level int) func(*kernel.Ctx) error
	nest = func(level int) func(*kernel.Ctx) error {
		return func(c *kernel.Ctx) error {
			if level == depth {
				return nil
			}
			g := k.NewGroup(nil)
			require.NoError(t, g.Go(nest(level+1)))
			c.Join(g, func(*kernel.Ctx, error) { conts++ })
			return nil
		}
	}
	root := k.NewGroup(nil)
	require.NoError(t, root.Go(nest(0)))
	turns := 0
	for {
		ran, _ := mk.Schedule(0, zero)
		if !ran {
			break
		}
		turns++
		require.Less(t, turns, 3*depth, "the tree does not finish")
	}
	require.Equal(t, depth, conts)
	// The depth+1 tasks take a turn each. The leaf's turn goes on with 16
	// continuations (maxDirectJoins) and queues the next; each turn that
	// runs a queued one runs it and 16 more: ceil((depth-16)/17) turns.
	const chain = 16
	require.Equal(t, depth+1+(depth-chain+chain)/(chain+1), turns)
}

func TestJoinContinuationThatRunsAgainGetsTheSameError(t *testing.T) {
	boom := errors.New("boom")
	again := map[string]func(*kernel.Ctx){
		"yield": func(c *kernel.Ctx) { c.Yield() },
		"park":  func(c *kernel.Ctx) { c.Park().Wake() }, // woken before its commit: it runs again
	}
	for name, runAgain := range again {
		for _, inGroup := range []bool{false, true} {
			where := "outside"
			if inGroup {
				where = "in-group"
			}
			t.Run(name+"/"+where, func(t *testing.T) {
				k := newKernel(t)
				got := make(chan error, 3)
				parent := func(c *kernel.Ctx) {
					sub := k.NewGroup(nil)
					if err := sub.Go(func(*kernel.Ctx) error { return boom }); err != nil {
						got <- err
						return
					}
					runs := 0
					c.Join(sub, func(c *kernel.Ctx, err error) {
						runs++
						got <- err
						if runs == 1 {
							runAgain(c)
						}
					})
				}
				if inGroup {
					g := k.NewGroup(nil)
					require.NoError(t, g.Go(func(c *kernel.Ctx) error { parent(c); return nil }))
					require.NoError(t, g.Wait())
				} else {
					require.NoError(t, k.Go(parent))
				}
				for run := 1; run <= 2; run++ {
					require.ErrorIs(t, <-got, boom, "run %d of the continuation", run)
				}
				require.NoError(t, k.Shutdown(context.Background()))
				require.Empty(t, got, "the continuation ran more than twice")
			})
		}
	}
}
