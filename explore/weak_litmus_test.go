//go:build vsched_explore

package explore_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
)

// The litmus tests of the weak memory model (RC11) check its verdicts on
// the classic shapes, each in the orders the reference table gives it:
// relaxed, release/acquire and sequentially consistent. An outcome RC11
// allows must be found by the exploration, one it forbids never. Each
// explores every schedule and every stale choice (no bound), except where
// a test says otherwise.

// orders are the operations a litmus test uses, in one variant.
type orders struct {
	name  string
	store func(*xsync.Uint32, uint32)
	load  func(*xsync.Uint32) uint32
}

var (
	relaxed = orders{"relaxed", (*xsync.Uint32).StoreRelaxed, (*xsync.Uint32).LoadRelaxed}
	relAcq  = orders{"rel/acq", (*xsync.Uint32).StoreRel, (*xsync.Uint32).LoadAcq}
	seqCst  = orders{"SC", (*xsync.Uint32).Store, (*xsync.Uint32).Load}
)

// weakOutcomes explores model under RC11 with no bound and returns the
// outcomes its executions reported.
func weakOutcomes(t *testing.T, model func(report func(string))) map[string]bool {
	t.Helper()
	return weakOutcomesWithin(t, explore.Unbounded, model)
}

// weakOutcomesWithin is weakOutcomes with a bound on stale choices, for a
// model that spins: a spin may read a stale flag as often as the bound
// lets it, and with no bound forever.
func weakOutcomesWithin(t *testing.T, maxStale int, model func(report func(string))) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	explore.Config{Memory: explore.RC11, MaxPreemptions: explore.Unbounded, MaxStale: maxStale}.Check(t, func() {
		model(func(o string) { seen[o] = true })
	})
	return seen
}

// verdict checks that outcome was seen exactly when allowed.
func verdict(t *testing.T, seen map[string]bool, outcome string, allowed bool) {
	t.Helper()
	switch {
	case allowed && !seen[outcome]:
		t.Errorf("%s is allowed but was not found; outcomes %v", outcome, slices.Sorted(maps.Keys(seen)))
	case !allowed && seen[outcome]:
		t.Errorf("%s is forbidden but was found", outcome)
	}
}

// litmus is one test of the table: its model in the given orders, the
// outcome in question, and whether RC11 allows it in each order.
type litmus struct {
	name    string
	model   func(o orders) func(report func(string))
	outcome string
	allowed map[string]bool // by orders.name
}

var litmusTable = []litmus{
	{"MP", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			th := explore.Go(func() { o.store(&x, 1); o.store(&y, 1) })
			r1 := o.load(&y)
			r2 := o.load(&x)
			th.Join()
			report(fmt.Sprintf("y=%d x=%d", r1, r2))
		}
	}, "y=1 x=0", map[string]bool{"relaxed": true, "rel/acq": false, "SC": false}},
	{"SB", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var r2 uint32
			th := explore.Go(func() { o.store(&y, 1); r2 = o.load(&x) })
			o.store(&x, 1)
			r1 := o.load(&y)
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}, "0 0", map[string]bool{"relaxed": true, "rel/acq": true, "SC": false}},
	{"LB", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var r2 uint32
			th := explore.Go(func() { r2 = o.load(&y); o.store(&x, 1) })
			r1 := o.load(&x)
			o.store(&y, 1)
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}, "1 1", map[string]bool{"relaxed": false, "rel/acq": false, "SC": false}},
	{"IRIW", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var a1, a2, b1, b2 uint32
			w1 := explore.Go(func() { o.store(&x, 1) })
			w2 := explore.Go(func() { o.store(&y, 1) })
			r1 := explore.Go(func() { a1 = o.load(&x); a2 = o.load(&y) })
			b1 = o.load(&y)
			b2 = o.load(&x)
			w1.Join()
			w2.Join()
			r1.Join()
			report(fmt.Sprintf("x=%d y=%d / y=%d x=%d", a1, a2, b1, b2))
		}
	}, "x=1 y=0 / y=1 x=0", map[string]bool{"relaxed": true, "rel/acq": true, "SC": false}},
	{"WRC", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var a uint32
			w := explore.Go(func() { o.store(&x, 1) })
			m := explore.Go(func() {
				if a = o.load(&x); a == 1 {
					o.store(&y, 1)
				}
			})
			r1 := o.load(&y)
			r2 := o.load(&x)
			w.Join()
			m.Join()
			report(fmt.Sprintf("%d %d %d", a, r1, r2))
		}
	}, "1 1 0", map[string]bool{"relaxed": true, "rel/acq": false, "SC": false}},
	{"2+2W", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			th := explore.Go(func() { o.store(&y, 1); o.store(&x, 2) })
			o.store(&x, 1)
			o.store(&y, 2)
			th.Join()
			report(fmt.Sprintf("x=%d y=%d", x.Load(), y.Load()))
		}
	}, "x=1 y=1", map[string]bool{"relaxed": true, "rel/acq": true, "SC": false}},
	{"CoRR", func(o orders) func(func(string)) {
		return func(report func(string)) {
			var x xsync.Uint32
			th := explore.Go(func() { o.store(&x, 1); o.store(&x, 2) })
			r1 := o.load(&x)
			r2 := o.load(&x)
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}, "2 1", map[string]bool{"relaxed": false, "rel/acq": false, "SC": false}},
}

