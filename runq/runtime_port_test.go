package runq_test

import (
	"flag"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"

	"github.com/vsched/vsched/runq"
)

// A port of the Go runtime's tests of its local run queue:
// RunSchedLocalQueueTest, RunSchedLocalQueueStealTest and
// RunSchedLocalQueueEmptyTest of src/runtime/export_test.go, run by
// TestSchedLocalQueue, TestSchedLocalQueueSteal and TestSchedLocalQueueEmpty
// of src/runtime/proc_test.go (Go 1.26), line for line: one queue (two for
// the steal test) made once and reused by every iteration, so that its
// head and tail run on past the ring's size and the slots wrap, the same
// loops and counts, and the same checks. What differs:
//
//   - new(p) is a new runq.Queue, and len(pp.runq) is runq.Size (256, or
//     4 in the explorer build).
//   - runqput, runqget, runqsteal and runqempty are Queue.Put, Get,
//     StealInto and Empty. runqsteal(p2, p1, true) is p1.StealInto(p2,
//     true, nil): the runtime's usleep(3) before taking runnext is the
//     pause, which has no effect here since nothing else runs.
//   - A throw is t.Fatalf with the runtime's message; the g's sig field,
//     which the steal test counts in, is a counter beside each item.
//   - The empty test's iterations are 10^5 under the runtime, 10^2 with
//     -short. Here 10^2 run unless -vsched.runtime-counts asks for the
//     runtime's, since the test's helper goroutine spins on a barrier and
//     a busy 2-core machine makes each iteration slow.
//
// The stronger checks of the same properties (distinct items and their
// FIFO order, exactly ceil(i/2) stolen, Empty straddling the owner's
// kick-out) are TestGetReturnsTheSameItemPutUpToSizeMinusOneTimes,
// TestStealIntoTakesCeilHalfOldestPrefixAndLosesNothing and
// TestEmptyNeverFalselyTrue beside them; the explorer's versions of the
// empty test are the EmptyNeverFalselyTrue scenarios of package explore.

var runtimeCounts = flag.Bool("vsched.runtime-counts", false, "run TestSchedLocalQueueEmpty for the runtime's 10^5 iterations")

// g is the port's goroutine: an item with the runtime's sig counter.
type g struct{ sig uint32 }

func TestSchedLocalQueue(t *testing.T) {
	pp := new(runq.Queue[g])
	gs := make([]g, runq.Size)
	for i := 0; i < runq.Size; i++ {
		if g, _ := pp.Get(); g != nil {
			t.Fatalf("runq is not empty initially")
		}
		for j := 0; j < i; j++ {
			pp.Put(&gs[i], false)
		}
		for j := 0; j < i; j++ {
			if g, _ := pp.Get(); g != &gs[i] {
				t.Fatalf("bad element at iter %d/%d", i, j)
			}
		}
		if g, _ := pp.Get(); g != nil {
			t.Fatalf("runq is not empty afterwards")
		}
	}
}

func TestSchedLocalQueueSteal(t *testing.T) {
	p1 := new(runq.Queue[g])
	p2 := new(runq.Queue[g])
	gs := make([]g, runq.Size)
	for i := 0; i < runq.Size; i++ {
		for j := 0; j < i; j++ {
			gs[j].sig = 0
			p1.Put(&gs[j], false)
		}
		gp := p1.StealInto(p2, true, nil)
		s := 0
		if gp != nil {
			s++
			gp.sig++
		}
		for {
			gp, _ = p2.Get()
			if gp == nil {
				break
			}
			s++
			gp.sig++
		}
		for {
			gp, _ = p1.Get()
			if gp == nil {
				break
			}
			gp.sig++
		}
		for j := 0; j < i; j++ {
			if gs[j].sig != 1 {
				t.Fatalf("bad element %d(%d) at iter %d", j, gs[j].sig, i)
			}
		}
		if s != i/2 && s != i/2+1 {
			t.Fatalf("bad steal %d, want %d or %d, iter %d", s, i/2, i/2+1, i)
		}
	}
}

func TestSchedLocalQueueEmpty(t *testing.T) {
	if runtime.NumCPU() == 1 {
		// Takes too long and does not trigger the race.
		t.Skip("skipping on uniprocessor")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))

	// The runtime turns the garbage collector off because a forced GC
	// could not stop the goroutines that spin on the barrier; Go
	// preempts user goroutines asynchronously, but the port keeps the
	// setting, so that the two runs meet the same conditions.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()

	iters := int(1e5)
	if testing.Short() || !*runtimeCounts {
		iters = 1e2
	}
	runSchedLocalQueueEmptyTest(t, iters)
}

func runSchedLocalQueueEmptyTest(t *testing.T, iters int) {
	// Test that runq is not spuriously reported as empty.
	// Runq emptiness affects scheduling decisions and spurious emptiness
	// can lead to underutilization (both runnable Gs and idle Ps coexist
	// for arbitrary long time).
	done := make(chan bool, 1)
	p := new(runq.Queue[g])
	gs := make([]g, 2)
	ready := new(atomic.Uint32)
	for i := 0; i < iters; i++ {
		ready.Store(0)
		next0 := (i & 1) == 0
		next1 := (i & 2) == 0
		p.Put(&gs[0], next0)
		go func() {
			for ready.Add(1); ready.Load() != 2; {
			}
			if p.Empty() {
				t.Errorf("next: %v %v", next0, next1)
				t.Errorf("queue is empty")
			}
			done <- true
		}()
		for ready.Add(1); ready.Load() != 2; {
		}
		p.Put(&gs[1], next1)
		p.Get()
		<-done
		p.Get()
	}
}
