package kernel

// Bounded stress tests on real cores: fork/join trees, park/wake ping-pong
// (between tasks, with outside goroutines, and with the Wake racing the park
// commit), yield storms, Block barriers under both hand-off modes, Shutdown
// and Close racing submitters, and a seeded mix of all of them.
//
// Every test asserts behaviour (each task runs exactly once, no wakeup is
// lost, the counters add up) and none asserts a timing. Each stress loop is
// bounded twice: by a count, and by a time budget after which no new work
// starts; the budget only decides how much work is done, never whether the
// test passes. A hang is bounded too: it fails the test with the kernel's
// Stats instead of blocking the test binary.
//
// Knobs, all optional:
//
//	VSCHED_STRESS_BUDGET=2s   time budget of each stress test (-short: 200ms)
//	VSCHED_STRESS_HANG=30s    how long a wait may last before it is a hang
//	VSCHED_STRESS_SEED=n      seed of TestStressMixedWorkloadsKeepEveryInvariant
//
// The tests named TestKernelBug* are minimal reproducers of the kernel bugs
// that these stress tests found; each runs as a regression test now that
// the bug is fixed (in a31b3aa, "kernel: fixes from an independent review",
// and, for the chain break after Close, in the commit after bed107b).

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// ---------------------------------------------------------------------------
// Bounds and helpers.

// stressRace reports whether the test binary was built with -race, which
// makes the scheduler about ten times slower: the counts shrink with it.
var stressRace = func() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}()

// stressSize picks a count: full normally, race under -race, short under
// -short (whichever is smaller when both apply).
func stressSize(full, race, short int) int {
	n := full
	if stressRace {
		n = min(n, race)
	}
	if testing.Short() {
		n = min(n, short)
	}
	return n
}

func stressEnvDuration(name string, def time.Duration) time.Duration {
	if s := os.Getenv(name); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d
		}
	}
	return def
}

// stressBudget is how long one stress test keeps starting new work.
func stressBudget() time.Duration {
	def := 2 * time.Second
	if testing.Short() {
		def = 200 * time.Millisecond
	}
	return stressEnvDuration("VSCHED_STRESS_BUDGET", def)
}

// stressHang is how long a wait may last before the test calls it a hang.
// It is a bound on a bug (a lost wakeup, a lost task), not a timing: a
// correct kernel finishes each wait in a small fraction of it.
func stressHang() time.Duration { return stressEnvDuration("VSCHED_STRESS_HANG", 30*time.Second) }

// stressClock says when a budget has run out.
type stressClock struct{ end time.Time }

func newStressClock(d time.Duration) stressClock { return stressClock{time.Now().Add(d)} }

func (c stressClock) expired() bool { return !time.Now().Before(c.end) }

// stressStopFlag returns a flag that is set once d has passed, for loops
// inside tasks, which must stop at a budget without reading the clock on
// every run.
func stressStopFlag(t testing.TB, d time.Duration) *atomic.Bool {
	var stop atomic.Bool
	timer := time.AfterFunc(d, func() { stop.Store(true) })
	t.Cleanup(func() { timer.Stop() })
	return &stop
}

// newStressKernel returns a kernel that is closed, with a bound, when the
// test ends: a test that failed half-way must not hang the binary.
func newStressKernel(t testing.TB, opts ...Option) *Kernel {
	t.Helper()
	k, err := New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, hung := stressAwait(k, k.Close); hung {
			t.Errorf("Close did not return within %v at the end of the test", stressHang())
		}
	})
	return k
}

// stressAwait runs stop, a Shutdown or a Close of k, and waits for it with
// the hang bound; hung reports that it did not return.
func stressAwait(k *Kernel, stop func() error) (err error, hung bool) {
	res := make(chan error, 1)
	go func() { res <- stop() }()
	select {
	case err := <-res:
		return err, false
	case <-time.After(stressHang()):
		return nil, true
	}
}

// stressShutdown shuts k down and fails the test, with the kernel's stats,
// if it does not drain within the hang bound.
func stressShutdown(t testing.TB, k *Kernel) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err, hung := stressAwait(k, func() error { return k.Shutdown(ctx) })
	if hung {
		t.Logf("goroutines:\n%s", stressStacks())
		t.Fatalf("Shutdown did not return within %v (a lost wakeup or a lost task); stats %+v", stressHang(), k.Stats())
	}
	if err != nil {
		t.Fatalf("Shutdown: %v; stats %+v", err, k.Stats())
	}
}

// stressWait waits for ch to be closed and fails the test, with the
// kernel's stats, if that takes longer than the hang bound.
func stressWait(t testing.TB, k *Kernel, ch <-chan struct{}, format string, args ...any) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(stressHang()):
		t.Logf("goroutines:\n%s", stressStacks())
		t.Fatalf("hang: %s not done within %v; stats %+v", fmt.Sprintf(format, args...), stressHang(), k.Stats())
	}
}

// stressStacks returns the stacks of every goroutine, for a hang's report.
func stressStacks() []byte {
	buf := make([]byte, 1<<20)
	return buf[:runtime.Stack(buf, true)]
}

// stressProcs are the P counts the tests run with: one P, the machine's
// processors, and more Ps than processors (Ms preempted by the Go runtime
// in the middle of the protocol).
func stressProcs() []int {
	n := runtime.GOMAXPROCS(0)
	ps := []int{1}
	if n > 1 {
		ps = append(ps, n)
	}
	return append(ps, 2*n+1)
}

// stressCheckStats checks the counters that hold after every stress run.
func stressCheckStats(t testing.TB, st Stats, wantRuns uint64) {
	t.Helper()
	if st.PollCount != wantRuns {
		t.Errorf("Stats.PollCount = %d, want %d", st.PollCount, wantRuns)
	}
	if st.DroppedCount != 0 {
		t.Errorf("Stats.DroppedCount = %d after a Shutdown that drained, want 0", st.DroppedCount)
	}
	if st.TaskParkCount != st.TaskWakeCount || st.ParkedTasks != 0 {
		t.Errorf("Stats.TaskParkCount = %d, Wakes = %d, Parked = %d: every committed park was woken", st.TaskParkCount, st.TaskWakeCount, st.ParkedTasks)
	}
	if st.SpinningWorkers != 0 || st.IdleWorkers != st.Workers || st.GlobalQueueDepth != 0 {
		t.Errorf("stopped kernel: SpinningWorkers %d, IdleWorkers %d of %d, GlobalQueue %d; want 0, all, 0",
			st.SpinningWorkers, st.IdleWorkers, st.Workers, st.GlobalQueueDepth)
	}
}

// ---------------------------------------------------------------------------
// 1. Fork/join trees.

// fjTree is a fork/join tree: node i at depth d < depth spawns fanout
// children (heap numbering: i*fanout+1 ...) and joins them through a
// continuation: a pending counter in the node's frame, and the child that
// brings it to zero spawns the node's continuation task, which completes
// the node to its own parent. The root's continuation completes the tree.
type fjTree struct {
	fanout, depth int
	batch         bool           // children spawned with Ctx.GoBatch
	ran           []atomic.Int32 // per node: runs
	joined        []atomic.Int32 // per internal node: runs of its continuation
	pending       []atomic.Int32 // per internal node: children not yet complete
	rootDone      atomic.Int32
}

