package runq_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// item is what the tests queue: distinct pointers, told apart by id in
// failure messages.
type item struct{ id int }

func (g *item) String() string {
	if g == nil {
		return "nil"
	}
	return fmt.Sprint(g.id)
}

// makeItems returns n distinct items with ids 0..n-1.
func makeItems(n int) []*item {
	items := make([]item, n)
	ps := make([]*item, n)
	for i := range items {
		items[i].id = i
		ps[i] = &items[i]
	}
	return ps
}

// getAll takes every item out of q with Get, in the order Get returns them.
// Executed only by the owner of q.
func getAll(q *runq.Queue[item]) []*item {
	var out []*item
	for {
		g, _ := q.Get()
		if g == nil {
			return out
		}
		out = append(out, g)
	}
}

// fill puts gs on q's ring, failing the test on an unexpected overflow.
func fill(t *testing.T, q *runq.Queue[item], gs []*item) {
	t.Helper()
	for _, g := range gs {
		if ov := q.Put(g, false); ov != nil {
			t.Fatalf("Put(%v) overflowed %v", g, ov)
		}
	}
}

// mustPanic runs f and fails the test unless f panics with a message that
// contains want.
func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	var r any
	func() {
		defer func() { r = recover() }()
		f()
	}()
	if r == nil {
		t.Fatalf("no panic, want a panic containing %q", want)
	}
	if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
		t.Fatalf("panic %q does not contain %q", msg, want)
	}
}

// ringLen returns tail-head from the test hook. Only in a quiescent state.
func ringLen(q *runq.Queue[item]) uint32 {
	h, t := testhook.RunqCounters(q)
	return t - h
}

func failPause(t *testing.T) func() {
	return func() {
		t.Helper()
		t.Errorf("pause called, but the runnext steal path must not be reached")
	}
}

// TestSchedLocalQueue (the runtime's test, ported) with the queue's
// emptiness and length checked after every iteration too.
func TestGetReturnsTheSameItemPutUpToSizeMinusOneTimes(t *testing.T) {
	q := new(runq.Queue[item])
	items := makeItems(runq.Size)
	for i := range runq.Size {
		if !q.Empty() {
			t.Fatalf("iteration %d: queue not empty initially", i)
		}
		if g, _ := q.Get(); g != nil {
			t.Fatalf("iteration %d: Get on an empty queue returned %v", i, g)
		}
		for range i {
			if ov := q.Put(items[i], false); ov != nil {
				t.Fatalf("iteration %d: Put overflowed %d items", i, len(ov))
			}
		}
		for j := range i {
			g, inherit := q.Get()
			if g != items[i] || inherit {
				t.Fatalf("iteration %d/%d: Get = (%v, %v), want (%v, false)", i, j, g, inherit, items[i])
			}
		}
		if g, _ := q.Get(); g != nil {
			t.Fatalf("iteration %d: queue not empty afterwards, Get returned %v", i, g)
		}
		if !q.Empty() || q.Len() != 0 {
			t.Fatalf("iteration %d: Empty() = %v, Len() = %d after draining", i, q.Empty(), q.Len())
		}
	}
}

func TestGetReturnsDistinctRingItemsInFIFOOrder(t *testing.T) {
	q := new(runq.Queue[item])
	items := makeItems(runq.Size)
	for n := 0; n <= runq.Size; n++ {
		fill(t, q, items[:n])
		if q.Len() != n {
			t.Fatalf("n=%d: Len() = %d after %d puts", n, q.Len(), n)
		}
		for j := range n {
			g, inherit := q.Get()
			if g != items[j] || inherit {
				t.Fatalf("n=%d: Get #%d = (%v, %v), want (%v, false)", n, j, g, inherit, items[j])
			}
		}
		if g, _ := q.Get(); g != nil {
			t.Fatalf("n=%d: Get returned %v from a drained queue", n, g)
		}
	}
}

func TestGetReturnsRunNextFirstWithInheritTime(t *testing.T) {
	q := new(runq.Queue[item])
	items := makeItems(4)
	fill(t, q, items[:3])
	if ov := q.Put(items[3], true); ov != nil {
		t.Fatalf("Put(next) into an empty runnext overflowed %v", ov)
	}
	want := []struct {
		g       *item
		inherit bool
	}{{items[3], true}, {items[0], false}, {items[1], false}, {items[2], false}, {nil, false}}
	for i, w := range want {
		g, inherit := q.Get()
		if g != w.g || inherit != w.inherit {
			t.Fatalf("Get #%d = (%v, %v), want (%v, %v)", i, g, inherit, w.g, w.inherit)
		}
	}

	// runnext alone.
	q.Put(items[0], true)
	if g, inherit := q.Get(); g != items[0] || !inherit {
		t.Fatalf("Get = (%v, %v), want (%v, true)", g, inherit, items[0])
	}
}

func TestPutNextKicksOldRunNextToRingTail(t *testing.T) {
	q := new(runq.Queue[item])
	items := makeItems(4)
	fill(t, q, items[:2])
	q.Put(items[2], true)
	if ov := q.Put(items[3], true); ov != nil {
		t.Fatalf("kick-out into a ring with room overflowed %v", ov)
	}
	want := []*item{items[3], items[0], items[1], items[2]}
	if got := q.Drain(nil); !slices.Equal(got, want) {
		t.Fatalf("Drain = %v, want %v (new runnext, then the ring with the kicked item last)", got, want)
	}
}

