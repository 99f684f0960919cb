package compare

import (
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/vsched/vsched/kernel"
)

// yieldMany: tasks tasks, each yielding yields times before it finishes;
// one "task" of ns/task is one yield. The kernel's task counts in its
// closure and calls c.Yield, which puts it at the tail of the global
// queue once its function returns; native goroutines loop over
// runtime.Gosched. The pools have no yield.
func yieldMany(tasks, yields int) workload {
	const what = "YieldMany"
	total := int64(tasks) * int64(yields)
	w := workload{name: what, tasks: total, want: total}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			y := &yielders{n: int64(tasks), l: newLatch(tb, what, nil)}
			g := func() {
				for range yields {
					runtime.Gosched()
				}
				y.finish(int64(yields))
			}
			return runner{run: func() int64 {
				for range tasks {
					go g()
				}
				return y.wait()
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			y := &yielders{n: int64(tasks), l: newLatch(tb, what, k)}
			return runner{k: k, run: func() int64 {
				for range tasks {
					done := 0
					submit(tb, k, func(c *kernel.Ctx) {
						if done == yields {
							y.finish(int64(done))
							return
						}
						done++
						c.Yield()
					})
				}
				return y.wait()
			}}
		}},
	}
	return w
}

// yielders counts the yielding tasks that finished and the yields they
// made.
type yielders struct {
	n        int64
	finished atomic.Int64
	yields   atomic.Int64
	l        *latch
}

func (y *yielders) finish(yields int64) {
	y.yields.Add(yields)
	if y.finished.Add(1) == y.n {
		y.l.signal()
	}
}

func (y *yielders) wait() int64 {
	y.l.wait()
	y.finished.Store(0)
	return y.yields.Swap(0)
}

// pingPong: two tasks hand a ball back and forth; one "task" of ns/task is
// one hand-off. native: two goroutines and two unbuffered channels. The
// kernel: each task, holding the ball, parks (c.Park), leaves its Waker
// where the other can find it and wakes the other's Waker; its function
// then returns and it waits until the other hands the ball back. A Wake
// that arrives before the function returns is not lost, so no hand-off
// waits for the other side to have finished parking. The pools have no
// park.
func pingPong(handoffs int) workload {
	const what = "PingPong"
	w := workload{name: what, tasks: int64(handoffs), want: int64(handoffs)}
	w.variants = []variant{
		{"native", func(tb testing.TB) runner {
			l := newLatch(tb, what, nil)
			ping, pong := make(chan struct{}), make(chan struct{})
			rounds := handoffs / 2
			a := func() {
				for range rounds {
					ping <- struct{}{}
					<-pong
				}
				l.signal()
			}
			b := func() {
				for range rounds {
					<-ping
					pong <- struct{}{}
				}
			}
			return runner{run: func() int64 {
				go b()
				go a()
				l.wait()
				return int64(2 * rounds)
			}}
		}},
		{"kernel", func(tb testing.TB) runner {
			k := newKernel(tb)
			g := &kernelRally{n: int64(handoffs), l: newLatch(tb, what, k)}
			return runner{k: k, run: func() int64 {
				g.hits = 0
				g.stop = false
				first := true
				submit(tb, k, func(c *kernel.Ctx) {
					if first {
						// The receiving side parks first, then starts the
						// serving side.
						first = false
						g.wakers[1] = c.Park()
						c.Go(g.player(0))
						return
					}
					g.play(c, 1)
				})
				g.l.wait()
				return g.hits
			}}
		}},
	}
	return w
}

// kernelRally is the state of one kernel ping-pong. Only the task holding
// the ball touches hits, stop and the wakers; the hand-off (Wake, then the
// woken task's next run) orders one holder's writes before the next
// holder's reads, so the fields are plain and -race checks that ordering.
type kernelRally struct {
	n        int64
	hits     int64
	stop     bool
	wakers   [2]*kernel.Waker
	finished atomic.Int32
	l        *latch
}

func (g *kernelRally) player(side int) func(*kernel.Ctx) {
	return func(c *kernel.Ctx) { g.play(c, side) }
}

// play is one turn of side: hit the ball to the other side and park, or,
// after the last hit, wake the other side to stop and finish.
func (g *kernelRally) play(c *kernel.Ctx, side int) {
	if g.stop {
		g.finish()
		return
	}
	g.hits++
	other := g.wakers[1-side]
	if g.hits == g.n {
		g.stop = true
		other.Wake()
		g.finish()
		return
	}
	g.wakers[side] = c.Park()
	other.Wake()
}

// finish counts a player that ended; the second ends the run.
func (g *kernelRally) finish() {
	if g.finished.Add(1) == 2 {
		g.finished.Store(0)
		g.l.signal()
	}
}
