package kernel

import (
	"runtime"
	"sync"
	"testing"
)

// TestStatsCountAliveParkedAndBlockingTasks: the gauges of Stats say what
// the kernel holds: tasks parked, tasks alive (parked ones included), Ms in
// Block; and once everything has finished, none are alive.
func TestStatsCountAliveParkedAndBlockingTasks(t *testing.T) {
	const n = 5
	k := newKernel(t, WithProcs(2))
	var parked sync.WaitGroup
	parked.Add(n)
	wakers := make(chan *Waker, n)
	for range n {
		ran := false
		if err := k.Go(func(c *Ctx) {
			if ran {
				return // woken: finish
			}
			ran = true
			wakers <- c.Park()
			parked.Done()
		}); err != nil {
			t.Fatal(err)
		}
	}
	parked.Wait()
	release, blocking := make(chan struct{}), make(chan struct{})
	if err := k.Go(func(c *Ctx) {
		c.Block(func() {
			close(blocking)
			<-release
		})
	}); err != nil {
		t.Fatal(err)
	}
	<-blocking
	// The parks commit after each task's function returns, and the
	// counters are published when a P goes idle: wait for both (bounded).
	var s Stats
	for i := 0; i < 1_000_000; i++ {
		s = k.Stats()
		if s.ParkedTasks == n && s.AliveTasks == n+1 {
			break
		}
		runtime.Gosched()
	}
	if s.ParkedTasks != n || s.AliveTasks != n+1 || s.BlockingThreads != 1 || s.SpawnedTasksCount != n+1 || s.RemoteScheduleCount != n+1 {
		t.Fatalf("with %d tasks parked and one in Block: %+v; want ParkedTasks %d, AliveTasks %d, BlockingThreads 1, SpawnedTasksCount %d",
			n, s, n, n+1, n+1)
	}
	if len(s.PerWorker) != 2 || s.Workers != 2 {
		t.Fatalf("Workers %d, %d PerWorker entries; want 2 and 2", s.Workers, len(s.PerWorker))
	}
	close(release)
	for range n {
		(<-wakers).Wake()
	}
	shutdown(t, k)
	s = k.Stats()
	if s.AliveTasks != 0 || s.ParkedTasks != 0 || s.BlockingThreads != 0 || s.PollCount != 2*n+1 || s.TaskWakeCount != n {
		t.Fatalf("after Shutdown: %+v; want nothing alive, parked or blocking, %d polls, %d wakes", s, 2*n+1, n)
	}
	var perWorker uint64
	for _, w := range s.PerWorker {
		perWorker += w.PollCount
		if w.LocalQueueDepth != 0 {
			t.Errorf("a stopped kernel's P has %d tasks queued", w.LocalQueueDepth)
		}
	}
	if perWorker != s.PollCount {
		t.Errorf("PerWorker polls add up to %d, PollCount is %d", perWorker, s.PollCount)
	}
}

// TestStatsCountEveryTaskOfARemoteBatch: a GoBatch from outside counts
// each of its tasks as spawned and as submitted from outside, not the
// batch as one.
func TestStatsCountEveryTaskOfARemoteBatch(t *testing.T) {
	const n = 7
	k := newKernel(t, WithProcs(2))
	if err := k.GoBatch(noops(n)...); err != nil {
		t.Fatal(err)
	}
	shutdown(t, k)
	s := k.Stats()
	if s.SpawnedTasksCount != n || s.RemoteScheduleCount != n || s.PollCount != n || s.AliveTasks != 0 {
		t.Fatalf("after a batch of %d from outside, run: %+v; want SpawnedTasksCount, RemoteScheduleCount and PollCount %d, AliveTasks 0", n, s, n)
	}
}

// noops returns n task functions that do nothing, for a GoBatch.
func noops(n int) []func(*Ctx) {
	fns := make([]func(*Ctx), n)
	for i := range fns {
		fns[i] = func(*Ctx) {}
	}
	return fns
}

// BenchmarkStats measures a read of Stats on an idle kernel with one P per
// CPU, the cost a metrics scraper pays per read.
func BenchmarkStats(b *testing.B) {
	k := newKernel(b)
	b.ReportAllocs()
	for b.Loop() {
		_ = k.Stats()
	}
}