// TestSchedLocalQueueSteal (the runtime's test, ported) made exact, on fresh
// queues. The runtime only asserts that the number stolen is i/2 or i/2+1;
// with nothing concurrent and runnext empty it is exactly ceil(i/2), and
// the stolen items are the oldest ceil(i/2), in FIFO order, the returned
// one being the last.
func TestStealIntoTakesCeilHalfOldestPrefixAndLosesNothing(t *testing.T) {
	items := makeItems(runq.Size)
	for i := 0; i <= runq.Size; i++ {
		p1, p2 := new(runq.Queue[item]), new(runq.Queue[item])
		fill(t, p1, items[:i])
		got := p1.StealInto(p2, true, failPause(t))

		var stolen []*item
		for {
			g, inherit := p2.Get()
			if g == nil {
				break
			}
			if inherit {
				t.Fatalf("i=%d: stolen ring item %v came back with inheritTime", i, g)
			}
			stolen = append(stolen, g)
		}
		if got != nil {
			stolen = append(stolen, got)
		}
		left := getAll(p1)

		seen := make(map[*item]int)
		for _, g := range append(slices.Clone(stolen), left...) {
			seen[g]++
		}
		for j := range i {
			if seen[items[j]] != 1 {
				t.Fatalf("i=%d: item %d seen %d times, want once", i, j, seen[items[j]])
			}
		}
		if len(seen) != i {
			t.Fatalf("i=%d: %d distinct items came out, %d went in", i, len(seen), i)
		}

		s := len(stolen)
		if s != i/2 && s != i/2+1 { // the runtime's own assertion
			t.Fatalf("i=%d: stole %d, the runtime wants %d or %d", i, s, i/2, i/2+1)
		}
		n := i - i/2
		if s != n {
			t.Fatalf("i=%d: stole %d, want ceil(%d/2) = %d", i, s, i, n)
		}
		if !slices.Equal(stolen, items[:n]) {
			t.Fatalf("i=%d: stolen (p2's ring, then the returned item) = %v, want the oldest prefix %v", i, stolen, items[:n])
		}
		if n > 0 && got != items[n-1] {
			t.Fatalf("i=%d: StealInto returned %v, want the last of the prefix, %v", i, got, items[n-1])
		}
		if !slices.Equal(left, items[n:i]) {
			t.Fatalf("i=%d: victim kept %v, want %v", i, left, items[n:i])
		}
	}
}

func TestStealIntoTakesRunNextOnlyFromEmptyRingWhenAsked(t *testing.T) {
	items := makeItems(1)
	p1, p2 := new(runq.Queue[item]), new(runq.Queue[item])
	p1.Put(items[0], true)

	if g := p1.StealInto(p2, false, failPause(t)); g != nil {
		t.Fatalf("StealInto(stealRunNext=false) took %v", g)
	}
	if p1.Len() != 1 {
		t.Fatalf("victim Len() = %d after a refused runnext steal, want 1", p1.Len())
	}

	pauses := 0
	if g := p1.StealInto(p2, true, func() { pauses++ }); g != items[0] {
		t.Fatalf("StealInto(stealRunNext=true) = %v, want runnext %v", g, items[0])
	}
	if pauses != 1 {
		t.Fatalf("pause called %d times, want 1", pauses)
	}
	if !p1.Empty() || !p2.Empty() || ringLen(p2) != 0 {
		t.Fatalf("after stealing runnext: victim empty %v, thief empty %v, thief ring %d; want both empty", p1.Empty(), p2.Empty(), ringLen(p2))
	}
}

func TestStealIntoPanicsWithoutTakingWhenDestinationLacksRoom(t *testing.T) {
	n := min(10, runq.Size) // source items
	items := makeItems(runq.Size + n)
	src, dst := new(runq.Queue[item]), new(runq.Queue[item])
	fill(t, src, items[:n])
	fill(t, dst, items[n:n+runq.Size/2+1])

	mustPanic(t, "room", func() { src.StealInto(dst, true, nil) })

	if got := src.Drain(nil); !slices.Equal(got, items[:n]) {
		t.Fatalf("source after the refused steal = %v, want it unchanged: %v", got, items[:n])
	}
	if got := dst.Drain(nil); !slices.Equal(got, items[n:n+runq.Size/2+1]) {
		t.Fatalf("destination after the refused steal = %v, want it unchanged", got)
	}
}

func TestStealIntoAcceptsDestinationWithExactlyHalfSize(t *testing.T) {
	items := makeItems(runq.Size + runq.Size/2)
	src, dst := new(runq.Queue[item]), new(runq.Queue[item])
	fill(t, src, items[:runq.Size])
	fill(t, dst, items[runq.Size:])

	g := src.StealInto(dst, true, nil)
	if g != items[runq.Size/2-1] {
		t.Fatalf("StealInto from a full ring returned %v, want %v", g, items[runq.Size/2-1])
	}
	if got := ringLen(dst); got != runq.Size-1 {
		t.Fatalf("destination ring holds %d, want Size-1 = %d", got, runq.Size-1)
	}
	want := append(slices.Clone(items[runq.Size:]), items[:runq.Size/2-1]...)
	if got := dst.Drain(nil); !slices.Equal(got, want) {
		t.Fatalf("destination = %v, want its own items then the stolen ones %v", got, want)
	}
}

func TestStealIntoFromItselfPanics(t *testing.T) {
	items := makeItems(3)
	q := new(runq.Queue[item])
	fill(t, q, items)
	mustPanic(t, "itself", func() { q.StealInto(q, true, nil) })
	if got := q.Drain(nil); !slices.Equal(got, items) {
		t.Fatalf("queue after the refused self-steal = %v, want %v", got, items)
	}
}