// fjNodes is the number of nodes of a tree with fanout f and depth d.
func fjNodes(f, d int) int {
	n, w := 0, 1
	for range d + 1 {
		n += w
		w *= f
	}
	return n
}

func newFJTree(fanout, depth int, batch bool) *fjTree {
	internal := 0
	if depth > 0 {
		// Heap numbering is breadth first: the internal nodes come first.
		internal = fjNodes(fanout, depth-1)
	}
	return &fjTree{
		fanout: fanout, depth: depth, batch: batch,
		ran:     make([]atomic.Int32, fjNodes(fanout, depth)),
		joined:  make([]atomic.Int32, internal),
		pending: make([]atomic.Int32, internal),
	}
}

// tasks is how many tasks the tree runs: its nodes and its continuations.
func (tr *fjTree) tasks() int { return len(tr.ran) + len(tr.joined) }

func (tr *fjTree) node(i, d int) func(*Ctx) {
	return func(c *Ctx) {
		tr.ran[i].Add(1)
		if d == tr.depth {
			tr.complete(c, i)
			return
		}
		tr.pending[i].Store(int32(tr.fanout))
		first := i*tr.fanout + 1
		if tr.batch {
			fns := make([]func(*Ctx), tr.fanout)
			for j := range fns {
				fns[j] = tr.node(first+j, d+1)
			}
			c.GoBatch(fns...)
			return
		}
		for j := range tr.fanout {
			c.Go(tr.node(first+j, d+1))
		}
	}
}

// complete reports node i's subtree finished to its parent.
func (tr *fjTree) complete(c *Ctx, i int) {
	if i == 0 {
		tr.rootDone.Add(1)
		return
	}
	parent := (i - 1) / tr.fanout
	if tr.pending[parent].Add(-1) == 0 {
		c.Go(tr.join(parent))
	}
}

func (tr *fjTree) join(i int) func(*Ctx) {
	return func(c *Ctx) {
		tr.joined[i].Add(1)
		tr.complete(c, i)
	}
}

func (tr *fjTree) check() error {
	for i := range tr.ran {
		if n := tr.ran[i].Load(); n != 1 {
			return fmt.Errorf("tree(fanout %d, depth %d): node %d ran %d times, want 1", tr.fanout, tr.depth, i, n)
		}
	}
	for i := range tr.joined {
		if n := tr.joined[i].Load(); n != 1 {
			return fmt.Errorf("tree(fanout %d, depth %d): the continuation of node %d ran %d times, want 1", tr.fanout, tr.depth, i, n)
		}
		if n := tr.pending[i].Load(); n != 0 {
			return fmt.Errorf("tree(fanout %d, depth %d): node %d has %d children pending, want 0", tr.fanout, tr.depth, i, n)
		}
	}
	if n := tr.rootDone.Load(); n != 1 {
		return fmt.Errorf("tree(fanout %d, depth %d): the root's continuation ran %d times, want 1", tr.fanout, tr.depth, n)
	}
	return nil
}

// fjShapes are the trees' (fanout, depth): wide, deep, bushy, and a chain of
// 200 continuations.
var fjShapes = [][2]int{{2, 11}, {3, 7}, {4, 5}, {8, 3}, {16, 2}, {1, 200}, {2, 1}, {1, 0}}

func TestStressForkJoinTreesRunEveryTaskOnce(t *testing.T) {
	procs := stressProcs()
	budget := stressBudget() / time.Duration(len(procs))
	target := stressSize(2_000_000, 400_000, 20_000) / len(procs)
	for _, np := range procs {
		t.Run(fmt.Sprintf("procs=%d", np), func(t *testing.T) {
			k := newStressKernel(t, WithProcs(np))
			clock := newStressClock(budget)
			var (
				mu    sync.Mutex
				trees []*fjTree
				total atomic.Int64
				wg    sync.WaitGroup
			)
			const submitters = 3
			for s := range submitters {
				wg.Add(1)
				go func() {
					defer wg.Done()
					rng := rand.New(rand.NewPCG(uint64(np), uint64(s)))
					for total.Load() < int64(target) && !clock.expired() {
						shape := fjShapes[rng.IntN(len(fjShapes))]
						tr := newFJTree(shape[0], shape[1], rng.IntN(4) == 0)
						mu.Lock()
						trees = append(trees, tr)
						mu.Unlock()
						total.Add(int64(tr.tasks()))
						if err := k.Go(tr.node(0, 0)); err != nil {
							t.Errorf("Go: %v", err)
							return
						}
					}
				}()
			}
			wg.Wait()
			stressShutdown(t, k)
			for _, tr := range trees {
				if err := tr.check(); err != nil {
					t.Fatal(err)
				}
			}
			st := k.Stats()
			stressCheckStats(t, st, uint64(total.Load()))
			if st.RemoteScheduleCount != uint64(len(trees)) || st.LocalScheduleCount != uint64(total.Load())-uint64(len(trees)) {
				t.Errorf("Stats.RemoteScheduleCount = %d, LocalScheduleCount = %d; want %d trees and %d spawned",
					st.RemoteScheduleCount, st.LocalScheduleCount, len(trees), total.Load()-int64(len(trees)))
			}
			t.Logf("%d trees, %d tasks; steals %d, overflows %d, global pulls %d",
				len(trees), total.Load(), st.StealOperations, st.OverflowCount, st.GlobalPullCount)
		})
	}
}

// ---------------------------------------------------------------------------
// 2. Park/wake ping-pong.

// pingPair is two tasks that hand a ball back and forth: the holder asks to
// park, then gives the ball to the other and wakes it. A task that runs
// without holding the ball was woken by nobody: a spurious or duplicated run.
type pingPair struct {
	limit    int64
	stop     *atomic.Bool
	turn     atomic.Int32 // who holds the ball
	w        [2]atomic.Pointer[Waker]
	passes   atomic.Int64
	recv     [2]atomic.Int64 // runs after the first
	died     [2]atomic.Int32
	finished atomic.Bool
	bad      atomic.Int64 // runs without the ball
}

func (pp *pingPair) pass(to int) {
	pp.passes.Add(1)
	pp.turn.Store(int32(to))
	pp.w[to].Load().Wake()
}

