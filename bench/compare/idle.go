package compare

import (
	"sync"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// idleGap is how long every IdleWake sample first leaves the
// implementation alone, so that its workers and the Go runtime's Ms are
// parked (the runtime spins for microseconds before parking an M).
const idleGap = time.Millisecond

// idleWakeVariants measures submit-to-start latency on an idle
// implementation: each run sleeps idleGap (for the kernel, then also waits
// until Stats().IdleWorkers == Procs), submits one task from the benchmark
// goroutine and returns the time from just before the submit to the
// task's first instruction, in ns.
func idleWakeVariants() []variant {
	const what = "IdleWake"
	vs := []variant{
		{"native", func(tb testing.TB) runner {
			s := &wakeProbe{l: newLatch(tb, what, nil)}
			g := s.start
			return runner{run: func() int64 {
				time.Sleep(idleGap)
				s.t0 = time.Now()
				go g()
				return s.wait()
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			s := &wakeProbe{l: newLatch(tb, what, k)}
			task := func(*kernel.Ctx) { s.start() }
			return runner{k: k, run: func() int64 {
				time.Sleep(idleGap)
				waitIdle(tb, k)
				s.t0 = time.Now()
				submit(tb, k, task)
				return s.wait()
			}}
		}},
	}
	return append(vs, poolVariants(false, func(tb testing.TB, p goPool, _ int) runner {
		s := &wakeProbe{l: newLatch(tb, what, nil)}
		g := s.start
		return runner{run: func() int64 {
			time.Sleep(idleGap)
			s.t0 = time.Now()
			p.Go(g)
			return s.wait()
		}}
	})...)
}

// wakeProbe is one IdleWake sample: t0 is written before the submit and
// lat by the task, read after the latch.
type wakeProbe struct {
	t0  time.Time
	lat time.Duration
	l   *latch
}

func (s *wakeProbe) start() {
	s.lat = time.Since(s.t0)
	s.l.signal()
}

func (s *wakeProbe) wait() int64 {
	s.l.wait()
	return int64(s.lat)
}

// idleCPUVariants measures the CPU an idle implementation burns: each run
// starts the implementation, runs warmTasks tasks through it, lets it go
// idle (the kernel: until Stats().IdleWorkers == Procs), and returns the
// process's user+system CPU time, in ns, over the next idle period; then it
// shuts the implementation down. native runs nothing: it is the floor of
// the Go runtime and the test binary. Of the pools only ants (a purge
// goroutine and a clock goroutine) and workerpool (a dispatcher goroutine
// with an idle timer) keep goroutines of their own while idle.
func idleCPUVariants(idle time.Duration) []variant {
	const what = "IdleCPU"
	const warmTasks = 64
	measure := func() int64 {
		t0 := cpuTime()
		time.Sleep(idle)
		return int64(cpuTime() - t0)
	}
	vs := []variant{
		{"native", func(tb testing.TB) runner {
			return runner{run: measure}
		}},
		{"kernel", func(tb testing.TB) runner {
			return runner{run: func() int64 {
				k, err := kernel.New()
				if err != nil {
					tb.Fatalf("kernel.New: %v", err)
				}
				t := newTiny(tb, what, warmTasks, k)
				task := func(*kernel.Ctx) { t.do() }
				for range warmTasks {
					submit(tb, k, task)
				}
				t.wait()
				waitIdle(tb, k)
				cpu := measure()
				closeKernel(tb, k)
				return cpu
			}}
		}},
	}
	for _, name := range []string{"ants", "workerpool"} {
		vs = append(vs, variant{name, func(tb testing.TB) runner {
			return runner{run: func() int64 {
				p := makePool(tb, name, procs(), false)
				var wg sync.WaitGroup
				wg.Add(warmTasks)
				for range warmTasks {
					p.Go(wg.Done)
				}
				wg.Wait()
				cpu := measure()
				p.Close()
				return cpu
			}}
		}})
	}
	return vs
}