func TestPutOnFullRingOverflowsOldestHalfThenNewItem(t *testing.T) {
	items := makeItems(runq.Size + 1)
	q := new(runq.Queue[item])
	fill(t, q, items[:runq.Size])

	ov := q.Put(items[runq.Size], false)
	want := append(slices.Clone(items[:runq.Size/2]), items[runq.Size])
	if !slices.Equal(ov, want) {
		t.Fatalf("overflow = %v, want the %d oldest then the new item: %v", ov, runq.Size/2, want)
	}
	if q.Len() != runq.Size/2 {
		t.Fatalf("Len() = %d after overflow, want %d", q.Len(), runq.Size/2)
	}
	if got := getAll(q); !slices.Equal(got, items[runq.Size/2:runq.Size]) {
		t.Fatalf("queue kept %v, want the newer half in order", got)
	}
}

func TestPutNextOnFullRingOverflowsKickedRunNextLast(t *testing.T) {
	items := makeItems(runq.Size + 2)
	old, next := items[runq.Size], items[runq.Size+1]
	q := new(runq.Queue[item])
	fill(t, q, items[:runq.Size])
	if ov := q.Put(old, true); ov != nil {
		t.Fatalf("Put(next) with an empty runnext overflowed %v; the ring is not touched", ov)
	}

	ov := q.Put(next, true)
	want := append(slices.Clone(items[:runq.Size/2]), old)
	if !slices.Equal(ov, want) {
		t.Fatalf("overflow = %v, want the %d oldest then the kicked runnext: %v", ov, runq.Size/2, want)
	}
	if g, inherit := q.Get(); g != next || !inherit {
		t.Fatalf("Get = (%v, %v), want the new runnext (%v, true)", g, inherit, next)
	}
	if got := getAll(q); !slices.Equal(got, items[runq.Size/2:runq.Size]) {
		t.Fatalf("ring kept %v, want the newer half in order", got)
	}
}

func TestPutBatchFillsWhatFitsAndReturnsRest(t *testing.T) {
	items := makeItems(2*runq.Size + 10)

	q := new(runq.Queue[item])
	if rest := q.PutBatch(nil); rest != nil {
		t.Fatalf("PutBatch(nil) = %v, want nil", rest)
	}
	first := min(5, runq.Size-1)
	if rest := q.PutBatch(items[:first]); rest != nil {
		t.Fatalf("PutBatch of %d into an empty ring returned %v, want nil", first, rest)
	}
	batch := items[first : runq.Size+10]
	rest := q.PutBatch(batch)
	if want := batch[runq.Size-first:]; !slices.Equal(rest, want) {
		t.Fatalf("PutBatch returned %v, want the tail of its argument %v", rest, want)
	}
	if q.Len() != runq.Size {
		t.Fatalf("Len() = %d, want a full ring", q.Len())
	}
	if rest := q.PutBatch(items[runq.Size+10:]); len(rest) != runq.Size {
		t.Fatalf("PutBatch on a full ring placed %d items, want none", runq.Size-len(rest))
	}
	if got := getAll(q); !slices.Equal(got, items[:runq.Size]) {
		t.Fatalf("ring = %v, want %v", got, items[:runq.Size])
	}

	// With runnext set and a partly full ring, the batch goes after the ring.
	q.Put(items[0], true)
	fill(t, q, items[1:2])
	q.PutBatch(items[2 : 2+runq.Size-1])
	if got, want := q.Drain(nil), items[:2+runq.Size-1]; !slices.Equal(got, want) {
		t.Fatalf("Drain = %v, want %v", got, want)
	}
}

func TestPutBatchWithNilItemPanicsAndLeavesQueueUnchanged(t *testing.T) {
	items := makeItems(8)
	q := new(runq.Queue[item])
	fill(t, q, items[:3])
	mustPanic(t, "nil", func() { q.PutBatch([]*item{items[3], items[4], nil, items[5]}) })
	if q.Len() != 3 {
		t.Fatalf("Len() = %d after the panicking PutBatch, want 3", q.Len())
	}
	fill(t, q, items[6:7])
	if got, want := getAll(q), []*item{items[0], items[1], items[2], items[6]}; !slices.Equal(got, want) {
		t.Fatalf("queue = %v, want %v: nothing of the failed batch", got, want)
	}
}

// A nil among the items that do not fit must panic too, rather than travel
// on in rest to whoever puts the rest on the global queue.
func TestPutBatchPanicsOnNilItemThatDoesNotFit(t *testing.T) {
	items := makeItems(runq.Size)
	q := new(runq.Queue[item])
	fill(t, q, items)
	mustPanic(t, "nil", func() { q.PutBatch([]*item{nil}) })
}

func TestDrainReturnsRunNextThenRingFIFOAppendedToDst(t *testing.T) {
	items := makeItems(6)
	q := new(runq.Queue[item])
	sentinel := &item{id: -1}
	if got := q.Drain([]*item{sentinel}); !slices.Equal(got, []*item{sentinel}) {
		t.Fatalf("Drain of an empty queue = %v, want dst unchanged", got)
	}
	n := min(5, runq.Size) // ring items
	fill(t, q, items[:n])
	q.Put(items[5], true)
	got := q.Drain([]*item{sentinel})
	want := append([]*item{sentinel, items[5]}, items[:n]...)
	if !slices.Equal(got, want) {
		t.Fatalf("Drain = %v, want %v", got, want)
	}
	if !q.Empty() || q.Len() != 0 || ringLen(q) != 0 {
		t.Fatalf("after Drain: Empty %v, Len %d, ring %d", q.Empty(), q.Len(), ringLen(q))
	}
}