// task returns task me of the pair; task 0 starts the pair and spawns task 1.
func (pp *pingPair) task(me int) func(*Ctx) {
	other := 1 - me
	// Plain closure state across runs: the kernel must order a task's runs
	// (the race detector checks it).
	started := false
	return func(c *Ctx) {
		if !started {
			started = true
			pp.w[me].Store(c.Park())
			if me == 0 {
				c.Go(pp.task(1))
			} else {
				pp.pass(other) // task 1 holds the ball first
			}
			return
		}
		if pp.turn.Load() != int32(me) {
			pp.bad.Add(1)
		}
		pp.recv[me].Add(1)
		if pp.finished.Load() {
			pp.died[me].Add(1)
			return
		}
		if pp.passes.Load() >= pp.limit || pp.stop.Load() {
			pp.finished.Store(true)
			pp.pass(other)
			pp.died[me].Add(1)
			return
		}
		// Park first: the other may hand the ball back before this run
		// returns, and its Wake must then make the park commit fail.
		c.Park()
		pp.pass(other)
	}
}

func (pp *pingPair) check() error {
	p := pp.passes.Load()
	switch {
	case pp.bad.Load() != 0:
		return fmt.Errorf("ping-pong: %d runs without the ball", pp.bad.Load())
	case pp.died[0].Load() != 1 || pp.died[1].Load() != 1:
		return fmt.Errorf("ping-pong: the tasks ended %d and %d times, want 1 each (%d passes)", pp.died[0].Load(), pp.died[1].Load(), p)
	case pp.recv[0].Load() != (p+1)/2 || pp.recv[1].Load() != p/2:
		return fmt.Errorf("ping-pong: %d passes, received %d and %d, want %d and %d (a lost or duplicated wakeup)",
			p, pp.recv[0].Load(), pp.recv[1].Load(), (p+1)/2, p/2)
	}
	return nil
}

func (pp *pingPair) runs() uint64 { return 2 + uint64(pp.passes.Load()) }

// outsidePair is a task and a goroutine that hand a ball back and forth:
// the task parks and sends its Waker to the goroutine, which wakes it. With
// spin, the task waits, before its run returns, until the goroutine's Wake
// has returned: every Wake then comes before the park commits, every commit
// must fail, and the task must run again at once.
type outsidePair struct {
	limit    int64
	stop     *atomic.Bool
	spin     bool
	turn     atomic.Int32 // 0: the task holds the ball, 1: the goroutine
	wch      chan *Waker
	wakes    atomic.Int64 // Wake calls by the goroutine
	runs     atomic.Int64 // task runs after its first
	died     atomic.Int32
	bad      atomic.Int64
	spinFail atomic.Int64
}

func newOutsidePair(limit int64, stop *atomic.Bool, spin bool) *outsidePair {
	return &outsidePair{limit: limit, stop: stop, spin: spin, wch: make(chan *Waker, 1)}
}

// waker is the goroutine's side; it returns when the task closes the channel.
func (op *outsidePair) waker() {
	for w := range op.wch {
		if op.turn.Load() != 1 {
			op.bad.Add(1)
		}
		op.turn.Store(0)
		w.Wake()
		op.wakes.Add(1)
	}
}

func (op *outsidePair) task() func(*Ctx) {
	sent := int64(0) // plain closure state across runs
	return func(c *Ctx) {
		if sent > 0 {
			if op.turn.Load() != 0 {
				op.bad.Add(1)
			}
			n := op.runs.Add(1)
			if n >= op.limit || op.stop.Load() {
				close(op.wch)
				op.died.Add(1)
				return
			}
		}
		w := c.Park()
		op.turn.Store(1)
		sent++
		op.wch <- w // never blocks: the goroutine took the previous one
		if op.spin {
			hang := newStressClock(stressHang())
			for i := 0; op.wakes.Load() < sent; i++ {
				if i%1024 == 0 && hang.expired() {
					op.spinFail.Add(1)
					return
				}
				runtime.Gosched()
			}
		}
	}
}

func (op *outsidePair) check() error {
	switch {
	case op.bad.Load() != 0:
		return fmt.Errorf("outside ping-pong: %d runs or wakes without the ball", op.bad.Load())
	case op.spinFail.Load() != 0:
		return fmt.Errorf("outside ping-pong: the goroutine never woke the spinning task")
	case op.died.Load() != 1:
		return fmt.Errorf("outside ping-pong: the task ended %d times, want 1", op.died.Load())
	case op.runs.Load() != op.wakes.Load():
		return fmt.Errorf("outside ping-pong: %d wakes but %d runs after the first (a lost or duplicated wakeup)", op.wakes.Load(), op.runs.Load())
	}
	return nil
}

// selfWaker parks and wakes itself before returning, k times: every park
// commit fails and the task runs again at once.
type selfWaker struct {
	k    int
	runs atomic.Int64
	died atomic.Int32
}

func (sw *selfWaker) task() func(*Ctx) {
	n := 0
	return func(c *Ctx) {
		sw.runs.Add(1)
		if n == sw.k {
			sw.died.Add(1)
			return
		}
		n++
		c.Park().Wake()
	}
}

func (sw *selfWaker) check() error {
	if sw.runs.Load() != int64(sw.k)+1 || sw.died.Load() != 1 {
		return fmt.Errorf("self-wake: %d runs and %d ends, want %d and 1", sw.runs.Load(), sw.died.Load(), sw.k+1)
	}
	return nil
}

