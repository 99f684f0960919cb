package spec_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vsched/vsched/spec"
)

// The model is exercised on ints (distinct values stand for distinct items)
// with a small capacity, so that full rings are a few operations away.
const capacity = 8

func newQueue(ring []int) *spec.Queue[int] {
	q := spec.NewQueue[int](capacity)
	if rest := q.PutBatch(ring); rest != nil {
		panic("newQueue: ring too long")
	}
	return q
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// wantViolation fails the test unless err is a *spec.Violation naming
// invariant.
func wantViolation(t *testing.T, err error, invariant string) {
	t.Helper()
	var v *spec.Violation
	if !errors.As(err, &v) {
		t.Fatalf("error %v (%T), want a *spec.Violation of %q", err, err, invariant)
	}
	if v.Invariant != invariant {
		t.Fatalf("violation of %q, want %q (%v)", v.Invariant, invariant, err)
	}
	if !strings.Contains(err.Error(), invariant) || v.Detail == "" {
		t.Fatalf("Error() = %q: want the invariant's name and a detail", err.Error())
	}
}

func mustPanic(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("no panic")
		}
	}()
	f()
}

// state is a comparable snapshot of a model queue.
func state(q *spec.Queue[int]) string {
	g, ok := q.RunNext()
	return fmt.Sprintf("ring %v runnext %v/%v", q.Ring(), g, ok)
}

func TestSpecNewQueueNeedsEvenPositiveCapacity(t *testing.T) {
	for _, c := range []int{-2, 0, 1, 3, 7} {
		mustPanic(t, func() { spec.NewQueue[int](c) })
	}
	for _, c := range []int{2, 4, 256} {
		if q := spec.NewQueue[int](c); q.Cap() != c || !q.Empty() || q.Len() != 0 {
			t.Fatalf("NewQueue(%d): Cap %d, Empty %v, Len %d", c, q.Cap(), q.Empty(), q.Len())
		}
	}
}

func TestSpecPutAppendsUntilFullThenOverflowsOldestHalfAndNewItem(t *testing.T) {
	q := spec.NewQueue[int](capacity)
	for i := range capacity {
		if ov := q.Put(i, false); ov != nil {
			t.Fatalf("Put(%d) into a ring of %d overflowed %v", i, i, ov)
		}
	}
	ov := q.Put(100, false)
	if want := []int{0, 1, 2, 3, 100}; !slices.Equal(ov, want) {
		t.Fatalf("overflow = %v, want %v", ov, want)
	}
	if want := []int{4, 5, 6, 7}; !slices.Equal(q.Ring(), want) {
		t.Fatalf("ring after overflow = %v, want %v", q.Ring(), want)
	}
}

func TestSpecPutNextKicksOldRunNextToRingTail(t *testing.T) {
	q := newQueue([]int{0, 1})
	if ov := q.Put(10, true); ov != nil {
		t.Fatalf("Put(next) with no runnext returned %v", ov)
	}
	if ov := q.Put(11, true); ov != nil {
		t.Fatalf("kick-out into a ring with room returned %v", ov)
	}
	if g, ok := q.RunNext(); !ok || g != 11 {
		t.Fatalf("runnext = %v, %v; want 11", g, ok)
	}
	if want := []int{0, 1, 10}; !slices.Equal(q.Ring(), want) {
		t.Fatalf("ring = %v, want %v", q.Ring(), want)
	}

	// Into a full ring, the kicked runnext is the overflow's last item.
	full := newQueue(seq(0, capacity))
	full.Put(10, true)
	ov := full.Put(11, true)
	if want := []int{0, 1, 2, 3, 10}; !slices.Equal(ov, want) {
		t.Fatalf("overflow = %v, want %v", ov, want)
	}
	if g, _ := full.RunNext(); g != 11 {
		t.Fatalf("runnext = %v, want 11", g)
	}
}

func TestSpecGetPrefersRunNextWithInheritTime(t *testing.T) {
	q := newQueue([]int{0, 1})
	q.Put(9, true)
	want := []struct {
		g           int
		ok, inherit bool
	}{{9, true, true}, {0, true, false}, {1, true, false}, {0, false, false}}
	for i, w := range want {
		g, ok, inherit := q.Get()
		if g != w.g || ok != w.ok || inherit != w.inherit {
			t.Fatalf("Get #%d = (%v, %v, %v), want (%v, %v, %v)", i, g, ok, inherit, w.g, w.ok, w.inherit)
		}
	}
}