func TestGrabTakesCeilHalfOfObservedLengthAndNeverRunNextFromNonEmptyRing(t *testing.T) {
	items := makeItems(runq.Size + 1)
	next := items[runq.Size]
	batch := make([]*item, runq.Size/2)
	for l := 1; l <= runq.Size; l++ {
		q := new(runq.Queue[item])
		fill(t, q, items[:l])
		q.Put(next, true)
		clear(batch)

		n := q.Grab(batch, true, failPause(t))
		want := l - l/2
		if n != want {
			t.Fatalf("L=%d: Grab took %d, want ceil(L/2) = %d", l, n, want)
		}
		if !slices.Equal(batch[:n], items[:n]) {
			t.Fatalf("L=%d: Grab took %v, want the oldest %v", l, batch[:n], items[:n])
		}
		if g, inherit := q.Get(); g != next || !inherit {
			t.Fatalf("L=%d: runnext after the grab = (%v, %v), want (%v, true)", l, g, inherit, next)
		}
		if got := getAll(q); !slices.Equal(got, items[n:l]) {
			t.Fatalf("L=%d: ring kept %v, want %v", l, got, items[n:l])
		}
	}
}

func TestGrabTakesRunNextFromEmptyRingAfterPause(t *testing.T) {
	items := makeItems(1)
	q := new(runq.Queue[item])
	q.Put(items[0], true)
	batch := make([]*item, runq.Size/2)

	pauses := 0
	pause := func() {
		pauses++
		// Before the CAS: runnext is still in the queue.
		if q.Len() != 1 || q.Empty() {
			t.Errorf("during pause: Len() = %d, Empty() = %v; runnext should still be there", q.Len(), q.Empty())
		}
	}
	if n := q.Grab(batch, true, pause); n != 1 || batch[0] != items[0] {
		t.Fatalf("Grab = %d, %v, want 1, [%v]", n, batch[:n], items[0])
	}
	if pauses != 1 {
		t.Fatalf("pause called %d times, want exactly 1", pauses)
	}
	if !q.Empty() {
		t.Fatalf("queue not empty after its runnext was grabbed")
	}
}

func TestGrabWithoutStealRunNextNeverTakesRunNext(t *testing.T) {
	items := makeItems(1)
	q := new(runq.Queue[item])
	q.Put(items[0], true)
	if n := q.Grab(make([]*item, runq.Size/2), false, failPause(t)); n != 0 {
		t.Fatalf("Grab(stealRunNext=false) took %d", n)
	}
	if g, inherit := q.Get(); g != items[0] || !inherit {
		t.Fatalf("runnext = (%v, %v), want (%v, true)", g, inherit, items[0])
	}
	if n := q.Grab(make([]*item, runq.Size/2), true, failPause(t)); n != 0 {
		t.Fatalf("Grab on an empty queue took %d", n)
	}
}

// The runtime's pause exists so that a running owner can take its own
// runnext first; when it does, the thief's CAS fails and it finds nothing.
func TestGrabFindsNothingWhenOwnerTakesRunNextDuringPause(t *testing.T) {
	items := makeItems(1)
	q := new(runq.Queue[item])
	q.Put(items[0], true)
	var ownerGot *item
	n := q.Grab(make([]*item, runq.Size/2), true, func() { ownerGot, _ = q.Get() })
	if n != 0 || ownerGot != items[0] {
		t.Fatalf("Grab took %d and the owner got %v; want 0 and %v", n, ownerGot, items[0])
	}
}

// The thief decides on the ring it observed: if the ring was empty, it still
// takes runnext even when the owner appends to the ring during the pause
// (the runtime behaves the same; spec.Queue.Grab documents it).
func TestGrabTakesRunNextDecidedOnEmptyRingEvenIfRingFillsDuringPause(t *testing.T) {
	items := makeItems(2)
	q := new(runq.Queue[item])
	q.Put(items[0], true)
	batch := make([]*item, runq.Size/2)
	n := q.Grab(batch, true, func() { q.Put(items[1], false) })
	if n != 1 || batch[0] != items[0] {
		t.Fatalf("Grab = %d, %v, want runnext [%v]", n, batch[:n], items[0])
	}
	if got := q.Drain(nil); !slices.Equal(got, items[1:]) {
		t.Fatalf("queue = %v, want %v", got, items[1:])
	}
}

func TestGrabPanicsWhenBatchShorterThanHalfSize(t *testing.T) {
	items := makeItems(4)
	q := new(runq.Queue[item])
	fill(t, q, items)
	mustPanic(t, "batch", func() { q.Grab(make([]*item, runq.Size/2-1), true, nil) })
	if q.Len() != len(items) {
		t.Fatalf("Len() = %d after the refused grab, want %d", q.Len(), len(items))
	}
	if n := q.Grab(make([]*item, runq.Size/2), true, nil); n != 2 {
		t.Fatalf("Grab with a batch of exactly Size/2 took %d, want 2", n)
	}
}

func TestPutNilPanicsAndLeavesQueueUnchanged(t *testing.T) {
	items := makeItems(2)
	q := new(runq.Queue[item])
	fill(t, q, items[:1])
	q.Put(items[1], true)
	mustPanic(t, "nil", func() { q.Put(nil, false) })
	mustPanic(t, "nil", func() { q.Put(nil, true) })
	if got, want := q.Drain(nil), []*item{items[1], items[0]}; !slices.Equal(got, want) {
		t.Fatalf("queue = %v, want %v", got, want)
	}
}