func TestStressParkWakePingPongLosesNoWakeup(t *testing.T) {
	budget := stressBudget() / 3
	limit := int64(stressSize(20_000, 5_000, 300))
	const npairs = 8

	t.Run("between-tasks", func(t *testing.T) {
		for _, np := range stressProcs() {
			k := newStressKernel(t, WithProcs(np))
			stop := stressStopFlag(t, budget/time.Duration(len(stressProcs())))
			pairs := make([]*pingPair, npairs)
			for i := range pairs {
				pairs[i] = &pingPair{limit: limit, stop: stop}
				if err := k.Go(pairs[i].task(0)); err != nil {
					t.Fatal(err)
				}
			}
			stressShutdown(t, k)
			var runs, passes uint64
			for _, pp := range pairs {
				if err := pp.check(); err != nil {
					t.Fatalf("procs=%d: %v", np, err)
				}
				runs += pp.runs()
				passes += uint64(pp.passes.Load())
			}
			st := k.Stats()
			stressCheckStats(t, st, runs)
			t.Logf("procs=%d: %d handoffs; %d parks committed, %d runnext hits, %d steals",
				np, passes, st.TaskParkCount, st.RunnextCount, st.StealOperations)
		}
	})

	t.Run("with-goroutines", func(t *testing.T) {
		for _, np := range stressProcs() {
			k := newStressKernel(t, WithProcs(np))
			stop := stressStopFlag(t, budget/time.Duration(len(stressProcs())))
			pairs := make([]*outsidePair, npairs)
			var wg sync.WaitGroup
			for i := range pairs {
				pairs[i] = newOutsidePair(limit, stop, false)
				wg.Add(1)
				go func() { defer wg.Done(); pairs[i].waker() }()
				if err := k.Go(pairs[i].task()); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			stressWait(t, k, done, "procs=%d: ping-pong with goroutines", np)
			stressShutdown(t, k)
			var runs, wakes uint64
			for _, op := range pairs {
				if err := op.check(); err != nil {
					t.Fatalf("procs=%d: %v", np, err)
				}
				runs += 1 + uint64(op.runs.Load())
				wakes += uint64(op.wakes.Load())
			}
			st := k.Stats()
			stressCheckStats(t, st, runs)
			t.Logf("procs=%d: %d wakes from goroutines, %d parks committed", np, wakes, st.TaskParkCount)
		}
	})

	t.Run("wake-before-commit", func(t *testing.T) {
		for _, np := range stressProcs() {
			k := newStressKernel(t, WithProcs(np))
			stop := stressStopFlag(t, budget/time.Duration(len(stressProcs())))
			pairs := make([]*outsidePair, npairs)
			selfs := make([]*selfWaker, npairs)
			var wg sync.WaitGroup
			for i := range pairs {
				pairs[i] = newOutsidePair(limit/4, stop, true)
				selfs[i] = &selfWaker{k: int(limit)}
				wg.Add(1)
				go func() { defer wg.Done(); pairs[i].waker() }()
				if err := k.Go(pairs[i].task()); err != nil {
					t.Fatal(err)
				}
				if err := k.Go(selfs[i].task()); err != nil {
					t.Fatal(err)
				}
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			stressWait(t, k, done, "procs=%d: wakes racing the park commit", np)
			stressShutdown(t, k)
			var runs uint64
			for i := range pairs {
				if err := pairs[i].check(); err != nil {
					t.Fatalf("procs=%d: %v", np, err)
				}
				if err := selfs[i].check(); err != nil {
					t.Fatalf("procs=%d: %v", np, err)
				}
				runs += 1 + uint64(pairs[i].runs.Load()) + uint64(selfs[i].runs.Load())
			}
			st := k.Stats()
			stressCheckStats(t, st, runs)
			// Every Wake came before its park committed: no park committed.
			if st.TaskParkCount != 0 || st.TaskWakeCount != 0 {
				t.Errorf("procs=%d: Stats.TaskParkCount = %d, Wakes = %d; every Wake came before the commit, want 0 and 0", np, st.TaskParkCount, st.TaskWakeCount)
			}
		}
	})
}

// ---------------------------------------------------------------------------
// 3. Yield storms.

// yielder yields k times, counting in plain closure state, then ends.
type yielder struct {
	k      int
	yields int // plain: the kernel must order the task's runs
	final  atomic.Int64
	ends   atomic.Int32
	wave   *yieldWave
}

type yieldWave struct {
	left atomic.Int64
	done chan struct{}
}

func (y *yielder) run(c *Ctx) {
	if y.yields < y.k {
		y.yields++
		c.Yield()
		return
	}
	y.final.Store(int64(y.yields))
	if y.ends.Add(1) == 1 && y.wave.left.Add(-1) == 0 {
		close(y.wave.done)
	}
}

func TestStressYieldStormsRunEveryTaskToTheEnd(t *testing.T) {
	procs := stressProcs()
	budget := stressBudget() / time.Duration(len(procs))
	waves := stressSize(200, 40, 4)
	const perWave = 128 // half submitted, half spawned by the submitted ones
	const K = 50
	for _, np := range procs {
		t.Run(fmt.Sprintf("procs=%d", np), func(t *testing.T) {
			k := newStressKernel(t, WithProcs(np))
			clock := newStressClock(budget)
			var all []*yielder
			for w := 0; w < waves && !clock.expired(); w++ {
				wave := &yieldWave{done: make(chan struct{})}
				wave.left.Store(perWave)
				fns := make([]func(*Ctx), 0, perWave/2)
				for range perWave / 2 {
					parent := &yielder{k: K, wave: wave}
					child := &yielder{k: K, wave: wave}
					all = append(all, parent, child)
					spawned := false
					fns = append(fns, func(c *Ctx) {
						if !spawned {
							spawned = true
							c.Go(child.run)
						}
						parent.run(c)
					})
				}
				if w%3 == 2 {
					if err := k.GoBatch(fns...); err != nil {
						t.Fatal(err)
					}
				} else {
					for _, fn := range fns {
						if err := k.Go(fn); err != nil {
							t.Fatal(err)
						}
					}
				}
				stressWait(t, k, wave.done, "procs=%d: yield wave %d", np, w)
			}
			stressShutdown(t, k)
			for i, y := range all {
				if y.ends.Load() != 1 || y.final.Load() != K {
					t.Fatalf("task %d ended %d times after %d yields, want once after %d", i, y.ends.Load(), y.final.Load(), K)
				}
			}
			st := k.Stats()
			stressCheckStats(t, st, uint64(len(all))*(K+1))
			if st.YieldCount != uint64(len(all))*K {
				t.Errorf("Stats.YieldCount = %d, want %d tasks * %d", st.YieldCount, len(all), K)
			}
			t.Logf("%d tasks, %d yields", len(all), st.YieldCount)
		})
	}
}

// ---------------------------------------------------------------------------
// 4. Block sections.

// blockRound runs n tasks that block in Ctx.Block on a barrier that only
// the last of them, or a goroutine waiting for all of them, opens: with
// more blockers than Ps it completes only if Block hands the P off. After
// Block each task spawns a child, which needs a P again.
type blockRound struct {
	n       int
	kind    int // 0: submitted, task barrier; 1: spawned by one task, task barrier; 2: submitted, opened by a goroutine
	arrived atomic.Int32
	release chan struct{}
	wg      sync.WaitGroup
	after   atomic.Int32
	done    chan struct{}
}

func newBlockRound(n, kind int) *blockRound {
	br := &blockRound{n: n, kind: kind, release: make(chan struct{}), done: make(chan struct{})}
	br.wg.Add(n)
	return br
}

func (br *blockRound) blocker(c *Ctx) {
	c.Block(func() {
		if br.kind == 2 {
			br.wg.Done()
		} else if br.arrived.Add(1) == int32(br.n) {
			close(br.release)
		}
		<-br.release
	})
	c.Go(func(*Ctx) {
		if br.after.Add(1) == int32(br.n) {
			close(br.done)
		}
	})
}

func (br *blockRound) check() error {
	arrived := br.arrived.Load()
	if br.kind == 2 {
		arrived = int32(br.n) // counted by the WaitGroup, which would have panicked below zero
	}
	if arrived != int32(br.n) || br.after.Load() != int32(br.n) {
		return fmt.Errorf("Block round of %d (kind %d): %d blocked, %d came back, want %d and %d",
			br.n, br.kind, arrived, br.after.Load(), br.n, br.n)
	}
	return nil
}

// start submits the round; it returns the number of tasks the round runs.
func (br *blockRound) start(k *Kernel) (int, error) {
	if br.kind == 2 {
		go func() { br.wg.Wait(); close(br.release) }()
	}
	if br.kind == 1 {
		return 2*br.n + 1, k.Go(func(c *Ctx) {
			for range br.n {
				c.Go(br.blocker) // into this P's queue: only a hand-off runs them
			}
		})
	}
	for range br.n {
		if err := k.Go(br.blocker); err != nil {
			return 0, err
		}
	}
	return 2 * br.n, nil
}

func TestStressBlockSectionsHandOffAndComeBack(t *testing.T) {
	modes := []struct {
		name string
		h    BlockHandoff
	}{{"lazy", HandoffLazy}, {"eager", HandoffEager}}
	rounds := stressSize(300, 100, 10)
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			procs := []int{1, 2}
			budget := stressBudget() / time.Duration(len(modes)*len(procs))
			for _, np := range procs {
				k := newStressKernel(t, WithProcs(np), WithBlockHandoff(mode.h))
				rng := rand.New(rand.NewPCG(uint64(np), uint64(mode.h)))
				clock := newStressClock(budget)
				total, r := 0, 0
				var all []*blockRound
				for ; r < rounds && !clock.expired(); r++ {
					br := newBlockRound(np+1+rng.IntN(2*np+2), r%3)
					all = append(all, br)
					n, err := br.start(k)
					if err != nil {
						t.Fatal(err)
					}
					total += n
					stressWait(t, k, br.done, "procs=%d: Block round %d (%d blockers, kind %d)", np, r, br.n, br.kind)
				}
				stressShutdown(t, k)
				for i, br := range all {
					if err := br.check(); err != nil {
						t.Fatalf("procs=%d, round %d: %v", np, i, err)
					}
				}
				st := k.Stats()
				stressCheckStats(t, st, uint64(total))
				if st.HandoffCount == 0 {
					t.Errorf("procs=%d: Stats.HandoffCount = 0 after %d rounds that could only finish by handing Ps off", np, r)
				}
				t.Logf("procs=%d: %d rounds, %d tasks, %d hand-offs", np, r, total, st.HandoffCount)
			}
		})
	}
}