func TestSpecPutBatchFillsWhatFitsAndReturnsRest(t *testing.T) {
	q := newQueue([]int{0, 1, 2})
	if rest := q.PutBatch([]int{3, 4}); rest != nil {
		t.Fatalf("PutBatch that fits returned %v", rest)
	}
	batch := []int{5, 6, 7, 8, 9}
	if rest := q.PutBatch(batch); !slices.Equal(rest, []int{8, 9}) {
		t.Fatalf("PutBatch returned %v, want [8 9]", rest)
	}
	if !slices.Equal(q.Ring(), seq(0, 8)) {
		t.Fatalf("ring = %v", q.Ring())
	}
	if rest := q.PutBatch([]int{10}); !slices.Equal(rest, []int{10}) {
		t.Fatalf("PutBatch on a full ring returned %v, want everything back", rest)
	}
}

func TestSpecDrainReturnsRunNextThenRing(t *testing.T) {
	q := newQueue([]int{0, 1, 2})
	q.Put(9, true)
	if got, want := q.Drain(), []int{9, 0, 1, 2}; !slices.Equal(got, want) {
		t.Fatalf("Drain = %v, want %v", got, want)
	}
	if !q.Empty() || q.Len() != 0 || len(q.Drain()) != 0 {
		t.Fatalf("queue not empty after Drain: %s", state(q))
	}
}

func TestSpecGrabTakesCeilHalfOfObservedLength(t *testing.T) {
	for l := 0; l <= capacity; l++ {
		for observed := min(1, l); observed <= l; observed++ {
			q := newQueue(seq(0, l))
			q.Put(99, true)
			got, err := q.Grab(observed, false)
			if err != nil {
				t.Fatalf("ring %d, observed %d: %v", l, observed, err)
			}
			n := (observed + 1) / 2
			if spec.StealAmount(observed) != n {
				t.Fatalf("StealAmount(%d) = %d, want %d", observed, spec.StealAmount(observed), n)
			}
			if !slices.Equal(got, seq(0, n)) {
				t.Fatalf("ring %d, observed %d: Grab = %v, want the oldest %d", l, observed, got, n)
			}
			if !slices.Equal(q.Ring(), seq(n, l)) {
				t.Fatalf("ring %d, observed %d: ring left %v", l, observed, q.Ring())
			}
			if g, ok := q.RunNext(); !ok || g != 99 {
				t.Fatalf("ring %d, observed %d: runnext taken", l, observed)
			}
		}
	}
}

func TestSpecGrabTakesRunNextOnlyWhenObservedEmptyAndAsked(t *testing.T) {
	q := newQueue([]int{0, 1})
	q.Put(9, true)
	if got, _ := q.Grab(0, false); got != nil {
		t.Fatalf("Grab(0, stealRunNext=false) = %v", got)
	}
	// The ring filled since the thief saw it empty: it still takes runnext.
	if got, _ := q.Grab(0, true); !slices.Equal(got, []int{9}) {
		t.Fatalf("Grab(0, true) = %v, want [9]", got)
	}
	if _, ok := q.RunNext(); ok || !slices.Equal(q.Ring(), []int{0, 1}) {
		t.Fatalf("after a runnext steal: %s", state(q))
	}
	if got, err := q.Grab(0, true); got != nil || err != nil {
		t.Fatalf("Grab(0, true) without runnext = %v, %v", got, err)
	}
}

func TestSpecGrabRejectsImpossibleObservationsAndChangesNothing(t *testing.T) {
	for _, c := range []struct {
		ring     int
		observed int
	}{{3, 4}, {0, 1}, {3, -1}, {capacity, capacity + 1}, {capacity, 2*capacity + 1}} {
		q := newQueue(seq(0, c.ring))
		q.Put(99, true)
		before := state(q)
		got, err := q.Grab(c.observed, true)
		if got != nil {
			t.Fatalf("ring %d, observed %d: Grab took %v", c.ring, c.observed, got)
		}
		wantViolation(t, err, "steal amount")
		if state(q) != before {
			t.Fatalf("ring %d, observed %d: state changed from %s to %s", c.ring, c.observed, before, state(q))
		}
	}
}

