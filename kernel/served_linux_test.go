//go:build linux

package kernel

import (
	"errors"
	"runtime"
	"testing"

	"github.com/vsched/vsched/netpoll"
)

// A task whose wait Close ended dies holding ErrClosed in its record, and
// the next task spawned on its P gets that record back. That task's run
// follows no wait: it must see no error, and it must not mark its M as one
// that serves I/O, which would make the M spin before it sleeps (stopm).
// With one P the order is fixed: the spawning task and what it spawns run
// on one M, and the dead task's record is on top of the P's free list.
func TestARunOnARecycledRecordIsNoRunBackFromAWait(t *testing.T) {
	k := newStressKernel(t, WithProcs(1))
	np, d := quietDesc(t, k)

	// A wait that Close ends.
	closed := make(chan recordRun, 1)
	if err := k.Go(func(c *Ctx) {
		if err := c.WaitErr(); err != nil {
			closed <- recordRun{c.g, err}
			return
		}
		if err := c.WaitRead(d); err != nil {
			closed <- recordRun{c.g, err}
		}
	}); err != nil {
		t.Fatal(err)
	}
	closeUnderTheWait(t, np, d)
	dead := <-closed
	if !errors.Is(dead.err, netpoll.ErrClosed) {
		t.Fatalf("the closed wait ended with %v, want ErrClosed", dead.err)
	}

	// Tasks spawned on the same P; one takes the dead task's record.
	type run struct {
		g      *g
		served bool
		err    error
	}
	const tasks = 4
	runs := make(chan run, tasks)
	if err := k.Go(func(c *Ctx) {
		c.m.served = false // whatever this M ran before
		for range tasks {
			c.Go(func(c *Ctx) {
				// Each run reports on its own: the flag stays set until
				// the M stops.
				served := c.m.served
				c.m.served = false
				runs <- run{c.g, served, c.WaitErr()}
			})
		}
	}); err != nil {
		t.Fatal(err)
	}
	recycled := false
	for range tasks {
		r := <-runs
		recycled = recycled || r.g == dead.g
		if r.err != nil {
			t.Errorf("a task that never waited saw a wait's outcome: %v", r.err)
		}
		if r.served {
			t.Errorf("a task that never waited marked its M as serving I/O (recycled record: %v)", r.g == dead.g)
		}
	}
	if !recycled {
		t.Fatal("no task ran on the dead task's record: the test tests nothing")
	}
}

// The same for a Join continuation that runs on the record of the group's
// last task (runGroupTask's direct path): that task's last run followed a
// wait that Close ended, and the continuation, a run that follows no wait,
// must not see its outcome.
func TestADirectContinuationAfterAWaitIsNoRunBackFromAWait(t *testing.T) {
	k := newStressKernel(t, WithProcs(1))
	np, d := quietDesc(t, k)
	waited, continued := make(chan recordRun, 1), make(chan recordRun, 1)
	if err := k.Go(func(c *Ctx) {
		grp := k.NewGroup(nil)
		grp.Go(func(c *Ctx) error {
			if err := c.WaitErr(); err != nil {
				waited <- recordRun{c.g, err}
				return nil
			}
			return c.WaitRead(d)
		})
		c.Join(grp, func(c *Ctx, _ error) { continued <- recordRun{c.g, c.WaitErr()} })
	}); err != nil {
		t.Fatal(err)
	}
	closeUnderTheWait(t, np, d)
	w, cont := <-waited, <-continued
	if !errors.Is(w.err, netpoll.ErrClosed) {
		t.Fatalf("the closed wait ended with %v, want ErrClosed", w.err)
	}
	if cont.g != w.g {
		t.Fatal("the continuation did not run on the record of the group's last task: the test tests nothing")
	}
	if cont.err != nil {
		t.Errorf("a continuation that never waited saw a wait's outcome: %v", cont.err)
	}
}

// recordRun is what a run reports: the record it ran on, and an error.
type recordRun struct {
	g   *g
	err error
}

// closeUnderTheWait closes d once a task waits on np, which ends that wait
// with ErrClosed.
func closeUnderTheWait(t *testing.T, np *netpoll.Poller, d *netpoll.Desc) {
	t.Helper()
	for i := 0; np.Waiters() != 1; i++ {
		if i > 10_000_000 {
			t.Fatal("the task never waited")
		}
		runtime.Gosched()
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
