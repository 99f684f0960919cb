package compare

import (
	"errors"
	"fmt"
	"runtime"
	"testing"

	"github.com/alitto/pond/v2"
	"github.com/gammazero/workerpool"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// A goPool is one peer pool behind the interface the workloads use. Every
// pool is bounded at a number of workers; the benchmarks use GOMAXPROCS.
type goPool interface {
	// Go runs f on the pool. It may block while the pool is saturated, so
	// from inside a task it is safe only while no other task submits.
	Go(f func())
	// TryGo runs f on the pool if that can be done without blocking and
	// reports whether it did; on false the caller runs f itself. Only a
	// pool made with try=true supports it.
	TryGo(f func()) bool
	// Close waits for the submitted tasks and stops the workers.
	Close()
}

// poolNames lists the peers in the order the benchmarks run them.
var poolNames = []string{"ants", "pond", "conc", "errgroup", "workerpool"}

// newPool builds the peer called name, bounded at size workers, and
// registers its Close with tb.Cleanup. try asks for TryGo support, which
// for ants means a nonblocking pool.
func newPool(tb testing.TB, name string, size int, try bool) goPool {
	p := makePool(tb, name, size, try)
	tb.Cleanup(p.Close)
	return p
}

// makePool is newPool without the Cleanup: the caller closes the pool.
func makePool(tb testing.TB, name string, size int, try bool) goPool {
	var p goPool
	switch name {
	case "ants":
		p = newAntsPool(tb, size, try)
	case "pond":
		p = pondPool{pond.NewPool(size)}
	case "conc":
		p = newConcPool(size)
	case "errgroup":
		g := new(errgroup.Group)
		g.SetLimit(size)
		p = errgroupPool{g}
	case "workerpool":
		p = gammazeroPool{workerpool.New(size)}
	default:
		panic(fmt.Sprintf("compare: no pool named %q", name))
	}
	return p
}

// antsPool: ants.Pool hands each task to an idle worker goroutine over that
// worker's channel. A blocking pool (the default) makes Submit wait on a
// sync.Cond while all workers are busy; only a nonblocking pool can say
// "saturated" without blocking, so try=true builds one and its Go retries
// with runtime.Gosched (the workloads use that Go only for a root task, on
// an empty pool, where the first Submit succeeds).
type antsPool struct {
	p           *ants.Pool
	nonblocking bool
}

func newAntsPool(tb testing.TB, size int, try bool) antsPool {
	p, err := ants.NewPool(size, ants.WithNonblocking(try))
	if err != nil {
		tb.Fatalf("ants.NewPool: %v", err)
	}
	return antsPool{p, try}
}

func (a antsPool) Go(f func()) {
	for {
		err := a.p.Submit(f)
		if err == nil {
			return
		}
		if !errors.Is(err, ants.ErrPoolOverload) {
			panic(err)
		}
		runtime.Gosched()
	}
}

func (a antsPool) TryGo(f func()) bool {
	if !a.nonblocking {
		panic("compare: TryGo on a blocking ants pool")
	}
	err := a.p.Submit(f)
	if err != nil && !errors.Is(err, ants.ErrPoolOverload) {
		panic(err)
	}
	return err == nil
}

func (a antsPool) Close() { a.p.Release() }

// pondPool: pond v2 with its default unbounded queue: Go never blocks, it
// queues the task under the pool's mutex and starts a worker goroutine if
// fewer than size run. Workers exit when the queue is empty. TryGo is Go.
type pondPool struct{ p pond.Pool }

func (p pondPool) Go(f func()) {
	if err := p.p.Go(f); err != nil {
		panic(err)
	}
}

func (p pondPool) TryGo(f func()) bool { p.Go(f); return true }

func (p pondPool) Close() { p.p.StopAndWait() }

// concPool: conc's pool.Pool hands tasks to workers over an unbuffered
// channel and starts workers up to the limit; Go blocks while all are
// busy. conc v0.3.0 has no TryGo, so the adapter adds one: a semaphore of
// size-1 slots, taken without blocking, and released when the task ends.
// While a TryGo task holds a slot at most size-1 workers run TryGo tasks and
// at most one runs the root task submitted with Go, so the Go underneath
// never waits for a worker that is itself blocked. The wrapper costs one
// closure and two channel operations per TryGo task. The pool is made once
// and Waited only in Close, since a v0.3.0 pool cannot be reused after
// Wait.
type concPool struct {
	p     *pool.Pool
	slots chan struct{}
}

func newConcPool(size int) concPool {
	return concPool{pool.New().WithMaxGoroutines(size), make(chan struct{}, size-1)}
}

func (c concPool) Go(f func()) { c.p.Go(f) }

func (c concPool) TryGo(f func()) bool {
	select {
	case c.slots <- struct{}{}:
	default:
		return false
	}
	c.p.Go(func() {
		defer func() { <-c.slots }()
		f()
	})
	return true
}

func (c concPool) Close() { c.p.Wait() }

// errgroupPool: errgroup.Group with SetLimit(size) starts a new goroutine
// per task after taking a slot of a channel semaphore; Go blocks for a
// slot, TryGo does not. The group takes func() error, so each task costs
// one more closure here than in a program written for errgroup.
type errgroupPool struct{ g *errgroup.Group }

func (e errgroupPool) Go(f func()) { e.g.Go(func() error { f(); return nil }) }

func (e errgroupPool) TryGo(f func()) bool {
	return e.g.TryGo(func() error { f(); return nil })
}

func (e errgroupPool) Close() { _ = e.g.Wait() }

// gammazeroPool: gammazero/workerpool sends each task over an unbuffered
// channel to a dispatcher goroutine, which passes it to an idle worker over
// a second unbuffered channel or queues it in a deque. Submit never blocks
// for long, so TryGo is Go.
type gammazeroPool struct{ p *workerpool.WorkerPool }

func (g gammazeroPool) Go(f func()) { g.p.Submit(f) }

func (g gammazeroPool) TryGo(f func()) bool { g.p.Submit(f); return true }

func (g gammazeroPool) Close() { g.p.StopWait() }
