package compare

import (
	"math"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// cpuTime is the process's user+system CPU time so far
// (getrusage(RUSAGE_SELF)): every thread, the Go runtime's included.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A snapshot is what the benchmark reads before and after its loop,
// outside the timed region.
type snapshot struct {
	mallocs uint64
	stats   kernel.Stats // zero unless the variant has a kernel
}

// takeSnapshot reads the counters. With a kernel it first waits until
// every P is idle: a P publishes its Stats counters only every 64 runs and
// when it goes idle.
func takeSnapshot(tb testing.TB, k *kernel.Kernel) snapshot {
	if k != nil {
		waitIdle(tb, k)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := snapshot{mallocs: ms.Mallocs}
	if k != nil {
		s.stats = k.Stats()
	}
	return s
}

// benchWorkload runs every variant of w as a sub-benchmark impl=<name>:
// one warm-up run, then b.Loop over whole runs, each checked against
// w.want. It reports ns/task, cpu-ns/task and allocs/task; for the kernel
// also steals/op (StealOperations) and wakeups/op (UnparkCount), and share for
// Imbalanced; for pools that ran tasks inline, inline/task.
func benchWorkload(b *testing.B, w workload) {
	for _, v := range w.variants {
		b.Run("impl="+v.impl, func(b *testing.B) {
			r := v.setup(b)
			if got := r.run(); got != w.want {
				b.Fatalf("%s warm-up run returned %d, want %d", w.name, got, w.want)
			}
			if r.inline != nil {
				r.inline.Store(0)
			}
			before := takeSnapshot(b, r.k)
			// The CPU time is read where the timer starts and stops, not
			// around the snapshots: a kernel may spin for a while after the
			// last run before its Ps go idle.
			var cpu0 time.Duration
			iters := 0
			for b.Loop() {
				if iters == 0 {
					cpu0 = cpuTime()
				}
				if got := r.run(); got != w.want {
					b.Fatalf("%s run returned %d, want %d", w.name, got, w.want)
				}
				iters++
			}
			cpu := cpuTime() - cpu0
			after := takeSnapshot(b, r.k)
			tasks := float64(iters) * float64(w.tasks)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/tasks, "ns/task")
			b.ReportMetric(float64(cpu)/tasks, "cpu-ns/task")
			b.ReportMetric(float64(after.mallocs-before.mallocs)/tasks, "allocs/task")
			if r.inline != nil {
				b.ReportMetric(float64(r.inline.Load())/tasks, "inline/task")
			}
			if r.k != nil {
				b.ReportMetric(float64(after.stats.StealOperations-before.stats.StealOperations)/float64(iters), "steals/op")
				b.ReportMetric(float64(after.stats.UnparkCount-before.stats.UnparkCount)/float64(iters), "wakeups/op")
				if w.name == "Imbalanced" {
					b.ReportMetric(share(before.stats, after.stats), "share")
				}
			}
		})
	}
}

// benchSamples runs every variant as a sub-benchmark and collects what
// each run returns as one sample; report turns the samples into metrics.
func benchSamples(b *testing.B, vs []variant, report func(b *testing.B, samples []int64)) {
	for _, v := range vs {
		b.Run("impl="+v.impl, func(b *testing.B) {
			r := v.setup(b)
			var samples []int64
			for b.Loop() {
				samples = append(samples, r.run())
			}
			report(b, samples)
		})
	}
}

// percentile returns the p-th percentile (0 < p <= 100) of samples by the
// nearest-rank method; it sorts samples.
func percentile(samples []int64, p float64) int64 {
	slices.Sort(samples)
	i := int(math.Ceil(float64(len(samples))*p/100)) - 1
	return samples[min(max(i, 0), len(samples)-1)]
}
