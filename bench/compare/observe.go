package compare

import (
	"io"
	"runtime/trace"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// observedSpawnLocal is SpawnLocal on the kernel with each observability
// feature on, beside the kernel with all of them off (impl=kernel): what a
// user pays for turning one on.
//
//   - kinds: every task spawned with GoKind, so each run sets and restores
//     the goroutine's pprof labels and publishes its kind for the stall
//     report;
//   - trace: the execution tracer on (writing to io.Discard), so each run
//     is a trace region and steals, parks and hand-offs are logged;
//   - histograms: WithHistograms, a clock read where a task becomes
//     runnable and two around each run;
//   - stats: a goroutine reading Stats every millisecond, as a metrics
//     scraper polling /debug/vars far more often than any does.
func observedSpawnLocal(n int) workload {
	const what = "Observability"
	w := workload{name: what, tasks: int64(n), want: int64(n)}
	spawner := func(kd *kernel.Kind, opts ...kernel.Option) func(tb testing.TB) runner {
		return func(tb testing.TB) runner {
			k := newKernel(tb, opts...)
			t := newTiny(tb, what, n, k)
			task := func(*kernel.Ctx) { t.do() }
			root := func(c *kernel.Ctx) {
				for range n {
					c.GoKind(kd, task)
				}
			}
			return runner{k: k, run: func() int64 {
				submit(tb, k, root)
				return t.wait()
			}}
		}
	}
	plain := spawner(nil)
	w.variants = []variant{
		{"kernel", plain},
		{"kernel-kinds", spawner(kernel.NewKind("tiny"))},
		{"kernel-histograms", spawner(nil, kernel.WithHistograms())},
		{"kernel-trace", func(tb testing.TB) runner {
			if trace.IsEnabled() {
				tb.Skip("the execution tracer is already on")
			}
			if err := trace.Start(io.Discard); err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(trace.Stop)
			return plain(tb)
		}},
		{"kernel-stats", func(tb testing.TB) runner {
			r := plain(tb)
			stop, done := make(chan struct{}), make(chan struct{})
			go func() {
				defer close(done)
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						_ = r.k.Stats()
					}
				}
			}()
			tb.Cleanup(func() { close(stop); <-done })
			return r
		}},
	}
	return w
}