func TestLenAndEmptyAgreeWithContentSequentially(t *testing.T) {
	items := makeItems(runq.Size + 2)
	q := new(runq.Queue[item])
	want := 0
	check := func(step string) {
		t.Helper()
		if q.Len() != want || q.Empty() != (want == 0) {
			t.Fatalf("%s: Len() = %d, Empty() = %v, want %d items", step, q.Len(), q.Empty(), want)
		}
	}
	check("new")
	q.Put(items[0], true)
	want++
	check("runnext only")
	for i := 1; i <= runq.Size; i++ {
		q.Put(items[i], false)
		want++
		check(fmt.Sprintf("after %d ring puts", i))
	}
	if ov := q.Put(items[runq.Size+1], false); len(ov) != runq.Size/2+1 {
		t.Fatalf("overflow of %d items, want %d", len(ov), runq.Size/2+1)
	}
	want -= runq.Size / 2
	check("after overflow")
	q.Get()
	want--
	check("after taking runnext")
	q.Grab(make([]*item, runq.Size/2), true, nil)
	want -= runq.Size / 4
	check("after grab")
	for want > 0 {
		q.Get()
		want--
		check("draining")
	}
}

func TestCountersWrapAroundKeepingFIFOLengthAndConservation(t *testing.T) {
	const half = runq.Size / 2
	for _, start := range []uint32{1<<32 - 3, 1<<32 - half, 1<<32 - runq.Size - 1, 1<<32 - 1} {
		t.Run(fmt.Sprintf("start=2^32-%d", -start), func(t *testing.T) {
			items := makeItems(runq.Size + 3)
			q, thief := new(runq.Queue[item]), new(runq.Queue[item])
			testhook.RunqStartAt(q, start)
			testhook.RunqStartAt(thief, start)
			counters := func(step string, wantHead uint32, wantLen int) {
				t.Helper()
				h, tl := testhook.RunqCounters(q)
				if h != wantHead || tl-h != uint32(wantLen) {
					t.Fatalf("%s: head %d, tail %d (tail-head %d); want head %d, tail-head %d", step, h, tl, tl-h, wantHead, wantLen)
				}
				if q.Len() != wantLen || q.Empty() != (wantLen == 0) {
					t.Fatalf("%s: Len() = %d, Empty() = %v, want %d ring items and no runnext", step, q.Len(), q.Empty(), wantLen)
				}
			}

			fill(t, q, items[:runq.Size])
			counters("full", start, runq.Size)

			ov := q.Put(items[runq.Size], false)
			if want := append(slices.Clone(items[:half]), items[runq.Size]); !slices.Equal(ov, want) {
				t.Fatalf("overflow across the wrap = %v, want %v", ov, want)
			}
			counters("after overflow", start+half, half)

			gets := min(3, half-1)
			for j := range gets {
				if g, _ := q.Get(); g != items[half+j] {
					t.Fatalf("Get = %v, want %v", g, items[half+j])
				}
			}
			counters("after the gets", start+half+uint32(gets), half-gets)

			l := half - gets
			n := l - l/2
			stolenFirst := half + gets
			g := q.StealInto(thief, false, nil)
			if g != items[stolenFirst+n-1] {
				t.Fatalf("StealInto = %v, want %v", g, items[stolenFirst+n-1])
			}
			if got := getAll(thief); !slices.Equal(got, items[stolenFirst:stolenFirst+n-1]) {
				t.Fatalf("thief ring = %v, want %v", got, items[stolenFirst:stolenFirst+n-1])
			}
			counters("after steal", start+uint32(stolenFirst+n), l-n)

			q.Put(items[runq.Size+1], true)
			q.Put(items[runq.Size+2], false)
			want := append([]*item{items[runq.Size+1]}, items[stolenFirst+n:runq.Size]...)
			want = append(want, items[runq.Size+2])
			if got := q.Drain(nil); !slices.Equal(got, want) {
				t.Fatalf("Drain = %v, want %v", got, want)
			}
			h, tl := testhook.RunqCounters(q)
			if h != tl || !q.Empty() {
				t.Fatalf("after Drain: head %d, tail %d, Empty %v", h, tl, q.Empty())
			}
			if wantTail := start + runq.Size + 1; tl != wantTail {
				t.Fatalf("tail = %d, want %d: the tail moved once per ring append", tl, wantTail)
			}
		})
	}
}

// TestQueueAgreesWithSpecAcrossCounterWraparound runs random sequential
// operations on two queues whose counters start near 2^32 and on their
// models, and compares every result, Len, Empty and the counters.
func TestQueueAgreesWithSpecAcrossCounterWraparound(t *testing.T) {
	starts := []uint32{0, 1<<32 - 3, 1<<32 - runq.Size/2, 1<<32 - runq.Size - 1, 1<<32 - 1}
	ops, seeds := 3000, uint64(3)
	if testing.Short() {
		ops, seeds = 600, 1
	}
	for _, start := range starts {
		for seed := uint64(1); seed <= seeds; seed++ {
			t.Run(fmt.Sprintf("start=%#x/seed=%d", start, seed), func(t *testing.T) {
				runAgainstSpec(t, start, seed, ops)
			})
		}
	}
}

