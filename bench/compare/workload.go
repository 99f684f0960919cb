package compare

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// A workload is one benchmark: the same job written once per
// implementation.
type workload struct {
	name string
	// tasks is what one run counts as tasks: the divisor of ns/task,
	// cpu-ns/task and allocs/task.
	tasks int64
	// want is what every run must return (a count of tasks run, a sum).
	want     int64
	variants []variant
}

// A variant is one implementation of a workload.
type variant struct {
	impl string
	// setup builds the implementation (a kernel, a pool) once per
	// benchmark, registers its shutdown with tb.Cleanup, and returns the
	// workload's runs.
	setup func(tb testing.TB) runner
}

// A runner runs the workload once per call of run.
type runner struct {
	run func() int64
	// k is the kernel under test for impl=kernel, else nil; the benchmark
	// reads its Stats around the measured loop.
	k *kernel.Kernel
	// inline, when not nil, counts tasks a pool ran inline because TryGo
	// found it saturated (ForkJoinFib).
	inline *atomic.Int64
}

// hangTimeout bounds every wait for a workload to finish. It is not a
// timing assertion: a run that takes this long has lost a task, and the
// failure names the workload and dumps the kernel's Stats instead of
// hanging until the test binary's own timeout.
const hangTimeout = 60 * time.Second

// A latch is the completion signal of one run: the task that finishes the
// workload calls signal (from inside a kernel task or a pool worker; it
// never blocks), and the benchmark goroutine, outside any pool, waits.
type latch struct {
	tb    testing.TB
	what  string
	k     *kernel.Kernel
	done  chan struct{}
	timer *time.Timer
}

func newLatch(tb testing.TB, what string, k *kernel.Kernel) *latch {
	t := time.NewTimer(hangTimeout)
	t.Stop()
	return &latch{tb: tb, what: what, k: k, done: make(chan struct{}, 1), timer: t}
}

func (l *latch) signal() {
	select {
	case l.done <- struct{}{}:
	default:
		panic("compare: " + l.what + " signalled twice in one run")
	}
}

func (l *latch) wait() {
	l.timer.Reset(hangTimeout)
	select {
	case <-l.done:
		l.timer.Stop()
	case <-l.timer.C:
		msg := ""
		if l.k != nil {
			msg = fmt.Sprintf("; kernel stats: %+v", l.k.Stats())
		}
		l.tb.Fatalf("%s did not finish within %v%s", l.what, hangTimeout, msg)
	}
}

// newKernel starts a kernel for one benchmark or test and registers its
// Close. A Close that does not return is reported instead of hanging.
func newKernel(tb testing.TB, opts ...kernel.Option) *kernel.Kernel {
	k, err := kernel.New(opts...)
	if err != nil {
		tb.Fatalf("kernel.New: %v", err)
	}
	tb.Cleanup(func() { closeKernel(tb, k) })
	return k
}

func closeKernel(tb testing.TB, k *kernel.Kernel) {
	closed := make(chan error, 1)
	go func() { closed <- k.Close() }()
	t := time.NewTimer(hangTimeout)
	defer t.Stop()
	select {
	case err := <-closed:
		if err != nil {
			tb.Errorf("kernel Close: %v", err)
		}
	case <-t.C:
		tb.Errorf("kernel Close did not return within %v; stats: %+v", hangTimeout, k.Stats())
	}
}

// submit is k.Go from outside the kernel, failing the benchmark on error.
func submit(tb testing.TB, k *kernel.Kernel, fn func(*kernel.Ctx)) {
	if err := k.Go(fn); err != nil {
		tb.Fatalf("kernel Go: %v", err)
	}
}

// waitIdle waits until every P of k is idle (Stats.IdleWorkers ==
// Stats.Procs). It polls, sleeping between polls: it is used only to set up
// idle measurements, never to order tasks.
func waitIdle(tb testing.TB, k *kernel.Kernel) {
	deadline := time.Now().Add(hangTimeout)
	for {
		s := k.Stats()
		if s.IdleWorkers == s.Workers {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("kernel not idle after %v with nothing submitted: %+v", hangTimeout, s)
		}
		time.Sleep(20 * time.Microsecond)
	}
}

// procs is the parallelism every implementation gets: the kernel's Ps,
// the bounded pools' cap, the counter's goroutines.
func procs() int { return runtime.GOMAXPROCS(0) }

// spawnInside returns how a pool task submits one more task in a workload
// where at most one task submits at a time (SpawnLocal, ChainedSpawn). With
// size >= 2 a blocking Go cannot deadlock there: the submitter holds one
// worker and the rest run tasks that do not submit. With size 1 it would
// wait for its own worker, so it falls back to TryGo or running inline.
func spawnInside(p goPool, size int) func(f func()) {
	if size >= 2 {
		return p.Go
	}
	return func(f func()) {
		if !p.TryGo(f) {
			f()
		}
	}
}

// poolVariants returns one variant per peer pool, each bounded at
// GOMAXPROCS workers. try is whether the workload needs TryGo at every
// size; it is also needed at size 1 by spawnInside.
func poolVariants(try bool, build func(tb testing.TB, p goPool, size int) runner) []variant {
	vs := make([]variant, 0, len(poolNames))
	for _, name := range poolNames {
		vs = append(vs, variant{name, func(tb testing.TB) runner {
			size := procs()
			return build(tb, newPool(tb, name, size, try || size < 2), size)
		}})
	}
	return vs
}

// spin burns about the given number of microseconds of CPU without a
// system call or an allocation. Its loop count is calibrated once.
func spin(us int) {
	if spinSink.Add(spinLoop(us*spinPerMicro())) == 0 {
		spinSink.Add(1)
	}
}

var (
	spinSink  atomic.Uint64
	spinOnce  sync.Once
	spinIters int
)

//go:noinline
func spinLoop(n int) uint64 {
	x := uint64(n)
	for range n {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// spinPerMicro is the number of spinLoop iterations in one microsecond:
// the best of a few timed runs of 2^20 iterations.
func spinPerMicro() int {
	spinOnce.Do(func() {
		const n = 1 << 20
		best := time.Duration(1<<63 - 1)
		for range 5 {
			t0 := time.Now()
			spinSink.Add(spinLoop(n))
			if d := time.Since(t0); d < best {
				best = d
			}
		}
		spinIters = max(1, int(float64(n)*float64(time.Microsecond)/float64(best)))
	})
	return spinIters
}