func TestSpecGrabOutcomesAreTheDistinctResultsOfGrab(t *testing.T) {
	for l := 0; l <= capacity; l++ {
		for _, hasNext := range []bool{false, true} {
			for _, srn := range []bool{false, true} {
				q := newQueue(seq(0, l))
				if hasNext {
					q.Put(99, true)
				}
				before := state(q)
				outs := q.GrabOutcomes(srn)
				if state(q) != before {
					t.Fatalf("GrabOutcomes changed the queue")
				}
				name := fmt.Sprintf("ring %d, runnext %v, stealRunNext %v", l, hasNext, srn)

				for i := range outs {
					for j := range i {
						if slices.Equal(outs[i], outs[j]) {
							t.Fatalf("%s: outcome %v listed twice in %v", name, outs[i], outs)
						}
					}
				}
				// Every outcome is some Grab's result and vice versa.
				var results [][]int
				for observed := 0; observed <= l; observed++ {
					got, err := q.Clone().Grab(observed, srn)
					if observed == 0 && !srn && l > 0 {
						if err == nil {
							t.Fatalf("%s: Grab(0) without stealRunNext from a non-empty ring = %v, want a violation", name, got)
						}
						continue
					}
					if err != nil {
						t.Fatalf("%s: Grab(%d): %v", name, observed, err)
					}
					results = append(results, got)
				}
				contains := func(set [][]int, x []int) bool {
					return slices.ContainsFunc(set, func(y []int) bool { return slices.Equal(x, y) })
				}
				for _, o := range outs {
					if !contains(results, o) {
						t.Fatalf("%s: outcome %v is no Grab's result %v", name, o, results)
					}
				}
				for _, r := range results {
					if !contains(outs, r) {
						t.Fatalf("%s: Grab result %v missing from outcomes %v", name, r, outs)
					}
				}
				if took := contains(outs, []int{99}); took != (srn && hasNext) {
					t.Fatalf("%s: outcomes %v include runnext: %v", name, outs, took)
				}
			}
		}
	}
}

func TestSpecStealIntoReturnsLastGrabbedAndAppendsRest(t *testing.T) {
	src, dst := newQueue(seq(0, 7)), newQueue([]int{50})
	g, ok, err := src.StealInto(dst, 7, true)
	if err != nil || !ok || g != 3 {
		t.Fatalf("StealInto = %v, %v, %v; want 3, true, nil", g, ok, err)
	}
	if want := []int{50, 0, 1, 2}; !slices.Equal(dst.Ring(), want) {
		t.Fatalf("destination ring = %v, want %v", dst.Ring(), want)
	}
	if want := []int{4, 5, 6}; !slices.Equal(src.Ring(), want) {
		t.Fatalf("source ring = %v, want %v", src.Ring(), want)
	}

	// Runnext alone comes back without touching the destination's ring.
	src = newQueue(nil)
	src.Put(9, true)
	g, ok, err = src.StealInto(dst, 0, true)
	if err != nil || !ok || g != 9 || dst.RingLen() != 4 || !src.Empty() {
		t.Fatalf("runnext steal = %v, %v, %v; destination %s, source %s", g, ok, err, state(dst), state(src))
	}

	// Nothing to take.
	if g, ok, err := newQueue(nil).StealInto(dst, 0, true); ok || err != nil || g != 0 {
		t.Fatalf("steal from an empty queue = %v, %v, %v", g, ok, err)
	}
}

func TestSpecStealIntoRejectsDestinationWithoutRoom(t *testing.T) {
	src, dst := newQueue(seq(0, 4)), newQueue(seq(10, 10+capacity/2+1))
	before := state(src) + state(dst)
	_, ok, err := src.StealInto(dst, 4, true)
	if ok {
		t.Fatalf("StealInto took something")
	}
	wantViolation(t, err, "bounds")
	if state(src)+state(dst) != before {
		t.Fatalf("state changed")
	}

	// Exactly half full is enough room.
	if _, ok, err := src.StealInto(newQueue(seq(10, 10+capacity/2)), 4, true); !ok || err != nil {
		t.Fatalf("StealInto into a half-full ring = %v, %v", ok, err)
	}
	// An impossible observation is reported by the grab.
	_, _, err = newQueue(seq(0, 2)).StealInto(newQueue(nil), 5, true)
	wantViolation(t, err, "steal amount")
}

func TestSpecLenEmptyAndCloneDescribeTheQueue(t *testing.T) {
	q := spec.NewQueue[int](capacity)
	if !q.Empty() || q.Len() != 0 || q.RingLen() != 0 {
		t.Fatalf("new queue: %s", state(q))
	}
	q.Put(9, true)
	if q.Empty() || q.Len() != 1 || q.RingLen() != 0 {
		t.Fatalf("runnext only: Empty %v, Len %d, RingLen %d", q.Empty(), q.Len(), q.RingLen())
	}
	q.Put(1, false)
	if q.Len() != 2 || q.RingLen() != 1 {
		t.Fatalf("Len %d, RingLen %d, want 2, 1", q.Len(), q.RingLen())
	}
	c := q.Clone()
	c.Put(2, false)
	c.Get()
	if q.Len() != 2 || state(q) != "ring [1] runnext 9/true" {
		t.Fatalf("changing a clone changed the original: %s", state(q))
	}
	r := q.Ring()
	r[0] = 42
	if q.Ring()[0] != 1 {
		t.Fatalf("Ring() does not return a copy")
	}
}