// ---------------------------------------------------------------------------
// 5. Shutdown racing submitters.

func TestStressShutdownRacingSubmitters(t *testing.T) {
	clock := newStressClock(stressBudget())
	iters := stressSize(400, 150, 20)
	const submitters = 3
	perSub := stressSize(2000, 500, 200)
	rng := rand.New(rand.NewPCG(5, 5))
	it := 0
	for ; it < iters && !clock.expired(); it++ {
		np := 1 + it%4
		k := newStressKernel(t, WithProcs(np))
		var (
			ran      [submitters][]atomic.Int32 // per accepted task
			kids     [submitters][]atomic.Int32 // per accepted task: its child's runs
			accepted [submitters]atomic.Int64
			rejected atomic.Int64 // rejected tasks that ran: must stay 0
			reopened atomic.Int64 // a Go accepted after an ErrClosed
			children atomic.Int64
			wg       sync.WaitGroup
		)
		for s := range submitters {
			ran[s] = make([]atomic.Int32, perSub)
			kids[s] = make([]atomic.Int32, perSub)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range perSub {
					spawn := i%4 == 0
					err := k.Go(func(c *Ctx) {
						ran[s][i].Add(1)
						if spawn {
							children.Add(1)
							c.Go(func(*Ctx) { kids[s][i].Add(1) })
						}
					})
					if err == nil {
						accepted[s].Add(1)
						continue
					}
					if !errors.Is(err, ErrClosed) {
						t.Errorf("Go: %v, want nil or ErrClosed", err)
						return
					}
					// Closed stays closed, and a rejected task never runs.
					for range 3 {
						if k.Go(func(*Ctx) { rejected.Add(1) }) == nil {
							reopened.Add(1)
						}
					}
					return
				}
			}()
		}
		// Shut down after a random amount of accepted work, or once the
		// submitters are done.
		threshold := int64(rng.IntN(submitters * perSub))
		subsDone := make(chan struct{})
		go func() { wg.Wait(); close(subsDone) }()
	wait:
		for {
			var sum int64
			for s := range submitters {
				sum += accepted[s].Load()
			}
			if sum >= threshold {
				break
			}
			select {
			case <-subsDone:
				break wait
			default:
				runtime.Gosched()
			}
		}
		stressShutdown(t, k)
		<-subsDone
		var acc, kidsWant uint64
		for s := range submitters {
			n := int(accepted[s].Load())
			acc += uint64(n)
			for i := range perSub {
				want := int32(0)
				if i < n {
					want = 1
				}
				if got := ran[s][i].Load(); got != want {
					t.Fatalf("iteration %d (procs %d): submitter %d's task %d (accepted: %v) ran %d times, want %d",
						it, np, s, i, i < n, got, want)
				}
				if i < n && i%4 == 0 {
					kidsWant++
					if got := kids[s][i].Load(); got != 1 {
						t.Fatalf("iteration %d: the child of accepted task %d/%d ran %d times, want 1", it, s, i, got)
					}
				}
			}
		}
		if rejected.Load() != 0 || reopened.Load() != 0 {
			t.Fatalf("iteration %d: %d rejected tasks ran, %d submits accepted after ErrClosed", it, rejected.Load(), reopened.Load())
		}
		st := k.Stats()
		stressCheckStats(t, st, acc+kidsWant)
		if st.RemoteScheduleCount != acc {
			t.Errorf("iteration %d: Stats.RemoteScheduleCount = %d, want the %d accepted", it, st.RemoteScheduleCount, acc)
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("%d kernels shut down under submitters", it)
}

// ---------------------------------------------------------------------------
// 6. Close racing submitters and spawners.

func TestStressCloseDropsAndCounts(t *testing.T) {
	clock := newStressClock(stressBudget())
	iters := stressSize(400, 150, 20)
	const submitters = 3
	perSub := stressSize(2000, 400, 200)
	const maxDepth = 3 // each submitted task spawns at most 1+2+4+8 tasks below it
	rng := rand.New(rand.NewPCG(6, 6))
	it := 0
	var dropped uint64
	for ; it < iters && !clock.expired(); it++ {
		np := 1 + it%4
		k := newStressKernel(t, WithProcs(np))
		var (
			ids      atomic.Int64
			ran      = make([]atomic.Int32, submitters*perSub*16)
			accepted atomic.Int64
			spawned  atomic.Int64
			wg       sync.WaitGroup
		)
		var task func(id int64, depth int) func(*Ctx)
		task = func(id int64, depth int) func(*Ctx) {
			return func(c *Ctx) {
				ran[id].Add(1)
				if depth == maxDepth {
					return
				}
				switch id % 3 {
				case 0:
					return
				case 1:
					spawned.Add(1)
					c.Go(task(ids.Add(1)-1, depth+1))
				case 2:
					a, b := ids.Add(1)-1, ids.Add(1)-1
					spawned.Add(2)
					c.GoBatch(task(a, depth+1), task(b, depth+1))
				}
			}
		}
		for range submitters {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perSub {
					id := ids.Add(1) - 1
					if err := k.Go(task(id, 0)); err != nil {
						if !errors.Is(err, ErrClosed) {
							t.Errorf("Go: %v", err)
						}
						return
					}
					accepted.Add(1)
				}
			}()
		}
		subsDone := make(chan struct{})
		go func() { wg.Wait(); close(subsDone) }()
		threshold := int64(rng.IntN(submitters * perSub))
	wait:
		for accepted.Load() < threshold {
			select {
			case <-subsDone:
				break wait
			default:
				runtime.Gosched()
			}
		}
		// A Shutdown racing the Close must return nil (it drained first)
		// or ErrClosed.
		shutdownErr := make(chan error, 1)
		if it%2 == 1 {
			go func() { shutdownErr <- k.Shutdown(context.Background()) }()
		} else {
			shutdownErr <- ErrClosed
		}
		if err, hung := stressAwait(k, k.Close); hung || err != nil {
			t.Fatalf("iteration %d: Close: %v, hung %v; stats %+v", it, err, hung, k.Stats())
		}
		<-subsDone
		if err := <-shutdownErr; err != nil && !errors.Is(err, ErrClosed) {
			t.Fatalf("iteration %d: Shutdown racing Close: %v, want nil or ErrClosed", it, err)
		}
		if err := k.Go(func(*Ctx) {}); !errors.Is(err, ErrClosed) {
			t.Fatalf("iteration %d: Go after Close: %v, want ErrClosed", it, err)
		}
		if err := k.Shutdown(context.Background()); err != nil && !errors.Is(err, ErrClosed) {
			t.Fatalf("iteration %d: Shutdown after Close: %v, want ErrClosed or nil", it, err)
		}
		var distinct uint64
		for id := range ids.Load() {
			switch n := ran[id].Load(); n {
			case 0:
			case 1:
				distinct++
			default:
				t.Fatalf("iteration %d: task %d ran %d times", it, id, n)
			}
		}
		st := k.Stats()
		created := uint64(accepted.Load() + spawned.Load())
		left := uint64(st.GlobalQueueDepth) // neither run nor dropped: a lost task
		if left != 0 || distinct+st.DroppedCount != created {
			t.Fatalf("iteration %d (procs %d): %d ran + %d dropped + %d left = %d, want the %d created (%d accepted, %d spawned); stats %+v",
				it, np, distinct, st.DroppedCount, left, distinct+st.DroppedCount+left, created, accepted.Load(), spawned.Load(), st)
		}
		if st.PollCount != distinct || st.RemoteScheduleCount != uint64(accepted.Load()) || st.LocalScheduleCount != uint64(spawned.Load()) {
			t.Fatalf("iteration %d: Stats.PollCount %d, RemoteScheduleCount %d, LocalScheduleCount %d; want %d, %d, %d",
				it, st.PollCount, st.RemoteScheduleCount, st.LocalScheduleCount, distinct, accepted.Load(), spawned.Load())
		}
		dropped += st.DroppedCount
	}
	t.Logf("%d kernels closed under load, %d tasks dropped in all", it, dropped)
}

