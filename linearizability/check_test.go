package linearizability

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

func op(client int, call, ret int64, in Input, out Output) porcupine.Operation {
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func check(t *testing.T, procs int, ops []porcupine.Operation) porcupine.CheckResult {
	t.Helper()
	res, err := Checker{Procs: procs, RingSize: 4}.Check(ops)
	if err != nil && !errors.Is(err, ErrNotLinearizable) {
		t.Fatal(err)
	}
	return res
}

func TestEmptyTrueWhileAnItemStaysInTheQueueIsIllegal(t *testing.T) {
	// runqempty's hard case: item 1 moves from runnext to the ring while
	// Empty runs; the queue is never empty.
	ops := []porcupine.Operation{
		op(0, 1, 2, Input{Op: Put, Items: []int{1}, Next: true}, Output{}),
		op(1, 3, 10, Input{Op: Empty}, Output{Empty: true}),
		op(0, 4, 5, Input{Op: Put, Items: []int{2}, Next: true}, Output{}),
		op(0, 6, 7, Input{Op: Get}, Output{Items: []int{2}, InheritTime: true}),
		op(0, 11, 12, Input{Op: Drain}, Output{Items: []int{1}}),
	}
	if res := check(t, 1, ops); res != porcupine.Illegal {
		t.Fatalf("got %v, want Illegal", res)
	}
}

func TestGetIsEmptyOnlyOnAnEmptyQueueAndInheritsTimeOnlyFromRunNext(t *testing.T) {
	// Sequential histories of one owner: runqget returns nothing only when
	// the queue holds nothing, and reports inheritTime exactly for the
	// runnext item.
	put := func(call int64, g int, next bool) porcupine.Operation {
		return op(0, call, call+1, Input{Op: Put, Items: []int{g}, Next: next}, Output{})
	}
	get := func(call int64, out Output) porcupine.Operation {
		return op(0, call, call+1, Input{Op: Get}, out)
	}
	drain := func(call int64, gs ...int) porcupine.Operation {
		return op(0, call, call+1, Input{Op: Drain}, Output{Items: gs})
	}
	for _, c := range []struct {
		name string
		ops  []porcupine.Operation
		want porcupine.CheckResult
	}{
		{"runnext item, inheriting", []porcupine.Operation{put(1, 1, true), get(3, Output{Items: []int{1}, InheritTime: true})}, porcupine.Ok},
		{"runnext item, not inheriting", []porcupine.Operation{put(1, 1, true), get(3, Output{Items: []int{1}})}, porcupine.Illegal},
		{"ring item, not inheriting", []porcupine.Operation{put(1, 1, false), get(3, Output{Items: []int{1}})}, porcupine.Ok},
		{"ring item, inheriting", []porcupine.Operation{put(1, 1, false), get(3, Output{Items: []int{1}, InheritTime: true})}, porcupine.Illegal},
		{"nothing from an empty queue", []porcupine.Operation{get(1, Output{})}, porcupine.Ok},
		{"nothing while a ring item stays", []porcupine.Operation{put(1, 1, false), get(3, Output{}), drain(5, 1)}, porcupine.Illegal},
		{"nothing while runnext stays", []porcupine.Operation{put(1, 1, true), get(3, Output{}), drain(5, 1)}, porcupine.Illegal},
	} {
		t.Run(c.name, func(t *testing.T) {
			if res := check(t, 1, c.ops); res != c.want {
				t.Fatalf("got %v, want %v", res, c.want)
			}
		})
	}
}

func TestThiefMaySeeRunNextTakenBeforeTheDisplacedItemReachesTheRing(t *testing.T) {
	// Put(2, next) installs 2 in runnext before it appends the displaced
	// 1 to the ring: a thief may steal 2 and then find the queue empty
	// while the Put is still running.
	ops := []porcupine.Operation{
		op(0, 1, 2, Input{Op: Put, Items: []int{1}, Next: true}, Output{}),
		op(0, 3, 10, Input{Op: Put, Items: []int{2}, Next: true}, Output{}),
		op(1, 4, 5, Input{Op: Grab, StealRunNext: true}, Output{Items: []int{2}}),
		op(1, 6, 7, Input{Op: Empty}, Output{Empty: true}),
		op(0, 11, 12, Input{Op: Drain}, Output{Items: []int{1}}),
	}
	if res := check(t, 1, ops); res != porcupine.Ok {
		t.Fatalf("got %v, want Ok", res)
	}
	// Once the owner has started its next operation, the displaced item
	// is in the ring.
	ops[3] = op(0, 11, 12, Input{Op: Put, Items: []int{3}}, Output{})
	ops[4] = op(1, 13, 14, Input{Op: Empty}, Output{Empty: true})
	ops = append(ops, op(0, 15, 16, Input{Op: Drain}, Output{Items: []int{1, 3}}))
	if res := check(t, 1, ops); res != porcupine.Illegal {
		t.Fatalf("Empty after the owner's next operation: got %v, want Illegal", res)
	}
}

func TestStealTakesAtMostHalfOfTheRingAtItsLinearizationPoint(t *testing.T) {
	puts := []porcupine.Operation{
		op(0, 1, 2, Input{Op: PutBatch, Items: []int{1, 2, 3}}, Output{}),
	}
	for _, tc := range []struct {
		took []int
		want porcupine.CheckResult
	}{
		{[]int{1}, porcupine.Ok},
		{[]int{1, 2}, porcupine.Ok},
		{[]int{1, 2, 3}, porcupine.Illegal}, // ceil(3/2) = 2
		{[]int{2}, porcupine.Illegal},       // not the oldest
	} {
		ops := append(puts, op(1, 3, 4, Input{Op: Grab}, Output{Items: tc.took}))
		if res := check(t, 1, ops); res != tc.want {
			t.Errorf("grab of %v from [1 2 3]: got %v, want %v", tc.took, res, tc.want)
		}
	}
}

// A steal from a ring that holds items at every moment of its interval
// takes some: giving up (after a lost race, say) must retry.
func TestStealOfANonEmptyRingTakesSomething(t *testing.T) {
	for _, o := range []Op{Grab, StealInto} {
		ops := []porcupine.Operation{
			op(0, 1, 2, Input{Op: Put, P: 0, Items: []int{1}}, Output{}),
			op(0, 3, 4, Input{Op: Put, P: 0, Items: []int{2}}, Output{}),
			op(1, 5, 6, Input{Op: o, P: 0, Dst: 1}, Output{}),
			op(0, 7, 8, Input{Op: Drain, P: 0}, Output{Items: []int{1, 2}}),
		}
		if res := check(t, 2, ops); res != porcupine.Illegal {
			t.Errorf("%v that took nothing from [1 2]: got %v, want Illegal", o, res)
		}
	}
}

// PutBatch keeps every item that fits: what it hands back is decided by
// the room in the ring, and an empty ring of 4 has room for 3.
func TestPutBatchKeepsEveryItemThatFits(t *testing.T) {
	for _, rest := range [][]int{{3}, {1, 2, 3}} {
		kept := []int{1, 2, 3}[:3-len(rest)]
		ops := []porcupine.Operation{
			op(0, 1, 2, Input{Op: PutBatch, P: 0, Items: []int{1, 2, 3}}, Output{Items: rest}),
			op(0, 3, 4, Input{Op: Drain, P: 0}, Output{Items: kept}),
		}
		if res := check(t, 1, ops); res != porcupine.Illegal {
			t.Errorf("PutBatch of [1 2 3] into an empty ring handing back %v: got %v, want Illegal", rest, res)
		}
	}
}

func TestStealIntoMovesTheOldestItemsToTheThiefsRing(t *testing.T) {
	ops := []porcupine.Operation{
		op(0, 1, 2, Input{Op: PutBatch, P: 0, Items: []int{1, 2, 3, 4}}, Output{}),
		op(1, 3, 4, Input{Op: StealInto, P: 0, Dst: 1}, Output{Items: []int{2}}),
		op(1, 5, 6, Input{Op: Get, P: 1}, Output{Items: []int{1}}),
		op(0, 7, 8, Input{Op: Drain, P: 0}, Output{Items: []int{3, 4}}),
	}
	if res := check(t, 2, ops); res != porcupine.Ok {
		t.Fatalf("got %v, want Ok", res)
	}
	ops[2] = op(1, 5, 6, Input{Op: Get, P: 1}, Output{Items: []int{3}})
	if res := check(t, 2, ops); res != porcupine.Illegal {
		t.Fatalf("thief gets an item it did not steal: got %v, want Illegal", res)
	}
}

func TestGlobalQueueIsAFIFOWithFairShareBatches(t *testing.T) {
	ops := []porcupine.Operation{
		op(0, 1, 2, Input{Op: GlobalPutBatch, Items: []int{1, 2, 3, 4}}, Output{}),
		op(1, 3, 4, Input{Op: GlobalGetBatch, Max: 2, Procs: 2}, Output{Items: []int{1, 2}}),
		op(0, 5, 6, Input{Op: GlobalGet}, Output{Items: []int{3}}),
	}
	if res := check(t, 1, ops); res != porcupine.Ok {
		t.Fatalf("got %v, want Ok", res)
	}
	ops[1] = op(1, 3, 4, Input{Op: GlobalGetBatch, Max: 2, Procs: 2}, Output{Items: []int{1}})
	if res := check(t, 1, ops); res != porcupine.Illegal {
		t.Fatalf("a batch smaller than the fair share: got %v, want Illegal", res)
	}
}

func TestGrabHandsOutTheOldestItemsOldestFirst(t *testing.T) {
	for _, tc := range []struct {
		took []int
		want porcupine.CheckResult
	}{
		{[]int{1, 2}, porcupine.Ok},
		{[]int{2, 1}, porcupine.Illegal},
	} {
		ops := []porcupine.Operation{
			op(0, 1, 2, Input{Op: PutBatch, Items: []int{1, 2, 3, 4}}, Output{}),
			op(1, 3, 4, Input{Op: Grab}, Output{Items: tc.took}),
			op(0, 5, 6, Input{Op: Drain}, Output{Items: []int{3, 4}}),
		}
		if res := check(t, 1, ops); res != tc.want {
			t.Errorf("grab of %v from [1 2 3 4]: got %v, want %v", tc.took, res, tc.want)
		}
	}
}

func TestGrabOfRunNextFromAnEmptyRingTakesIt(t *testing.T) {
	// Sequentially, nobody races the thief for runnext: a grab that may
	// steal it and finds the ring empty takes it.
	for _, tc := range []struct {
		took, left []int
		want       porcupine.CheckResult
	}{
		{[]int{1}, nil, porcupine.Ok},
		{nil, []int{1}, porcupine.Illegal},
	} {
		ops := []porcupine.Operation{
			op(0, 1, 2, Input{Op: Put, Items: []int{1}, Next: true}, Output{}),
			op(1, 3, 4, Input{Op: Grab, StealRunNext: true}, Output{Items: tc.took}),
			op(0, 5, 6, Input{Op: Drain}, Output{Items: tc.left}),
		}
		if res := check(t, 1, ops); res != tc.want {
			t.Errorf("grab of %v from runnext [1]: got %v, want %v", tc.took, res, tc.want)
		}
	}
}

func TestGlobalBatchIsExactlyTheFairShareCappedAtMax(t *testing.T) {
	// Four items, two Ps: the fair share is 4/2+1 = 3, so a batch takes
	// min(max, 3). Each history goes on with what the batch left, so only
	// the batch's size can make it illegal.
	for _, tc := range []struct {
		max  int
		took []int
		want porcupine.CheckResult
	}{
		{2, []int{1, 2}, porcupine.Ok},
		{2, []int{1}, porcupine.Illegal},       // under the cap and the share
		{2, []int{1, 2, 3}, porcupine.Illegal}, // over the cap
		{4, []int{1, 2, 3}, porcupine.Ok},
		{4, []int{1, 2, 3, 4}, porcupine.Illegal}, // over the share
	} {
		ops := []porcupine.Operation{
			op(0, 1, 2, Input{Op: GlobalPutBatch, Items: []int{1, 2, 3, 4}}, Output{}),
			op(1, 3, 4, Input{Op: GlobalGetBatch, Max: tc.max, Procs: 2}, Output{Items: tc.took}),
		}
		for call, g := int64(5), len(tc.took)+1; g <= 4; call, g = call+2, g+1 {
			ops = append(ops, op(0, call, call+1, Input{Op: GlobalGet}, Output{Items: []int{g}}))
		}
		if res := check(t, 1, ops); res != tc.want {
			t.Errorf("batch of %v (max %d, 2 Ps) from [1 2 3 4]: got %v, want %v", tc.took, tc.max, res, tc.want)
		}
	}
}

func TestFailureIsShrunkToAQuiescentPrefixAndVisualized(t *testing.T) {
	var ops []porcupine.Operation
	for i := range 20 {
		g := i + 1
		ops = append(ops, op(0, int64(4*i+1), int64(4*i+2), Input{Op: Put, Items: []int{g}}, Output{}),
			op(0, int64(4*i+3), int64(4*i+4), Input{Op: Get}, Output{Items: []int{g}}))
	}
	ops[9].Output = Output{Items: []int{99}} // the fifth Get returns a stranger
	c := Checker{Procs: 1, RingSize: 4, Dir: t.TempDir(), Label: "shrink"}
	res, err := c.Check(ops)
	var f *Failure
	if res != porcupine.Illegal || !errors.As(err, &f) || !errors.Is(err, ErrNotLinearizable) {
		t.Fatalf("got %v, %v; want Illegal and a *Failure", res, err)
	}
	if f.Ops != 10 || f.RoundOps != 40 {
		t.Fatalf("shrunk to %d of %d operations, want 10 of 40", f.Ops, f.RoundOps)
	}
	html, err := os.ReadFile(f.HTML)
	if err != nil || !strings.Contains(string(html), "P0.Get() → [99]") {
		t.Fatalf("visualization %s lacks the failing operation (err %v)", f.HTML, err)
	}
	text, err := os.ReadFile(strings.TrimSuffix(f.HTML, ".html") + ".txt")
	if err != nil || strings.Count(string(text), "\n") != 10 {
		t.Fatalf("history text: %q, %v", text, err)
	}
}

// A cut is quiescent only once every earlier operation has returned, the
// longest too, not only the one called last.
func TestQuiescentCutsWaitForEveryEarlierOperation(t *testing.T) {
	get := Input{Op: Get}
	ops := []porcupine.Operation{
		op(0, 1, 10, get, Output{}), // runs across the next two
		op(1, 2, 3, get, Output{}),
		op(1, 4, 5, get, Output{}),
		op(1, 11, 12, get, Output{}),
	}
	if got, want := quiescentCuts(ops), []int{3, 4}; !slices.Equal(got, want) {
		t.Fatalf("quiescentCuts = %v, want %v", got, want)
	}
}

func TestMalformedHistoriesAndConfigsAreRejected(t *testing.T) {
	c := Checker{Procs: 1, RingSize: 4}
	for name, ops := range map[string][]porcupine.Operation{
		"foreign input":  {{Input: 1, Output: Output{}, Call: 1, Return: 2}},
		"return first":   {op(0, 2, 1, Input{Op: Get}, Output{})},
		"unsorted":       {op(0, 3, 4, Input{Op: Get}, Output{}), op(0, 1, 2, Input{Op: Get}, Output{})},
		"no such queue":  {op(0, 1, 2, Input{Op: Get, P: 1}, Output{})},
		"nil item put":   {op(0, 1, 2, Input{Op: Put, Items: []int{0}}, Output{})},
		"steal from own": {op(0, 1, 2, Input{Op: StealInto, P: 0, Dst: 0}, Output{})},
	} {
		if _, err := c.Check(ops); !errors.Is(err, ErrHistory) {
			t.Errorf("%s: got %v, want ErrHistory", name, err)
		}
	}
	if _, err := (Checker{Procs: 0, RingSize: 4}).Check(nil); !errors.Is(err, ErrConfig) {
		t.Errorf("Procs 0: got %v, want ErrConfig", err)
	}
	for _, cfg := range []Config{{Mode: 7}, {Thieves: -1}, {Mode: SystemMode, Procs: 1}, {Duration: -time.Second}} {
		if _, err := Stress(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("Stress(%+v): got %v, want ErrConfig", cfg, err)
		}
	}
	t.Setenv(EnvDuration, "soon")
	if _, err := (Config{}).WithEnv(); !errors.Is(err, ErrConfig) {
		t.Errorf("%s=soon: got %v, want ErrConfig", EnvDuration, err)
	}
}

func TestRecorderStampsBracketOperationsAndSortByCall(t *testing.T) {
	r := NewRecorder(2, 4)
	a, b := r.Thread(0), r.Thread(1)
	c1 := a.Stamp()
	c2 := b.Stamp()
	r2 := b.Stamp()
	b.Record(c2, r2, Input{Op: Get}, Output{})
	r1 := a.Stamp()
	a.Record(c1, r1, Input{Op: Empty}, Output{Empty: true})
	ops := r.Operations()
	if len(ops) != 2 || ops[0].ClientId != 0 || ops[1].ClientId != 1 || ops[0].Call >= ops[1].Call {
		t.Fatalf("operations not by call stamp: %+v", ops)
	}
	r.Reset(4)
	if len(r.Operations()) != 0 || a.Len() != 0 {
		t.Fatal("Reset kept operations")
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "invariant") {
			t.Fatalf("a return stamp before the call stamp: panic %v, want one naming the invariant", p)
		}
	}()
	a.Record(5, 5, Input{}, Output{})
}

// TestRecorderRejectsAnOperationThatBeginsBeforeTheThreadsLastReturned:
// a thread's operations follow one another, so a call stamp before the
// previous return stamp was taken too early, and the interval it opens is
// wider than the operation. Operations recorded with one shared interval
// (calls made back to back) are the exception.
func TestRecorderRejectsAnOperationThatBeginsBeforeTheThreadsLastReturned(t *testing.T) {
	r := NewRecorder(1, 8)
	th := r.Thread(0)
	call := th.Stamp()
	ret := th.Stamp()
	th.Record(call, ret, Input{Op: Put, Items: []int{1}, Next: true}, Output{})
	th.Record(call, ret, Input{Op: Get}, Output{Items: []int{1}, InheritTime: true})
	next := th.Stamp()
	th.Record(next, th.Stamp(), Input{Op: Get}, Output{})
	if th.Len() != 3 {
		t.Fatalf("recorded %d operations, want 3", th.Len())
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "invariant: a thread's operations follow one another") {
			t.Fatalf("an operation stamped before its predecessor returned: panic %v, want one naming the invariant", p)
		}
	}()
	late := th.Stamp()
	th.Record(next, late, Input{Op: Empty}, Output{Empty: true}) // begins at the last Get's call
}
