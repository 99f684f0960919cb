package compare

import (
	"sync/atomic"
	"testing"

	"github.com/vsched/vsched/kernel"
)

// imbalanced: one producer pushes bursts of burst CPU tasks of about
// workUs microseconds each and waits for a burst to finish before the
// next. Everything a burst's tasks do in parallel, another worker had to
// take from the producer's queue.
//
// The kernel's producer is a task that spawns with c.Go, so every task
// starts on the producer's P (runnext, the local run queue, the overflow
// to the global queue) and the other Ps must steal or pull it; it parks
// between bursts and the burst's last task wakes it. The benchmark reports
// share: the fraction of tasks run by the Ps other than the one that ran
// the most, from Stats().PerWorker[i].PollCount (0.5 is an even split on two
// Ps). native, counter and the pools produce from the benchmark goroutine
// and report only ns/task.
func imbalanced(bursts, burst, workUs int) workload {
	const what = "Imbalanced"
	total := int64(bursts) * int64(burst)
	w := workload{name: what, tasks: total, want: total}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			s := newBurstRun(tb, what, burst, nil)
			work := func() { s.work(workUs) }
			return runner{run: func() int64 {
				for range bursts {
					s.arm()
					for range burst {
						go work()
					}
					s.l.wait()
				}
				return s.ran.Swap(0)
			}}
		}},
		{"counter", func(tb testing.TB) runner {
			s := newBurstRun(tb, what, burst, nil)
			var next atomic.Int64
			worker := func() {
				for next.Add(1) <= int64(burst) {
					s.work(workUs)
				}
			}
			return runner{run: func() int64 {
				for range bursts {
					s.arm()
					next.Store(0)
					for range procs() {
						go worker()
					}
					s.l.wait()
				}
				return s.ran.Swap(0)
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			s := newBurstRun(tb, what, burst, k)
			done := newLatch(tb, what, k)
			var producer *kernel.Waker
			work := func(*kernel.Ctx) {
				s.ran.Add(1)
				spin(workUs)
				if s.left.Add(-1) == 0 {
					producer.Wake()
				}
			}
			produced := 0
			produce := func(c *kernel.Ctx) {
				if produced == bursts {
					done.signal()
					return
				}
				produced++
				s.left.Store(int64(burst))
				// Park before spawning: the burst's last task may wake the
				// producer before this function returns, which is not lost.
				producer = c.Park()
				for range burst {
					c.Go(work)
				}
			}
			return runner{k: k, run: func() int64 {
				produced = 0
				submit(tb, k, produce)
				done.wait()
				return s.ran.Swap(0)
			}}
		}},
	}
	w.variants = append(w.variants, poolVariants(false, func(tb testing.TB, p goPool, _ int) runner {
		s := newBurstRun(tb, what, burst, nil)
		work := func() { s.work(workUs) }
		return runner{run: func() int64 {
			for range bursts {
				s.arm()
				for range burst {
					p.Go(work)
				}
				s.l.wait()
			}
			return s.ran.Swap(0)
		}}
	})...)
	return w
}

// burstRun counts the tasks of one burst down to zero and all tasks run.
type burstRun struct {
	burst int64
	left  atomic.Int64
	ran   atomic.Int64
	l     *latch
}

func newBurstRun(tb testing.TB, what string, burst int, k *kernel.Kernel) *burstRun {
	return &burstRun{burst: int64(burst), l: newLatch(tb, what, k)}
}

func (s *burstRun) arm() { s.left.Store(s.burst) }

// work is one task of a burst; the last one of the burst signals.
func (s *burstRun) work(us int) {
	s.ran.Add(1)
	spin(us)
	if s.left.Add(-1) == 0 {
		s.l.signal()
	}
}

// share is the fraction of tasks run by the Ps other than the busiest,
// between two Stats snapshots.
func share(before, after kernel.Stats) float64 {
	var total, most uint64
	for i := range after.PerWorker {
		d := after.PerWorker[i].PollCount
		if i < len(before.PerWorker) {
			d -= before.PerWorker[i].PollCount
		}
		total += d
		most = max(most, d)
	}
	if total == 0 {
		return 0
	}
	return float64(total-most) / float64(total)
}