func runAgainstSpec(t *testing.T, start uint32, seed uint64, ops int) {
	rng := rand.New(rand.NewPCG(seed, uint64(start)))
	type side struct {
		name       string
		start      uint32
		q          *runq.Queue[item]
		m          *spec.Queue[*item]
		head, tail uint32
		wrapped    bool
	}
	v := &side{name: "victim", q: new(runq.Queue[item]), m: spec.NewQueue[*item](runq.Size)}
	th := &side{name: "thief", q: new(runq.Queue[item]), m: spec.NewQueue[*item](runq.Size)}
	for i, s := range []*side{v, th} {
		s.start = start + uint32(i)*runq.Size/3
		s.head, s.tail = s.start, s.start
		testhook.RunqStartAt(s.q, s.start)
	}

	var ledger spec.Ledger[*item]
	nextID := 0
	fresh := func() *item {
		g := &item{id: nextID}
		nextID++
		if err := ledger.Enter(g); err != nil {
			t.Fatal(err)
		}
		return g
	}
	leave := func(gs ...*item) {
		t.Helper()
		for _, g := range gs {
			if err := ledger.Leave(g); err != nil {
				t.Fatal(err)
			}
		}
	}
	same := func(op string, got, want []*item) {
		t.Helper()
		if !slices.Equal(got, want) || (got == nil) != (want == nil) {
			t.Fatalf("%s = %v, the model says %v", op, got, want)
		}
	}
	check := func(step int, op string) {
		t.Helper()
		for _, s := range []*side{v, th} {
			if s.q.Len() != s.m.Len() || s.q.Empty() != s.m.Empty() {
				t.Fatalf("step %d (%s): %s Len() = %d, Empty() = %v; the model has %d items", step, op, s.name, s.q.Len(), s.q.Empty(), s.m.Len())
			}
			h, tl := testhook.RunqCounters(s.q)
			if int(tl-h) != s.m.RingLen() {
				t.Fatalf("step %d (%s): %s tail-head = %d, the model's ring holds %d", step, op, s.name, tl-h, s.m.RingLen())
			}
			if err := spec.CheckCounters(runq.Size, h, tl); err != nil {
				t.Fatalf("step %d (%s): %s: %v", step, op, s.name, err)
			}
			if err := spec.CheckMonotonic(s.head, s.tail, h, tl); err != nil {
				t.Fatalf("step %d (%s): %s: %v", step, op, s.name, err)
			}
			if tl < s.tail {
				s.wrapped = true
			}
			s.head, s.tail = h, tl
		}
	}

	bias := 0.5
	for step := range ops {
		if step%150 == 0 {
			bias = 0.2 + 0.7*rng.Float64() // phases that fill and phases that empty
		}
		var op string
		switch r := rng.Float64(); {
		case r < bias*0.8:
			s := v
			if rng.IntN(6) == 0 {
				s = th
			}
			g, next := fresh(), rng.IntN(3) == 0
			op = fmt.Sprintf("%s.Put(%v, %v)", s.name, g, next)
			ringBefore := s.m.RingLen()
			_, hadNext := s.m.RunNext()
			got := s.q.Put(g, next)
			same(op, got, s.m.Put(g, next))
			if !next || hadNext { // something was appended to the ring
				if err := spec.CheckOverflow(runq.Size, ringBefore, len(got)); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
			}
			leave(got...) // to the global queue
		case r < bias:
			gs := make([]*item, rng.IntN(40))
			for i := range gs {
				gs[i] = fresh()
			}
			op = fmt.Sprintf("victim.PutBatch(%d items)", len(gs))
			rest := v.q.PutBatch(gs)
			same(op, rest, v.m.PutBatch(gs))
			leave(rest...)
		default:
			switch rng.IntN(8) {
			case 0, 1, 2:
				s := v
				if rng.IntN(2) == 0 {
					s = th
				}
				op = s.name + ".Get"
				g, inherit := s.q.Get()
				wg, ok, winherit := s.m.Get()
				if (g != nil) != ok || g != wg || inherit != winherit {
					t.Fatalf("%s = (%v, %v), the model says (%v, %v, ok=%v)", op, g, inherit, wg, winherit, ok)
				}
				if g != nil {
					leave(g)
				}
			case 3, 4:
				observed, srn := v.m.RingLen(), rng.IntN(2) == 0
				op = fmt.Sprintf("victim.Grab(observed %d, stealRunNext %v)", observed, srn)
				pauses := 0
				batch := make([]*item, runq.Size/2)
				n := v.q.Grab(batch, srn, func() { pauses++ })
				want, err := v.m.Grab(observed, srn)
				if err != nil {
					t.Fatalf("%s: model: %v", op, err)
				}
				if !slices.Equal(batch[:n], want) {
					t.Fatalf("%s took %v, the model says %v", op, batch[:n], want)
				}
				tookRunNext := observed == 0 && n == 1
				if (pauses == 1) != tookRunNext || pauses > 1 {
					t.Fatalf("%s: pause called %d times, took runnext %v", op, pauses, tookRunNext)
				}
				if err := spec.CheckGrab(runq.Size, n, tookRunNext); err != nil {
					t.Fatalf("%s: %v", op, err)
				}
				leave(batch[:n]...)
			case 5:
				observed, srn := v.m.RingLen(), rng.IntN(2) == 0
				op = fmt.Sprintf("victim.StealInto(thief, observed %d, stealRunNext %v)", observed, srn)
				wg, ok, err := v.m.StealInto(th.m, observed, srn)
				if err != nil {
					var viol *spec.Violation
					if !errors.As(err, &viol) || viol.Invariant != "bounds" {
						t.Fatalf("%s: model: %v", op, err)
					}
					mustPanic(t, "room", func() { v.q.StealInto(th.q, srn, nil) })
					break
				}
				g := v.q.StealInto(th.q, srn, nil)
				if (g != nil) != ok || g != wg {
					t.Fatalf("%s = %v, the model says %v (ok=%v)", op, g, wg, ok)
				}
				if g != nil {
					leave(g)
				}
			case 6:
				op = "thief.Drain"
				got := th.q.Drain(nil)
				same(op, got, th.m.Drain())
				leave(got...)
			case 7:
				op = "victim.Drain"
				if rng.IntN(3) != 0 {
					op = "thief.Get"
					g, _ := th.q.Get()
					wg, _, _ := th.m.Get()
					if g != wg {
						t.Fatalf("%s = %v, the model says %v", op, g, wg)
					}
					if g != nil {
						leave(g)
					}
					break
				}
				got := v.q.Drain(nil)
				same(op, got, v.m.Drain())
				leave(got...)
			}
		}
		check(step, op)
	}

	for _, s := range []*side{v, th} {
		got := s.q.Drain(nil)
		same(s.name+".Drain at the end", got, s.m.Drain())
		leave(got...)
		if s == v && s.start >= 1<<32-runq.Size/2 && !s.wrapped {
			t.Errorf("%s: the tail never wrapped around 2^32; the test did not test wraparound", s.name)
		}
	}
	if n := ledger.Live(); n != 0 {
		t.Fatalf("%d items lost", n)
	}
}