func TestWeakLitmusVerdictsAreRC11s(t *testing.T) {
	for _, l := range litmusTable {
		for _, o := range []orders{relaxed, relAcq, seqCst} {
			t.Run(l.name+"/"+strings.ReplaceAll(o.name, "/", "-"), func(t *testing.T) {
				verdict(t, weakOutcomes(t, l.model(o)), l.outcome, l.allowed[o.name])
			})
		}
	}
}

// RMW atomicity: two increments never both read 0, whatever the order.
func TestWeakLitmusRMWIsAtomic(t *testing.T) {
	seen := weakOutcomes(t, func(report func(string)) {
		var n xsync.Uint32
		th := explore.Go(func() { n.Add(1) })
		n.Add(1)
		th.Join()
		report(fmt.Sprint(n.Load()))
	})
	verdict(t, seen, "1", false)
	verdict(t, seen, "2", true)

	// A plain store racing a read-modify-write may go before or after it
	// in mo, but never between the RMW and the store it read: "0 1" (the
	// RMW read 0, and 5 came between) is forbidden.
	seen = weakOutcomes(t, func(report func(string)) {
		var x xsync.Uint32
		th := explore.Go(func() { x.StoreRelaxed(5) })
		r := x.Add(1) - 1
		th.Join()
		report(fmt.Sprintf("%d %d", r, x.Load()))
	})
	verdict(t, seen, "0 1", false)
	verdict(t, seen, "0 5", true)
	verdict(t, seen, "5 6", true)
}

// SB with a release store and a sequentially consistent load on each side,
// the shape of the kernel's publish-then-check handshake when its store is
// only a release: RC11 allows both loads to miss. An SC fence between the
// store and the load on each side forbids it, and so do SC stores; so does
// a fence on the release side alone when the other side's accesses are SC.
func TestWeakLitmusHandshakeNeedsMoreThanARelease(t *testing.T) {
	sb := func(store func(*xsync.Uint32, uint32), fence bool) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var r2 uint32
			th := explore.Go(func() {
				store(&y, 1)
				if fence {
					xsync.FenceSC()
				}
				r2 = x.Load()
			})
			store(&x, 1)
			if fence {
				xsync.FenceSC()
			}
			r1 := y.Load()
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}
	verdict(t, weakOutcomes(t, sb((*xsync.Uint32).StoreRel, false)), "0 0", true)
	verdict(t, weakOutcomes(t, sb((*xsync.Uint32).StoreRel, true)), "0 0", false)
	verdict(t, weakOutcomes(t, sb((*xsync.Uint32).StoreRelaxed, true)), "0 0", false)
	verdict(t, weakOutcomes(t, sb((*xsync.Uint32).Store, false)), "0 0", false)

	// The kernel's handshake as it is written: the submitter publishes
	// with a release store, fences, and loads nmspinning; the spinner
	// decrements nmspinning with an SC read-modify-write and loads the
	// queue with an SC load, no fence. Forbidden; without the submitter's
	// fence, allowed.
	kernel := func(fence bool) func(func(string)) {
		return func(report func(string)) {
			var tail, nmspinning xsync.Uint32
			nmspinning.Store(1)
			var sawTail uint32
			th := explore.Go(func() {
				nmspinning.Add(^uint32(0))
				sawTail = tail.Load()
			})
			tail.StoreRel(1)
			if fence {
				xsync.FenceSC()
			}
			sawSpinner := nmspinning.Load()
			th.Join()
			report(fmt.Sprintf("%d %d", sawSpinner, sawTail))
		}
	}
	verdict(t, weakOutcomes(t, kernel(true)), "1 0", false)
	verdict(t, weakOutcomes(t, kernel(false)), "1 0", true)
}

// The model's approximations, each on the strong side: an outcome RC11
// allows that the explorer does not explore.
func TestWeakLitmusApproximationsErrOnTheStrongSide(t *testing.T) {
	// A failed compare-and-swap reads the latest store here; under RC11
	// it may read an older one, and fail although the latest would match.
	seen := weakOutcomesWithin(t, 2, func(report func(string)) {
		var x, flag xsync.Uint32
		th := explore.Go(func() { x.StoreRelaxed(1); flag.StoreRelaxed(1) })
		for flag.LoadRelaxed() == 0 {
			xsync.Spin()
		}
		// x's store is not known to this thread: RC11 lets the CAS read
		// the initial 0 and fail; here it reads the latest and succeeds.
		report(fmt.Sprint(x.CasRelaxed(1, 2)))
		th.Join()
	})
	if seen["false"] {
		t.Errorf("a failed CAS read a stale store; the approximation says it reads the latest")
	}

	// S is the order of execution. Here RC11 may put the fence before
	// x's SC store in S (nothing orders them: y's store is relaxed, and
	// the reader's fence has no release to acquire), and then the reader
	// may read x's initial 0 after it saw y = 1. The explorer puts the SC
	// store first, as it ran first, and the fence then forbids the 0.
	seen = weakOutcomes(t, func(report func(string)) {
		var x, y xsync.Uint32
		th := explore.Go(func() { x.Store(1); y.StoreRelaxed(1) })
		r1 := y.LoadRelaxed()
		xsync.FenceSC()
		r2 := x.LoadRelaxed()
		th.Join()
		report(fmt.Sprintf("%d %d", r1, r2))
	})
	if seen["1 0"] {
		t.Errorf("the fence went before an SC store that ran first; the approximation says S is the order of execution")
	}
	verdict(t, seen, "0 0", true)
	verdict(t, seen, "1 1", true)
}