func TestSpecGlobalIsFIFOWithHeadPush(t *testing.T) {
	var q spec.Global[int]
	if _, ok := q.Get(); ok {
		t.Fatalf("Get on an empty Global reported ok")
	}
	q.Put(1)
	q.PutBatch([]int{2, 3})
	q.PutHead(0)
	q.Put(4)
	if q.Len() != 5 || !slices.Equal(q.Items(), seq(0, 5)) {
		t.Fatalf("Len %d, Items %v", q.Len(), q.Items())
	}
	for i := range 5 {
		if g, ok := q.Get(); !ok || g != i {
			t.Fatalf("Get = %v, %v; want %d", g, ok, i)
		}
	}
}

func TestSpecGlobalBatchSize(t *testing.T) {
	for _, c := range []struct{ size, max, procs, want int }{
		{0, 128, 4, 0},
		{1, 128, 4, 1},
		{10, 128, 4, 3},  // fair share 10/4+1
		{10, 2, 4, 2},    // capped by max
		{10, 128, 1, 10}, // capped by size
		{1000, 128, 1, 128},
		{3, 0, 4, 1},     // at least one
		{3, -5, 4, 1},    // at least one
		{7, 128, 100, 1}, // 7/100+1
		{257, 128, 2, 128},
	} {
		if got := spec.GlobalBatchSize(c.size, c.max, c.procs); got != c.want {
			t.Errorf("GlobalBatchSize(size %d, max %d, procs %d) = %d, want %d", c.size, c.max, c.procs, got, c.want)
		}
	}
}

func TestSpecGlobalGetBatchTakesOldestBatch(t *testing.T) {
	var q spec.Global[int]
	q.PutBatch(seq(0, 10))
	if got := q.GetBatch(128, 4); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("GetBatch = %v, want [0 1 2]", got)
	}
	if !slices.Equal(q.Items(), seq(3, 10)) {
		t.Fatalf("left %v", q.Items())
	}
	var empty spec.Global[int]
	if got := empty.GetBatch(128, 4); len(got) != 0 {
		t.Fatalf("GetBatch on an empty queue = %v", got)
	}
}

func TestSpecCoprimes(t *testing.T) {
	for count, want := range map[int][]int{
		1: {1}, 2: {1}, 4: {1, 3}, 6: {1, 5}, 12: {1, 5, 7, 11}, 7: {1, 2, 3, 4, 5, 6},
	} {
		if got := spec.Coprimes(count); !slices.Equal(got, want) {
			t.Errorf("Coprimes(%d) = %v, want %v", count, got, want)
		}
	}
}

func TestSpecVisitIsAPermutationStartingAtRModCount(t *testing.T) {
	if got, want := spec.Visit(4, 6), []int{2, 1, 0, 3}; !slices.Equal(got, want) {
		t.Fatalf("Visit(4, 6) = %v, want %v", got, want)
	}
	// 2^32-1 = 6*715827882 + 3: start 3, stride Coprimes(6)[715827882%2] = 1.
	if got, want := spec.Visit(6, 1<<32-1), []int{3, 4, 5, 0, 1, 2}; !slices.Equal(got, want) {
		t.Fatalf("Visit(6, 2^32-1) = %v, want %v", got, want)
	}
	for count := 1; count <= 20; count++ {
		for _, r := range []uint32{0, 1, 7, 1000, 1<<32 - 1} {
			got := spec.Visit(count, r)
			if len(got) != count || got[0] != int(r%uint32(count)) {
				t.Fatalf("Visit(%d, %d) = %v", count, r, got)
			}
			sorted := slices.Sorted(slices.Values(got))
			if !slices.Equal(sorted, seq(0, count)) {
				t.Fatalf("Visit(%d, %d) = %v is not a permutation", count, r, got)
			}
		}
	}
}

