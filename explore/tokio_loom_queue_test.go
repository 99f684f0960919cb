//go:build vsched_explore

package explore_test

import (
	"fmt"
	"testing"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/runq"
)

// A port of tokio's loom tests of its local run queue,
// tokio/src/runtime/tests/loom_queue.rs (tokio-rs/tokio, the version at
// commit 0dff92c1b19c9fb13ee6268f6ade0e15ee9e03ad), line for line: the same
// threads, the same tasks, the same loops and the same assertions. What
// differs is only what the two queues' interfaces make differ:
//
//   - queue::local() gives tokio a Steal handle and a Local handle of one
//     queue; here both are the one *runq.Queue, whose owner methods the
//     model calls only from the owning thread.
//   - local.push_back(task, &inject) is Put(task, false), and an overflow
//     batch goes to the inject queue: runq returns the oldest Size/2 items
//     and the new one, as tokio's push_overflow moves half the queue and
//     the task to inject.
//   - local.pop() is Get(): tokio's local queue has no runnext, and these
//     tests put nothing there.
//   - steal.steal_into(&mut local) is StealInto(local, false, nil): tokio
//     does not steal a LIFO slot either.
//   - queue::Inject is runq.Global behind an xsync.Mutex (tokio's inject
//     queue takes its own lock): inject.pop() is Global.Get under it.
//   - Under loom tokio's LOCAL_QUEUE_CAPACITY is 4, and runq.Size is 4 in
//     the explorer build.
//   - loom::model explores without a preemption bound unless
//     LOOM_MAX_PREEMPTIONS sets one (tokio's CI sets 2); each test here
//     runs at bounds 1, 2 and 3 (TestTokioLoomQueue) and without a bound
//     (TestTokioLoomQueueUnbounded, with dynamic partial-order
//     reduction), and every search must complete.
//
// The stronger versions of these four tests, with an item ledger and a
// check of every execution's history against spec, are the Tokio*
// scenarios of runq_test.go.

// inject is tokio's queue::Inject: the global queue behind its own lock.
type inject struct {
	mu xsync.Mutex
	q  runq.Global[task]
}

func (in *inject) pushBatch(gs []*task) {
	in.mu.Lock()
	in.q.PutBatch(gs)
	in.mu.Unlock()
}

func (in *inject) pop() *task {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.q.Get()
}

// pushBack is local.push_back(task, &inject) for a new task.
func pushBack(local *runq.Queue[task], in *inject) {
	if over := local.Put(new(task), false); over != nil {
		in.pushBatch(over)
	}
}

// pop is local.pop().is_some().
func pop(local *runq.Queue[task]) bool {
	g, _ := local.Get()
	return g != nil
}

func tokioBasic() {
	local := new(runq.Queue[task])
	steal := local // queue::local(): two handles of one queue
	inject := new(inject)

	var thN int
	th := explore.Go(func() {
		local := new(runq.Queue[task])
		n := 0

		for range 3 {
			if steal.StealInto(local, false, nil) != nil {
				n += 1
			}

			for pop(local) {
				n += 1
			}
		}

		thN = n
	})

	n := 0

	for range 2 {
		for range 2 {
			pushBack(local, inject)
		}

		if pop(local) {
			n += 1
		}

		// Push another task
		pushBack(local, inject)

		for pop(local) {
			n += 1
		}
	}

	for inject.pop() != nil {
		n += 1
	}

	th.Join()
	n += thN

	explore.Assertf(6 == n, "assert_eq!(6, n): n = %d", n)
}

func tokioStealOverflow() {
	local := new(runq.Queue[task])
	steal := local // queue::local(): two handles of one queue
	inject := new(inject)

	var thN int
	th := explore.Go(func() {
		local := new(runq.Queue[task])
		n := 0

		if steal.StealInto(local, false, nil) != nil {
			n += 1
		}

		for pop(local) {
			n += 1
		}

		thN = n
	})

	n := 0

	// push a task, pop a task
	pushBack(local, inject)

	if pop(local) {
		n += 1
	}

	for range 6 {
		pushBack(local, inject)
	}

	th.Join()
	n += thN

	for pop(local) {
		n += 1
	}

	for inject.pop() != nil {
		n += 1
	}

	explore.Assertf(7 == n, "assert_eq!(7, n): n = %d", n)
}

func tokioMultiStealer() {
	const numTasks = 5

	stealTasks := func(steal *runq.Queue[task]) int {
		local := new(runq.Queue[task])

		if steal.StealInto(local, false, nil) == nil {
			return 0
		}

		n := 1

		for pop(local) {
			n += 1
		}

		return n
	}

	local := new(runq.Queue[task])
	steal := local // queue::local(): two handles of one queue
	inject := new(inject)

	// Push work
	for range numTasks {
		pushBack(local, inject)
	}

	var th1N, th2N int
	th1 := explore.Go(func() { th1N = stealTasks(steal) })

	th2 := explore.Go(func() { th2N = stealTasks(steal) })

	n := 0

	for pop(local) {
		n += 1
	}

	for inject.pop() != nil {
		n += 1
	}

	th1.Join()
	n += th1N
	th2.Join()
	n += th2N

	explore.Assertf(n == numTasks, "assert_eq!(n, NUM_TASKS): n = %d", n)
}

func tokioChainedSteal() {
	l1 := new(runq.Queue[task])
	s1 := l1 // queue::local(): two handles of one queue
	l2 := new(runq.Queue[task])
	s2 := l2
	inject := new(inject)

	// Load up some tasks
	for range 4 {
		pushBack(l1, inject)

		pushBack(l2, inject)
	}

	// Spawn a task to steal from **our** queue
	th := explore.Go(func() {
		local := new(runq.Queue[task])
		s1.StealInto(local, false, nil)

		for pop(local) {
		}
	})

	// Drain our tasks, then attempt to steal
	for pop(l1) {
	}

	s2.StealInto(l1, false, nil)

	th.Join()

	for pop(l1) {
	}
	for pop(l2) {
	}
	for inject.pop() != nil {
	}
}

// tokioTests are the four tests of loom_queue.rs.
var tokioTests = []struct {
	name  string
	model func()
}{
	{"basic", tokioBasic},
	{"steal_overflow", tokioStealOverflow},
	{"multi_stealer", tokioMultiStealer},
	{"chained_steal", tokioChainedSteal},
}

// TestTokioLoomQueue runs the port at preemption bounds 1, 2 and 3.
func TestTokioLoomQueue(t *testing.T) {
	for _, bound := range []int{1, 2, 3} {
		for _, tc := range tokioTests {
			t.Run(fmt.Sprintf("bound=%d/%s", bound, tc.name), func(t *testing.T) {
				explore.Config{MaxPreemptions: bound}.Check(t, tc.model)
			})
		}
	}
}

// TestTokioLoomQueueUnbounded runs the port without a preemption bound, as
// loom::model does by default: with dynamic partial-order reduction, basic
// takes about 1.5 million executions (some 25 s), the others a few hundred.
func TestTokioLoomQueueUnbounded(t *testing.T) {
	for _, tc := range tokioTests {
		t.Run(tc.name, func(t *testing.T) {
			res := explore.Config{MaxPreemptions: explore.Unbounded}.Check(t, tc.model)
			if res.Reduction != "DPOR" {
				t.Fatalf("the search used %s, want DPOR", res.Reduction)
			}
		})
	}
}
