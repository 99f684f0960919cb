package kernel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestExpGoBatchShutdown(t *testing.T) {
	lost := 0
	for i := 0; i < 20000; i++ {
		k, _ := New(WithProcs(2))
		var ran atomic.Int32
		start := make(chan struct{})
		var err error
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			err = k.GoBatch(func(*Ctx) { ran.Add(1) }, func(*Ctx) { ran.Add(1) })
		}()
		close(start)
		runtime.Gosched()
		if e := k.Shutdown(context.Background()); e != nil {
			t.Fatal(e)
		}
		wg.Wait()
		if err == nil && ran.Load() != 2 {
			lost++
			if lost < 3 {
				t.Logf("iter %d: accepted, ran %d, stats %+v", i, ran.Load(), k.Stats())
			}
		}
	}
	t.Logf("lost %d", lost)
}

func TestExpEagerBlockClose(t *testing.T) {
	k, _ := New(WithProcs(1), WithBlockHandoff(HandoffEager))
	done := make(chan struct{})
	k.Go(func(c *Ctx) {
		c.Go(func(*Ctx) {})
		go func() { k.Close(); close(done) }()
		for k.state.Load() != stateStopped {
			runtime.Gosched()
		}
		c.Block(func() {})
	})
	select {
	case <-done:
		t.Logf("closed; stats %+v", k.Stats())
	case <-time.After(5 * time.Second):
		t.Fatalf("Close hangs; stats %+v", k.Stats())
	}
}

func TestExpSpinLeak(t *testing.T) {
	for _, h := range []BlockHandoff{HandoffLazy, HandoffEager} {
		leaks := 0
		for it := 0; it < 200; it++ {
			k, _ := New(WithProcs(2), WithBlockHandoff(h))
			for round := 0; round < 20; round++ {
				const n = 6
				var arrived atomic.Int32
				release := make(chan struct{})
				var wg sync.WaitGroup
				wg.Add(n)
				for range n {
					k.Go(func(c *Ctx) {
						c.Block(func() {
							if arrived.Add(1) == n {
								close(release)
							}
							<-release
						})
						wg.Done()
					})
				}
				wg.Wait()
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := k.Shutdown(ctx)
			cancel()
			if err != nil {
				t.Fatalf("shutdown %v: %+v", err, k.Stats())
			}
			if v := k.nmspinning.Load(); v != 0 {
				leaks++
			}
		}
		t.Logf("handoff %d: leaks %d", h, leaks)
	}
}