// ---------------------------------------------------------------------------
// 7. A seeded mix.

// mixJob is one piece of the mixed workload: check verifies it after
// Shutdown and returns the task runs it accounts for.
type mixJob struct {
	name   string
	check  func() (runs uint64, err error)
	yields uint64
}

func TestStressMixedWorkloadsKeepEveryInvariant(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("VSCHED_STRESS_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("VSCHED_STRESS_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (rerun with VSCHED_STRESS_SEED=%d)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	clock := newStressClock(stressBudget())
	kernels := stressSize(30, 16, 3)
	scale := stressSize(8, 2, 1)
	for kn := 0; kn < kernels && !clock.expired(); kn++ {
		np := 1 + rng.IntN(4)
		opts := []Option{WithProcs(np), WithBlockHandoff(BlockHandoff(rng.IntN(2)))}
		if rng.IntN(3) == 0 {
			opts = append(opts, WithStealPause(nil)) // take runnext at once
		}
		k := newStressKernel(t, opts...)
		stop := new(atomic.Bool) // never set: the mix is bounded by counts
		var (
			mu      sync.Mutex
			jobs    []mixJob
			outside sync.WaitGroup
			subs    sync.WaitGroup
		)
		add := func(j mixJob) {
			mu.Lock()
			jobs = append(jobs, j)
			mu.Unlock()
		}
		const submitters = 3
		for s := range submitters {
			srng := rand.New(rand.NewPCG(rng.Uint64(), uint64(s)))
			njobs := 5 + srng.IntN(10*scale)
			subs.Add(1)
			go func() {
				defer subs.Done()
				for j := 0; j < njobs && !clock.expired(); j++ {
					var err error
					switch srng.IntN(8) {
					case 0, 1: // fork/join tree
						shape := fjShapes[srng.IntN(len(fjShapes))]
						tr := newFJTree(shape[0], shape[1], srng.IntN(2) == 0)
						add(mixJob{"tree", func() (uint64, error) { return uint64(tr.tasks()), tr.check() }, 0})
						err = k.Go(tr.node(0, 0))
					case 2: // ping-pong between tasks
						pp := &pingPair{limit: int64(1 + srng.IntN(200*scale)), stop: stop}
						add(mixJob{"ping-pong", func() (uint64, error) { return pp.runs(), pp.check() }, 0})
						err = k.Go(pp.task(0))
					case 3: // ping-pong with a goroutine, sometimes waking before the commit
						op := newOutsidePair(int64(1+srng.IntN(50*scale)), stop, srng.IntN(2) == 0)
						add(mixJob{"outside ping-pong", func() (uint64, error) { return 1 + uint64(op.runs.Load()), op.check() }, 0})
						outside.Add(1)
						go func() { defer outside.Done(); op.waker() }()
						err = k.Go(op.task())
					case 4: // yields
						n := 1 + srng.IntN(16)
						ys := make([]*yielder, n)
						wave := &yieldWave{done: make(chan struct{})}
						wave.left.Store(int64(n))
						fns := make([]func(*Ctx), n)
						K := srng.IntN(30 * scale)
						for i := range ys {
							ys[i] = &yielder{k: K, wave: wave}
							fns[i] = ys[i].run
						}
						add(mixJob{"yields", func() (uint64, error) {
							for _, y := range ys {
								if y.ends.Load() != 1 || y.final.Load() != int64(K) {
									return 0, fmt.Errorf("yielder ended %d times after %d yields, want once after %d", y.ends.Load(), y.final.Load(), K)
								}
							}
							return uint64(n) * uint64(K+1), nil
						}, uint64(n) * uint64(K)})
						err = k.GoBatch(fns...)
					case 5: // self-wakes
						sw := &selfWaker{k: srng.IntN(100 * scale)}
						add(mixJob{"self-wake", func() (uint64, error) { return uint64(sw.k) + 1, sw.check() }, 0})
						err = k.Go(sw.task())
					case 6: // a spawner of a batch of plain tasks
						n := 1 + srng.IntN(64)
						var ran atomic.Int64
						add(mixJob{"batch", func() (uint64, error) {
							if ran.Load() != int64(n) {
								return 0, fmt.Errorf("a batch of %d tasks ran %d", n, ran.Load())
							}
							return uint64(n) + 1, nil
						}, 0})
						err = k.Go(func(c *Ctx) {
							fns := make([]func(*Ctx), n)
							for i := range fns {
								fns[i] = func(*Ctx) { ran.Add(1) }
							}
							c.GoBatch(fns...)
						})
					case 7: // Block barrier
						br := newBlockRound(1+srng.IntN(2*np+2), srng.IntN(3))
						var n int
						n, err = br.start(k)
						add(mixJob{"block", func() (uint64, error) { return uint64(n), br.check() }, 0})
					}
					if err != nil {
						t.Errorf("submit: %v", err)
						return
					}
				}
			}()
		}
		subs.Wait()
		outsideDone := make(chan struct{})
		go func() { outside.Wait(); close(outsideDone) }()
		stressWait(t, k, outsideDone, "kernel %d: the goroutines of the mix", kn)
		stressShutdown(t, k)
		var runs, yields uint64
		for _, j := range jobs {
			n, err := j.check()
			if err != nil {
				t.Fatalf("seed %d, kernel %d (procs %d), %s: %v", seed, kn, np, j.name, err)
			}
			runs += n
			yields += j.yields
		}
		st := k.Stats()
		stressCheckStats(t, st, runs)
		if st.YieldCount != yields {
			t.Errorf("seed %d, kernel %d: Stats.YieldCount = %d, want %d", seed, kn, st.YieldCount, yields)
		}
		if t.Failed() {
			t.Fatalf("seed %d, kernel %d (procs %d): stats %+v", seed, kn, np, st)
		}
	}
}

// ---------------------------------------------------------------------------
// Reproducers of the kernel bugs that the tests above found. Four were
// fixed in a31b3aa ("kernel: fixes from an independent review") and are
// regression tests now; one is open and skipped.

// stressChild runs the current test again in a child process with
// VSCHED_STRESS_CHILD=name, for reproducers whose failure wedges or crashes
// the kernel; it fails the test with the child's output if the child
// fails. It reports whether the caller is the child.
func stressChild(t *testing.T, name string) (isChild bool) {
	t.Helper()
	switch os.Getenv("VSCHED_STRESS_CHILD") {
	case name:
		return true
	case "":
	default:
		t.Skip("another reproducer's child process")
	}
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + p + "$"
	}
	ctx, cancel := context.WithTimeout(context.Background(), stressHang())
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.v")
	cmd.Env = append(os.Environ(), "VSCHED_STRESS_CHILD="+name)
	out, err := cmd.CombinedOutput()
	skipIfExecFormat(t, err)
	if ctx.Err() != nil {
		t.Fatalf("%s: the child hung for %v (a wedged kernel):\n%s", name, stressHang(), out)
	}
	if err != nil {
		t.Fatalf("%s: %v:\n%s", name, err, out)
	}
	return false
}

