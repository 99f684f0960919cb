package compare

import (
	"context"
	"testing"

	"github.com/vsched/vsched/kernel"
)

// Small sizes: these tests check that every implementation runs every
// workload to the right count, not how fast.
func TestEveryVariantRunsEveryWorkloadToItsCount(t *testing.T) {
	for _, w := range []workload{
		spawnLocal(300),
		spawnRemote(300),
		chainedSpawn(100),
		forkJoinFib(12),
		yieldMany(8, 20),
		pingPong(100),
		imbalanced(3, 64, 1),
	} {
		for _, v := range w.variants {
			t.Run(w.name+"/impl="+v.impl, func(t *testing.T) {
				r := v.setup(t)
				// Several runs: each implementation is built once and
				// reused, as in the benchmarks.
				for i := range 3 {
					if got := r.run(); got != w.want {
						t.Fatalf("run %d returned %d, want %d", i, got, w.want)
					}
				}
			})
		}
	}
}

// 300 tasks: more than runnext and the kernel's local ring hold, so some
// go to its global queue.
func TestSpawnDepthQueuesEveryTaskAndRunsItOnce(t *testing.T) {
	const n = 300
	for _, v := range depthVariants() {
		t.Run("impl="+v.impl, func(t *testing.T) {
			op := v.setup(t, noTimer{}, n)
			for i := range 3 {
				r := op(i == 0)
				if r.early != 0 || r.ran != n {
					t.Fatalf("op %d: %d tasks ran before the last was queued and %d in all; want 0 and %d", i, r.early, r.ran, n)
				}
			}
		})
	}
}

// noTimer is the timer of a test: there is no benchmark time to stop.
type noTimer struct{}

func (noTimer) StopTimer()  {}
func (noTimer) StartTimer() {}

func TestForkJoinFibSpawnsOneTaskPerInternalNode(t *testing.T) {
	// fib(5): 7 internal nodes (F(6)-1) and 8 leaves (F(6)).
	if w := forkJoinFib(5); w.tasks != 7 || w.want != 5 {
		t.Fatalf("forkJoinFib(5): tasks %d, want %d; want 7 and 5", w.tasks, w.want)
	}
	if got := fibNative(20); got != fibOf(20) {
		t.Fatalf("fibNative(20) = %d, want %d", got, fibOf(20))
	}
}

func TestIdleWakeRunsTheProbeOnEveryImplementation(t *testing.T) {
	for _, v := range idleWakeVariants() {
		t.Run("impl="+v.impl, func(t *testing.T) {
			r := v.setup(t)
			for range 2 {
				if lat := r.run(); lat < 0 {
					t.Fatalf("negative latency %d", lat)
				}
			}
		})
	}
}

// IdleCPU with no idle period: it starts, warms, idles and stops every
// implementation.
func TestIdleCPUStartsAndStopsEveryImplementation(t *testing.T) {
	for _, v := range idleCPUVariants(0) {
		t.Run("impl="+v.impl, func(t *testing.T) {
			r := v.setup(t)
			r.run()
		})
	}
}

func TestShareIsTheFractionOutsideTheBusiestProc(t *testing.T) {
	for _, c := range []struct {
		before, after []uint64
		want          float64
	}{
		{[]uint64{0, 0}, []uint64{50, 50}, 0.5},
		{[]uint64{10, 5}, []uint64{85, 30}, 0.25},
		{[]uint64{0, 0}, []uint64{100, 0}, 0},
		{[]uint64{0, 0}, []uint64{0, 0}, 0},
	} {
		if got := share(statsOf(c.before), statsOf(c.after)); got != c.want {
			t.Errorf("share(%v, %v) = %v, want %v", c.before, c.after, got, c.want)
		}
	}
}

func TestPercentileIsNearestRank(t *testing.T) {
	s := []int64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	if got := percentile(s, 50); got != 5 {
		t.Errorf("p50 = %d, want 5", got)
	}
	if got := percentile(s, 99); got != 10 {
		t.Errorf("p99 = %d, want 10", got)
	}
	if got := percentile([]int64{7}, 99); got != 7 {
		t.Errorf("p99 of one sample = %d, want 7", got)
	}
}

func statsOf(tasksRun []uint64) kernel.Stats {
	s := kernel.Stats{Workers: len(tasksRun)}
	for _, n := range tasksRun {
		s.PerWorker = append(s.PerWorker, kernel.WorkerStats{PollCount: n})
	}
	return s
}

// The hand-written fork/joins spawn one task per internal node of fib's
// call tree, ForkJoinFib's divisor, whatever their shape, besides the
// root that the run submits.
func TestHandWrittenForkJoinsSpawnOneTaskPerInternalNode(t *testing.T) {
	w := forkJoinFib(12)
	for _, v := range w.variants {
		if v.impl != "kernel" && v.impl != "kernel-spine" && v.impl != "kernel-walk" {
			continue
		}
		r := v.setup(t)
		if got := r.run(); got != w.want {
			t.Fatalf("%s returned %d, want %d", v.impl, got, w.want)
		}
		// Stats lags a running P's counters; a stopped kernel's are final.
		if err := r.k.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		if spawned := int64(r.k.Stats().SpawnedTasksCount); spawned != w.tasks+1 {
			t.Errorf("%s spawned %d tasks, want %d and the root", v.impl, spawned, w.tasks)
		}
	}
}