// TestSchedLocalQueueEmpty (the runtime's test, ported) made stronger: while
// the owner puts a second item and takes one, the queue always holds at
// least one item, so a concurrent Empty must never report true. Every
// combination of runnext and ring for the two items is covered. Unlike the
// runtime's test, the helper calls Empty again and again until the owner is
// done, not once, so that some call straddles the owner's kick-out of
// runnext into the ring.
func TestEmptyNeverFalselyTrue(t *testing.T) {
	if runtime.NumCPU() < 2 || runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("needs two goroutines running in parallel to reach the race (NumCPU %d, GOMAXPROCS %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	}
	iters, budget := 100_000, 2*time.Second
	if testing.Short() {
		iters = 1_000
	}
	items := makeItems(2)
	a, b := items[0], items[1]
	q := new(runq.Queue[item])

	// Per iteration i (from 1): both goroutines add to arrived and wait
	// until it reaches 2i (the barrier); the owner sets ownerDone to i after
	// its Put and Get; the helper sets checked to i after its last Empty.
	var arrived, ownerDone, checked, falseEmpty atomic.Int64
	var stop atomic.Bool
	spinUntil := func(cond func() bool) bool {
		for k := 0; !cond(); k++ {
			if stop.Load() {
				return false
			}
			if k%64 == 63 {
				runtime.Gosched()
			}
		}
		return true
	}
	helperDone := make(chan struct{})
	t.Cleanup(func() { // also on a failure below: do not leave the helper spinning
		stop.Store(true)
		<-helperDone
	})
	go func() {
		defer close(helperDone)
		for i := int64(1); ; i++ {
			arrived.Add(1)
			if !spinUntil(func() bool { return arrived.Load() >= 2*i }) {
				return
			}
			for {
				done := ownerDone.Load() >= i
				if q.Empty() {
					falseEmpty.CompareAndSwap(0, i)
				}
				if done {
					break
				}
			}
			checked.Store(i)
		}
	}()

	began := time.Now()
	n := 0
	for ; n < iters && (n%256 != 0 || time.Since(began) < budget); n++ {
		next0, next1 := n&1 == 0, n&2 == 0
		q.Put(a, next0)
		arrived.Add(1)
		i := int64(n + 1)
		spinUntil(func() bool { return arrived.Load() >= 2*i })
		q.Put(b, next1)
		q.Get()
		ownerDone.Store(i)
		spinUntil(func() bool { return checked.Load() >= i })
		if bad := falseEmpty.Load(); bad != 0 {
			stop.Store(true)
			<-helperDone
			bad--
			t.Fatalf("iteration %d: Empty() reported true with an item queued throughout (next0 %v, next1 %v)", bad, bad&1 == 0, bad&2 == 0)
		}
		if left := getAll(q); len(left) != 1 {
			t.Fatalf("iteration %d: %d items left after put, put, get; want 1", n, len(left))
		}
	}
	stop.Store(true)
	<-helperDone
	if n < 4 {
		t.Fatalf("only %d iterations ran; the four runnext/ring combinations were not all covered", n)
	}
	t.Logf("%d iterations", n)
}

// TestConcurrentStealsConsumeEveryItemExactlyOnce lets an owner put, get and
// drain while two thieves steal into their own queues, and checks that every
// item is consumed exactly once, counting overflow batches as consumed. The
// owner writes each item's id with a plain store before putting it and the
// consumers read it plainly, so the race detector also checks that the queue
// publishes items safely.
func TestConcurrentStealsConsumeEveryItemExactlyOnce(t *testing.T) {
	// A lost or doubled item shows only when the owner and a thief really
	// run at the same moment, which a machine busy with other test
	// processes grants rarely. So the test runs independent rounds for at
	// least minDuration (at most maxRounds), each checked on its own.
	n, budget, minDuration, maxRounds := 200_000, 2*time.Second, time.Second, 20
	if testing.Short() {
		n, minDuration = 5_000, 0
	}
	began := time.Now()
	for round := 0; round < maxRounds && (round == 0 || time.Since(began) < minDuration); round++ {
		stealRound(t, n, budget)
		if t.Failed() {
			t.Fatalf("round %d failed", round)
		}
	}
}

// stealRound has one owner put, get and drain n items while two thieves
// steal from it, and checks that every item is consumed exactly once.
func stealRound(t *testing.T, n int, budget time.Duration) {
	items := make([]item, n)
	consumed := make([]atomic.Int32, n)
	var overflowed, stolen, ownerGot, steals atomic.Int64
	consume := func(g *item, by *atomic.Int64) {
		consumed[g.id].Add(1)
		by.Add(1)
	}

	owner := new(runq.Queue[item])
	var stop atomic.Bool
	var wg sync.WaitGroup
	for th := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine := new(runq.Queue[item])
			var pause func()
			if th == 1 {
				pause = runtime.Gosched
			}
			for k := 0; !stop.Load(); k++ {
				g := owner.StealInto(mine, k%2 == 0, pause)
				if g == nil {
					runtime.Gosched()
					continue
				}
				if l := owner.Len(); l > runq.Size+1 {
					t.Errorf("victim Len() = %d, more than Size+1", l)
				}
				steals.Add(1)
				consume(g, &stolen)
				for {
					g, inherit := mine.Get()
					if g == nil {
						break
					}
					if inherit {
						t.Errorf("a stolen item came back from the thief's runnext")
					}
					consume(g, &stolen)
				}
			}
			if !mine.Empty() {
				t.Errorf("thief %d kept items", th)
			}
		}()
	}

	began := time.Now()
	produced := 0
	var drained []*item
	batch := make([]*item, 0, runq.Size)
	for iter := 0; produced < n; iter++ {
		if iter%256 == 0 && time.Since(began) > budget {
			break
		}
		// Keep the thieves in the race: on a loaded machine the owner could
		// otherwise produce everything before they are scheduled, and the
		// test would check nothing concurrent. Wait until they have made
		// one steal per 64 items produced (bounded by the time budget).
		for iter%64 == 0 && steals.Load() < int64(produced/64) && time.Since(began) < budget {
			runtime.Gosched()
		}
		switch {
		case produced%997 == 0 && produced+runq.Size <= n:
			// A burst that fills the ring, so that Puts overflow.
			batch = batch[:0]
			for range runq.Size {
				g := &items[produced]
				g.id = produced
				produced++
				batch = append(batch, g)
			}
			for _, g := range owner.PutBatch(batch) {
				consume(g, &overflowed)
			}
			continue
		case produced%4099 == 0:
			drained = owner.Drain(drained[:0])
			for _, g := range drained {
				consume(g, &ownerGot)
			}
		}
		g := &items[produced]
		g.id = produced
		produced++
		for _, o := range owner.Put(g, produced%3 == 0) {
			consume(o, &overflowed)
		}
		if produced%5 == 0 {
			if g, _ := owner.Get(); g != nil {
				consume(g, &ownerGot)
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	for _, g := range owner.Drain(nil) {
		consume(g, &ownerGot)
	}

	for i := range produced {
		if c := consumed[i].Load(); c != 1 {
			t.Fatalf("item %d consumed %d times, want exactly once", i, c)
		}
	}
	for i := produced; i < n; i++ {
		if c := consumed[i].Load(); c != 0 {
			t.Fatalf("item %d was never produced but consumed %d times", i, c)
		}
	}
	if total := overflowed.Load() + stolen.Load() + ownerGot.Load(); total != int64(produced) {
		t.Fatalf("consumed %d items, produced %d", total, produced)
	}
	t.Logf("produced %d: owner got %d, thieves stole %d in %d steals, overflow %d", produced, ownerGot.Load(), stolen.Load(), steals.Load(), overflowed.Load())
}

func TestQueueOperationsDoNotAllocate(t *testing.T) {
	items := makeItems(runq.Size + runq.Size/2 + 1)
	a, b := items[0], items[1]
	q, thief := new(runq.Queue[item]), new(runq.Queue[item])
	batch := make([]*item, runq.Size/2)

	full := new(runq.Queue[item])
	fill(t, full, items[:runq.Size])
	refill := items[runq.Size : runq.Size+runq.Size/2]
	extra := items[len(items)-1]

	cases := []struct {
		name string
		f    func()
	}{
		{"Put+Get", func() { q.Put(a, false); q.Get() }},
		{"Put(next)+Get", func() { q.Put(a, true); q.Get() }},
		{"Put(next) kick-out+Get", func() { q.Put(a, true); q.Put(b, true); q.Get(); q.Get() }},
		{"Grab", func() {
			q.Put(a, false)
			q.Put(b, false)
			q.Grab(batch, true, nil)
			q.Get()
		}},
		{"StealInto", func() {
			q.Put(a, false)
			q.Put(b, false)
			q.Put(extra, false)
			thief.Put(q.StealInto(thief, true, nil), false)
			thief.Drain(batch[:0])
			q.Drain(batch[:0])
		}},
		{"overflowing Put", func() {
			if rest := full.PutBatch(refill); rest != nil {
				panic("refill did not fit")
			}
			if ov := full.Put(extra, false); len(ov) != runq.Size/2+1 {
				panic("Put did not overflow")
			}
		}},
	}
	// Bring "overflowing Put" to its steady state: a ring of Size/2 items.
	full.Put(extra, false)
	for _, c := range cases {
		if allocs := testing.AllocsPerRun(200, c.f); allocs != 0 {
			t.Errorf("%s: %v allocations per run, want 0", c.name, allocs)
		}
	}
}