// stressNoMonitor is an option for reproducers that play the monitor's
// part themselves: no monitor goroutine.
func stressNoMonitor(k *Kernel) error {
	k.monitor = false
	return nil
}

// TestKernelBugMonitorSleepsThroughTheStopAndShutdownHangs (fixed in
// a31b3aa): sysmon looked at the state at the top of its loop, then, finding
// every P idle (quiet), stored monDeep and looked at quiet() again before it
// slept on its note. If the kernel stopped in between (the last P going
// idle under a Shutdown, or a Close), finishLocked's monMode.Swap(monAwake)
// still found monAwake and sent no Wakeup; the monitor's second look
// checked quiet() (true: every P is idle) but not the state, so it slept
// with nobody left to wake it, monitorRun stayed true, k.exited was never
// set, and Shutdown (or Close) never returned. A kernel that runs one task
// and is shut down hit it about once in ten thousand.
func TestKernelBugMonitorSleepsThroughTheStopAndShutdownHangs(t *testing.T) {
	clock := newStressClock(stressBudget() / 2) // a regression test now: half the budget
	iters := stressSize(1_000_000, 200_000, 20_000)
	for it := 0; it < iters && !clock.expired(); it++ {
		k, err := New(WithProcs(1))
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Go(func(*Ctx) {}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), stressHang())
		err = k.Shutdown(ctx)
		cancel()
		if err != nil {
			k.lock.Lock()
			state, ms, monitorRun := k.state.Load(), k.mcount, k.monitorRun
			k.lock.Unlock()
			t.Fatalf("kernel %d: Shutdown: %v after %v; state %d (stopped = %d), %d Ms, monitor running %v in mode %d (deep = %d): "+
				"the monitor sleeps on a stopped kernel", it, err, stressHang(), state, stateStopped, ms, monitorRun, k.monMode.Load(), monDeep)
		}
	}
}

// TestKernelBugChainBreakAfterCloseLeavesATaskInTheGlobalQueue (fixed): when
// the monitor has flagged a runnext chain (p.preempt), findRunnable moves
// the task it took from runnext to the global queue and starts over; it
// does so without looking at the state. If Close ran since schedule's check
// (Close drops the global queue once, under the lock), the M then sees the
// stop at findRunnable's top and exits, and the task stays in the global
// queue forever: never run, never counted in Stats.DroppedCount.
// TestStressCloseDropsAndCounts sees it as ran + dropped = created - 1 with
// Stats.GlobalQueueDepth = 1, a few times in a hundred runs. Here the task sets
// its P's preempt flag itself, as the monitor does while a chain runs, and
// a goroutine calls Close as the task returns; a hit takes some tens of
// thousands of kernels, so the loop runs for the stress budget. The fix:
// under the lock, the task is dropped if the kernel stopped
// (globrunqputLocked, shared with the yield and Wake paths).
func TestKernelBugChainBreakAfterCloseLeavesATaskInTheGlobalQueue(t *testing.T) {
	clock := newStressClock(stressBudget())
	iters := stressSize(10_000_000, 1_000_000, 50_000)
	for it := 0; it < iters && !clock.expired(); it++ {
		k, err := New(WithProcs(1), stressNoMonitor)
		if err != nil {
			t.Fatal(err)
		}
		var returning atomic.Bool
		var ran atomic.Int32
		closed := make(chan struct{})
		go func() {
			for !returning.Load() {
			}
			k.Close()
			close(closed)
		}()
		k.Go(func(c *Ctx) {
			c.Go(func(*Ctx) { ran.Add(1) }) // runnext: it would inherit the time slice
			k.allp[0].preempt.Store(1)      // the monitor breaks the chain
			returning.Store(true)
		})
		<-closed
		if st := k.Stats(); uint64(ran.Load())+st.DroppedCount != 1 || st.GlobalQueueDepth != 0 {
			t.Fatalf("kernel %d: the spawned task ran %d times and Stats.DroppedCount = %d, Stats.GlobalQueueDepth = %d after Close; "+
				"want it run or dropped, and an empty global queue", it, ran.Load(), st.DroppedCount, st.GlobalQueueDepth)
		}
	}
}