func TestSpecLedgerDetectsLossAndDuplication(t *testing.T) {
	var l spec.Ledger[int]
	if l.Live() != 0 {
		t.Fatalf("new Ledger: Live %d", l.Live())
	}
	for _, g := range []int{1, 2, 3} {
		if err := l.Enter(g); err != nil {
			t.Fatalf("Enter(%d): %v", g, err)
		}
	}
	if l.Live() != 3 {
		t.Fatalf("Live = %d, want 3", l.Live())
	}
	wantViolation(t, l.Enter(2), "conservation") // double enter
	if err := l.Leave(2); err != nil {
		t.Fatalf("Leave(2): %v", err)
	}
	wantViolation(t, l.Leave(2), "conservation") // double leave
	wantViolation(t, l.Leave(7), "conservation") // never entered
	if l.Live() != 2 {
		t.Fatalf("Live = %d, want 2", l.Live())
	}
	// An item that left may be submitted again.
	if err := l.Enter(2); err != nil {
		t.Fatalf("re-Enter(2): %v", err)
	}
	for _, g := range []int{1, 2, 3} {
		if err := l.Leave(g); err != nil {
			t.Fatalf("Leave(%d): %v", g, err)
		}
	}
	if l.Live() != 0 {
		t.Fatalf("Live = %d after everything left", l.Live())
	}
}

func TestSpecChecksPassAndReportTheirInvariant(t *testing.T) {
	for _, c := range []struct {
		name      string
		ok, bad   error
		invariant string
	}{
		{"CheckCounters", spec.CheckCounters(256, 1<<32-10, 246), spec.CheckCounters(256, 1<<32-10, 247), "bounds"},
		{"CheckCounters/tail before head", spec.CheckCounters(256, 5, 5), spec.CheckCounters(256, 5, 4), "bounds"},
		{"CheckMonotonic/head", spec.CheckMonotonic(1<<32-1, 1<<32-1, 0, 1), spec.CheckMonotonic(5, 9, 4, 9), "monotonicity"},
		{"CheckMonotonic/tail", spec.CheckMonotonic(5, 9, 5, 9), spec.CheckMonotonic(5, 9, 5, 8), "monotonicity"},
		{"CheckOverflow/full", spec.CheckOverflow(256, 256, 129), spec.CheckOverflow(256, 256, 128), "bounds"},
		{"CheckOverflow/not full", spec.CheckOverflow(256, 255, 0), spec.CheckOverflow(256, 255, 129), "bounds"},
		{"CheckGrab/ring", spec.CheckGrab(256, 128, false), spec.CheckGrab(256, 129, false), "steal amount"},
		{"CheckGrab/negative", spec.CheckGrab(256, 0, false), spec.CheckGrab(256, -1, false), "steal amount"},
		{"CheckGrab/runnext", spec.CheckGrab(256, 1, true), spec.CheckGrab(256, 2, true), "steal amount"},
		{"CheckPrefix/order", spec.CheckPrefix([]int{1, 2, 3}, []int{1, 2}), spec.CheckPrefix([]int{1, 2, 3}, []int{2}), "ring FIFO"},
		{"CheckPrefix/length", spec.CheckPrefix([]int{1}, nil), spec.CheckPrefix([]int{1}, []int{1, 2}), "ring FIFO"},
		{"CheckRunNextSteal/ring looked non-empty", spec.CheckRunNextSteal(true, true, 0), spec.CheckRunNextSteal(true, true, 1), "runnext rules"},
		{"CheckRunNextSteal/not asked", spec.CheckRunNextSteal(false, false, 0), spec.CheckRunNextSteal(true, false, 0), "runnext rules"},
		{"CheckEmpty", spec.CheckEmpty(false, true), spec.CheckEmpty(true, true), "empty never falsely true"},
		{"CheckEmpty/truly empty", spec.CheckEmpty(true, false), spec.CheckEmpty(true, true), "empty never falsely true"},
		{"CheckGlobalBatch", spec.CheckGlobalBatch(10, 128, 4, 3), spec.CheckGlobalBatch(10, 128, 4, 4), "global batch"},
		{"CheckGlobalBatch/empty", spec.CheckGlobalBatch(0, 128, 4, 0), spec.CheckGlobalBatch(0, 128, 4, 1), "global batch"},
		{"CheckGlobalLen", spec.CheckGlobalLen(3, 3), spec.CheckGlobalLen(3, 2), "global size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.ok != nil {
				t.Fatalf("passing case reported %v", c.ok)
			}
			wantViolation(t, c.bad, c.invariant)
		})
	}
}

func TestSpecGrabWithoutRunNextTakingNothingNeedsAnEmptyRing(t *testing.T) {
	q := newQueue(seq(0, 1))
	if got, err := q.Grab(0, false); err == nil {
		t.Fatalf("Grab(0, false) on a ring of 1 = %v, want a violation: such a grab commits when the ring is empty", got)
	}
	if got, err := q.Grab(0, true); err != nil || got != nil {
		t.Fatalf("Grab(0, true) with no runnext = %v, %v; want nothing: the ring may have filled after the tail read", got, err)
	}
	if q.RingLen() != 1 {
		t.Fatalf("a Grab that took nothing changed the ring: %v", q.Ring())
	}
}