// The rules of SC fences (RC11's psc), each in a shape where it alone
// decides the outcome: store buffering with a fence on one side and SC
// accesses on the other, the acquire side of a fence, and fence-fence.
func TestWeakLitmusSCFences(t *testing.T) {
	// sbOneFence: x's relaxed store, a fence, y's relaxed load on one
	// side; y's store (SC or relaxed) then x's SC load on the other.
	sbOneFence := func(storeY func(*xsync.Uint32, uint32)) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var r2 uint32
			th := explore.Go(func() {
				storeY(&y, 1)
				r2 = x.Load()
			})
			x.StoreRelaxed(1)
			xsync.FenceSC()
			r1 := y.LoadRelaxed()
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}
	// With an SC store, whichever of the fence and the SC store comes first
	// in S, a load on the far side sees the other store: forbidden.
	verdict(t, weakOutcomes(t, sbOneFence((*xsync.Uint32).Store)), "0 0", false)
	// With a relaxed store, nothing orders y's store with the fence:
	// allowed.
	verdict(t, weakOutcomes(t, sbOneFence((*xsync.Uint32).StoreRelaxed)), "0 0", true)

	// SB with relaxed accesses and a fence on each side: forbidden; with
	// the fence on one side only: allowed.
	sbRelaxed := func(fence0, fence1 bool) func(func(string)) {
		return func(report func(string)) {
			var x, y xsync.Uint32
			var r2 uint32
			th := explore.Go(func() {
				y.StoreRelaxed(1)
				if fence1 {
					xsync.FenceSC()
				}
				r2 = x.LoadRelaxed()
			})
			x.StoreRelaxed(1)
			if fence0 {
				xsync.FenceSC()
			}
			r1 := y.LoadRelaxed()
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}
	verdict(t, weakOutcomes(t, sbRelaxed(true, true)), "0 0", false)
	verdict(t, weakOutcomes(t, sbRelaxed(true, false)), "0 0", true)

	// MP through a fence: a relaxed load that reads a release store, then
	// a fence, synchronizes with the store (the fence acquires): the data
	// written before the release is seen. Without the fence it may not be.
	mp := func(fence bool) func(func(string)) {
		return func(report func(string)) {
			var data, flag xsync.Uint32
			th := explore.Go(func() { data.StoreRelaxed(1); flag.StoreRel(1) })
			r1 := flag.LoadRelaxed()
			if fence {
				xsync.FenceSC()
			}
			r2 := data.LoadRelaxed()
			th.Join()
			report(fmt.Sprintf("%d %d", r1, r2))
		}
	}
	verdict(t, weakOutcomes(t, mp(true)), "1 0", false)
	verdict(t, weakOutcomes(t, mp(false)), "1 0", true)
}

// A failure under RC11 prints a schedule with the memory model's choices
// in it (which store each load read); replaying that string must run the
// same execution, as under SC (TestLitmusReplayRunsExactlyTheReportedExecution).
func TestWeakReplayRunsExactlyTheReportedExecution(t *testing.T) {
	model := func() {
		var x, y xsync.Uint32
		th := explore.Go(func() { x.StoreRelaxed(1); y.StoreRelaxed(1) })
		r1 := y.LoadRelaxed()
		r2 := x.LoadRelaxed()
		th.Join()
		explore.Assertf(r1 != 1 || r2 != 0, "read y=1 and then the stale x=0")
	}
	cfg := explore.Config{Memory: explore.RC11, MaxPreemptions: explore.Unbounded}
	f := mustFail(t, cfg, "panic", model)
	if !strings.Contains(f.Schedule, "@") {
		t.Fatalf("the failing schedule %q has no choice of the memory model", f.Schedule)
	}
	cfg.Replay = f.Schedule
	res, err := explore.Run(cfg, model)
	if err != nil {
		t.Fatalf("replaying %q: %v", f.Schedule, err)
	}
	if res.Executions != 1 || res.Failure == nil || res.Failure.Message != f.Message || len(res.Failure.Trace) != len(f.Trace) {
		t.Fatalf("replaying %q: %d executions, failure %v; want the one failure %q in %d steps", f.Schedule, res.Executions, res.Failure, f.Message, len(f.Trace))
	}
}