// TestKernelBugSpinningMParkedAfterGivingItsPToABlockerHangsTheKernel
// (fixed in a31b3aa): a spinning M (started by wakep, or by handoffp when
// nobody spins) that reached the top of schedule while an M back from Block
// waited for a P gave its P away (givepSyswait) and parked in stopm with
// mp.spinning still set and nmspinning still counting it. Nothing undid
// that: when startm woke the M again it overwrote mp.spinning. With
// nmspinning stuck at 1, wakep never started an M again, and tasks
// submitted afterwards sat in the global queue next to idle Ps. With one P
// and HandoffEager the second round of three blockers almost always hung.
func TestKernelBugSpinningMParkedAfterGivingItsPToABlockerHangsTheKernel(t *testing.T) {
	k := newStressKernel(t, WithProcs(1), WithBlockHandoff(HandoffEager))
	for r := range 10 {
		br := newBlockRound(3, 0)
		if _, err := br.start(k); err != nil {
			t.Fatal(err)
		}
		stressWait(t, k, br.done, "Block round %d", r)
	}
	stressShutdown(t, k)
	if st := k.Stats(); st.SpinningWorkers != 0 {
		t.Fatalf("Stats.SpinningWorkers = %d after Shutdown, want 0", st.SpinningWorkers)
	}
}

// TestKernelBugHandingOffAPWithLocalTasksAfterCloseWedgesTheKernel (fixed
// in a31b3aa): after Close, handoffp of a P that still had tasks in its
// local queue called startm, whose stopped branch called releasePLocked and
// so pidleput, which panicked ("pidleput: P has runnable tasks") with the
// scheduler lock held. Two ways in are reproduced: a Block with
// HandoffEager (entersyscall hands the P off at once) in a task whose P has
// queued tasks, and a task that ends its run with runtime.Goexit (mdying
// hands the P off). The first wedged the kernel in-process (the panic
// unwound into runTask, whose mdying then waited forever for the lock the
// panicking startm held) and the second crashed the program; the kernel
// now stops the program (throw) on such a broken invariant, so both run in
// a child process.
func TestKernelBugHandingOffAPWithLocalTasksAfterCloseWedgesTheKernel(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []Option
		// leave is how the task gives its P up after Close; it calls
		// off once the P has been handed off, or, where Close waits for
		// the hand-off, before.
		leave func(c *Ctx, off func())
	}{
		// Close does not wait for an M inside Block; the Block's function
		// runs once entersyscall has handed the P off.
		{"eager-block", []Option{WithBlockHandoff(HandoffEager)}, func(c *Ctx, off func()) { c.Block(off) }},
		// Close waits for the M to exit, which mdying does after it hands
		// the P off.
		{"goexit", nil, func(_ *Ctx, off func()) { off(); runtime.Goexit() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !stressChild(t, c.name) {
				return
			}
			k, err := New(append([]Option{WithProcs(1)}, c.opts...)...)
			if err != nil {
				t.Fatal(err)
			}
			closed, handedOff := make(chan struct{}), make(chan struct{})
			k.Go(func(ctx *Ctx) {
				ctx.Go(func(*Ctx) {}) // a task queued on this P
				go func() { k.Close(); close(closed) }()
				for k.state.Load() != stateStopped {
					runtime.Gosched()
				}
				defer func() {
					if v := recover(); v != nil {
						fmt.Printf("%s after Close, with a task queued on the P, panicked: %v\n", c.name, v)
						os.Exit(3) // the kernel is wedged: its lock is held
					}
				}()
				c.leave(ctx, func() { close(handedOff) })
			})
			<-closed
			<-handedOff
			if st := k.Stats(); st.DroppedCount != 1 {
				t.Fatalf("Stats.DroppedCount = %d, want the 1 queued task", st.DroppedCount)
			}
		})
	}
}

// TestKernelBugGoBatchRacingShutdownDropsAcceptedTasks (fixed in a31b3aa):
// Kernel.GoBatch checked that the kernel was running under the lock,
// released it, and put the batch on the global queue under a second
// acquisition (injectglist(nil, ...)). A Shutdown in between saw every P
// idle and the global queue empty, stopped the kernel, and the batch was
// then dropped (globrunqputbatchLocked on a stopped kernel) although
// GoBatch had returned nil: Shutdown returned nil with accepted tasks never
// run, and Stats.DroppedCount counted them. It happened in about one kernel in
// two hundred.
func TestKernelBugGoBatchRacingShutdownDropsAcceptedTasks(t *testing.T) {
	clock := newStressClock(stressBudget() / 2) // a regression test now: half the budget
	iters := stressSize(100_000, 20_000, 2_000)
	for it := 0; it < iters && !clock.expired(); it++ {
		k, err := New(WithProcs(2))
		if err != nil {
			t.Fatal(err)
		}
		var ran, accepted atomic.Int64
		var started atomic.Bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			started.Store(true)
			for range 1000 {
				if k.GoBatch(func(*Ctx) { ran.Add(1) }) != nil {
					return
				}
				accepted.Add(1)
			}
		}()
		for !started.Load() {
			runtime.Gosched()
		}
		stressShutdown(t, k)
		<-done
		if ran.Load() != accepted.Load() {
			t.Fatalf("kernel %d: GoBatch accepted %d tasks, Shutdown returned nil, %d ran; stats %+v",
				it, accepted.Load(), ran.Load(), k.Stats())
		}
	}
}

// Stats read on and on while Close drops the global queue: the only P is
// held by a task until a Stats snapshot shows every queued task dropped.
// The count of dropped tasks is read under the lock that Close writes it
// under; an unsynchronized read shows as a race under -race. Each round
// checks the outcome too: the holder ran, the queued tasks never did, and
// DroppedCount has all of them.
func TestStressStatsWhileCloseDrops(t *testing.T) {
	clock := newStressClock(stressBudget())
	rounds := stressSize(200, 50, 10)
	const queued = 64
	for r := 0; r < rounds && !clock.expired(); r++ {
		k := newStressKernel(t, WithProcs(1))
		started, release := make(chan struct{}), make(chan struct{})
		var held, ran atomic.Int32
		if err := k.Go(func(*Ctx) {
			held.Add(1)
			close(started)
			<-release
		}); err != nil {
			t.Fatal(err)
		}
		<-started
		for range queued {
			if err := k.Go(func(*Ctx) { ran.Add(1) }); err != nil {
				t.Fatal(err)
			}
		}
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			defer close(release)
			for deadline := time.Now().Add(stressHang()); time.Now().Before(deadline); {
				if k.Stats().DroppedCount == queued {
					return
				}
			}
			t.Errorf("round %d: DroppedCount never reached %d", r, queued)
		}()
		if _, hung := stressAwait(k, k.Close); hung {
			t.Fatalf("round %d: Close did not return within %v", r, stressHang())
		}
		<-watched
		if st := k.Stats(); held.Load() != 1 || ran.Load() != 0 || st.DroppedCount != queued {
			t.Fatalf("round %d: holder ran %d times, %d queued tasks ran, DroppedCount %d; want 1, 0 and %d",
				r, held.Load(), ran.Load(), st.DroppedCount, queued)
		}
	}
}
