package proptest

import (
	"fmt"
	"math"
	"slices"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// item is a task as the queues see it: a distinct pointer. The machines
// compare the real queues and the specification by id.
type item struct{ id int }

func ids(gs []*item) []int {
	if len(gs) == 0 {
		return nil
	}
	out := make([]int, len(gs))
	for i, g := range gs {
		out[i] = g.id
	}
	return out
}

// queueSystem is the state of [CheckQueue]: the owner's queue, a thief's own
// queue that steals from it, and the global queue that receives overflow,
// each paired with its model, and a ledger of every item in the system.
type queueSystem struct {
	items                ledger
	owner, thief         *runq.Queue[item]
	ownerSpec, thiefSpec *spec.Queue[int]
	global               globalPair
	lastCounters         [2][2]uint32 // head, tail of owner and thief
	batch                []*item
}

// counterStart draws where a queue's free-running counters start: zero,
// anywhere, or within two rings of 2^32 so that operations wrap them.
var counterStart = rapid.OneOf(
	rapid.Just(uint32(0)),
	rapid.Uint32(),
	rapid.Uint32Range(math.MaxUint32-2*runq.Size, math.MaxUint32),
)

// CheckQueue is the property that runq.Queue and runq.Global behave as
// spec.Queue and spec.Global. The generator interleaves owner operations
// (Put with and without next, PutBatch, Get, Drain), thief operations (Grab,
// StealInto another queue, with an owner operation run during the pause
// before a runnext steal) and global-queue operations (Get, GetBatch for any
// procs and max, PutHead); counters start anywhere, including just below
// 2^32; overflow and leftovers go to the global queue. After every step the
// lengths, emptiness, counter bounds and monotonicity are compared, and at
// the end everything is drained and the ledger must balance.
//
// FuzzQueue decodes its committed corpus through CheckQueue's choice of
// actions, so that set stays as it is; [CheckQueueOverflows] adds one.
func CheckQueue(t *rapid.T) { checkQueue(t, false) }

// CheckQueueOverflows is [CheckQueue] with one more owner operation: Puts
// until one overflows, the path of runqputslow, which random batch sizes
// reach in only some runs.
func CheckQueueOverflows(t *rapid.T) { checkQueue(t, true) }

func checkQueue(t *rapid.T, overflows bool) {
	s := &queueSystem{
		owner:     new(runq.Queue[item]),
		thief:     new(runq.Queue[item]),
		ownerSpec: spec.NewQueue[int](runq.Size),
		thiefSpec: spec.NewQueue[int](runq.Size),
		batch:     make([]*item, runq.Size/2),
	}
	for i, q := range []*runq.Queue[item]{s.owner, s.thief} {
		start := counterStart.Draw(t, fmt.Sprintf("counters[%d]", i))
		testhook.RunqStartAt(q, start)
		s.lastCounters[i] = [2]uint32{start, start}
	}
	actions := map[string]func(*rapid.T){
		"Put":            s.put,
		"PutBatch":       s.putBatch,
		"Get":            s.get,
		"Drain":          s.drain,
		"Grab":           s.grab,
		"StealInto":      s.stealInto,
		"ThiefGet":       s.thiefGet,
		"GlobalGet":      s.globalGet,
		"GlobalGetBatch": s.globalGetBatch,
		"GlobalPutHead":  s.globalPutHead,
		"":               s.check,
	}
	if overflows {
		actions["PutUntilOverflow"] = s.putUntilOverflow
	}
	t.Repeat(actions)
	s.drainAll(t)
}

// toGlobal puts items the owner could not keep on the global queue, as the
// scheduler does under its lock.
func (s *queueSystem) toGlobal(gs []*item) {
	s.global.q.PutBatch(gs)
	s.global.model.PutBatch(ids(gs))
}

func (s *queueSystem) put(t *rapid.T) {
	s.putOne(t, rapid.Bool().Draw(t, "next"))
}

// putUntilOverflow puts into the ring until a put overflows: the path of
// runqputslow, which random batch sizes reach only now and then.
func (s *queueSystem) putUntilOverflow(t *rapid.T) {
	for len(s.putOne(t, false)) == 0 {
	}
}

// putOne puts one new item, compares the overflow with the model's, sends
// it to the global queue and returns it.
func (s *queueSystem) putOne(t *rapid.T, next bool) []*item {
	g := s.items.enter(t)
	ringLen := s.ownerSpec.RingLen()
	_, hadRunNext := s.ownerSpec.RunNext()
	want := s.ownerSpec.Put(g.id, next)
	got := s.owner.Put(g, next)
	if !next || hadRunNext { // an item was appended to the ring
		must(t, spec.CheckOverflow(runq.Size, ringLen, len(got)))
	}
	equalIDs(t, "Put overflow", want, ids(got))
	s.toGlobal(got)
	return got
}

func (s *queueSystem) putBatch(t *rapid.T) {
	n := rapid.IntRange(0, runq.Size+8).Draw(t, "n")
	gs := make([]*item, n)
	for i := range gs {
		gs[i] = s.items.enter(t)
	}
	want := s.ownerSpec.PutBatch(ids(gs))
	got := s.owner.PutBatch(gs)
	equalIDs(t, "PutBatch rest", want, ids(got))
	s.toGlobal(got)
}

func (s *queueSystem) get(t *rapid.T) {
	s.items.leave(t, compareGet(t, "Get", s.owner, s.ownerSpec)...)
}

// compareGet runs Get on a queue and its model and returns what Get handed
// out (nothing or one item) once it has compared the two.
func compareGet(t *rapid.T, what string, q *runq.Queue[item], m *spec.Queue[int]) []*item {
	want, ok, inherit := m.Get()
	g, gotInherit := q.Get()
	switch {
	case !ok && g != nil:
		mismatch(t, "%s on an empty queue returned item %d", what, g.id)
	case !ok:
		return nil
	case g == nil:
		mismatch(t, "%s returned nothing, want item %d", what, want)
	}
	equalIDs(t, what+" (id, inheritTime)", []int{want, boolInt(inherit)}, []int{g.id, boolInt(gotInherit)})
	return []*item{g}
}

func (s *queueSystem) drain(t *rapid.T) {
	want := s.ownerSpec.Drain()
	got := s.owner.Drain(nil)
	equalIDs(t, "Drain", want, ids(got))
	s.items.leave(t, got...)
}

// ownerOps are the operations the machine may run in the middle of a steal.
var ownerOps = []string{"none", "Put", "Get", "PutBatch", "Drain"}

// pause returns the pause function for a thief operation: on its first call
// it runs one owner operation, drawn from t, on the owner's queue and its
// model; later calls (a retry of the runnext steal) do nothing.
func (s *queueSystem) pause(t *rapid.T, calls *int) func() {
	op := rapid.SampledFrom(ownerOps).Draw(t, "during pause")
	return func() {
		*calls++
		if *calls > 1 {
			return
		}
		switch op {
		case "Put":
			s.put(t)
		case "Get":
			s.get(t)
		case "PutBatch":
			s.putBatch(t)
		case "Drain":
			s.drain(t)
		}
	}
}

// observation returns the ring length the model's steal must use, given
// what the thief saw before the call (the ring length and runnext) and how
// often the real code paused before taking runnext.
func (s *queueSystem) observation(t *rapid.T, observed, runNext int, hadRunNext, stealRunNext bool, pauses int) int {
	if observed > 0 || !stealRunNext || !hadRunNext {
		if pauses != 0 {
			mismatch(t, "the thief paused though the ring held %d items (stealRunNext %v, runnext set %v)", observed, stealRunNext, hadRunNext)
		}
		return observed
	}
	if pauses == 0 {
		mismatch(t, "the thief took no pause before stealing runnext")
	}
	// The thief read runnext, paused (the owner may have run), then CASed
	// runnext from what it read.
	if now, ok := s.ownerSpec.RunNext(); ok && now == runNext {
		return 0 // the CAS succeeds: runnext goes, whatever the ring holds now
	}
	// The CAS failed: the thief starts over and sees the queue as it is.
	return s.ownerSpec.RingLen()
}

func (s *queueSystem) grab(t *rapid.T) {
	stealRunNext := rapid.Bool().Draw(t, "stealRunNext")
	observed := s.ownerSpec.RingLen()
	runNext, hadRunNext := s.ownerSpec.RunNext()
	var pauses int
	n := s.owner.Grab(s.batch, stealRunNext, s.pause(t, &pauses))
	got := s.batch[:n]
	seen := s.observation(t, observed, runNext, hadRunNext, stealRunNext, pauses)
	// The item the thief read from runnext counts as stolen from runnext
	// only if it is still runnext now; an owner Put(next) during the pause
	// kicks it into the ring, where a retry may legally take it.
	now, stillSet := s.ownerSpec.RunNext()
	tookRunNext := n == 1 && hadRunNext && got[0].id == runNext && stillSet && now == runNext
	must(t, spec.CheckRunNextSteal(tookRunNext, stealRunNext, seen))
	must(t, spec.CheckGrab(runq.Size, n, tookRunNext))
	equalIDs(t, "Grab", mustGrab(t, s.ownerSpec, seen, stealRunNext), ids(got))
	s.items.leave(t, got...)
}

func (s *queueSystem) stealInto(t *rapid.T) {
	stealRunNext := rapid.Bool().Draw(t, "stealRunNext")
	if s.thiefSpec.RingLen() > runq.Size/2 {
		s.stealIntoFull(t, stealRunNext)
		return
	}
	observed := s.ownerSpec.RingLen()
	runNext, hadRunNext := s.ownerSpec.RunNext()
	var pauses int
	g := s.owner.StealInto(s.thief, stealRunNext, s.pause(t, &pauses))
	want, ok, err := s.ownerSpec.StealInto(s.thiefSpec, s.observation(t, observed, runNext, hadRunNext, stealRunNext, pauses), stealRunNext)
	must(t, err)
	switch {
	case !ok && g != nil:
		mismatch(t, "StealInto returned item %d, want nothing", g.id)
	case ok && g == nil:
		mismatch(t, "StealInto returned nothing, want item %d", want)
	case ok:
		equalIDs(t, "StealInto result", []int{want}, []int{g.id})
		s.items.leave(t, g)
	}
}

// stealIntoFull checks that a steal into a queue without room for Size/2
// items panics and changes neither queue.
func (s *queueSystem) stealIntoFull(t *rapid.T, stealRunNext bool) {
	ownerLen, thiefLen := s.owner.Len(), s.thief.Len()
	panicked := func() (p bool) {
		defer func() { p = recover() != nil }()
		s.owner.StealInto(s.thief, stealRunNext, nil)
		return false
	}()
	if !panicked {
		mismatch(t, "StealInto into a queue holding %d ring items did not panic", s.thiefSpec.RingLen())
	}
	equalIDs(t, "queue lengths after a refused steal", []int{ownerLen, thiefLen}, []int{s.owner.Len(), s.thief.Len()})
}

func (s *queueSystem) thiefGet(t *rapid.T) {
	s.items.leave(t, compareGet(t, "thief Get", s.thief, s.thiefSpec)...)
}

func (s *queueSystem) globalGet(t *rapid.T) { s.items.leave(t, s.global.get(t)...) }

func (s *queueSystem) globalGetBatch(t *rapid.T) {
	max := rapid.IntRange(1, runq.Size/2).Draw(t, "max")
	procs := rapid.IntRange(1, 64).Draw(t, "procs")
	s.items.leave(t, s.global.getBatch(t, max, procs, nil)...)
}

func (s *queueSystem) globalPutHead(t *rapid.T) {
	g := s.items.enter(t)
	s.global.q.PutHead(g)
	s.global.model.PutHead(g.id)
}

// check compares what can be observed of every queue with its model after
// each step.
func (s *queueSystem) check(t *rapid.T) {
	for i, p := range []struct {
		q *runq.Queue[item]
		m *spec.Queue[int]
	}{{s.owner, s.ownerSpec}, {s.thief, s.thiefSpec}} {
		equal(t, "Len", p.m.Len(), p.q.Len())
		equal(t, "Empty", p.m.Empty(), p.q.Empty())
		head, tail := testhook.RunqCounters(p.q)
		must(t, spec.CheckCounters(runq.Size, head, tail))
		must(t, spec.CheckMonotonic(s.lastCounters[i][0], s.lastCounters[i][1], head, tail))
		equal(t, "ring length (tail-head)", p.m.RingLen(), int(tail-head))
		s.lastCounters[i] = [2]uint32{head, tail}
	}
	must(t, spec.CheckGlobalLen(s.global.q.Len(), s.global.model.Len()))
}

// drainAll empties every queue through the owners' own operations and checks
// that what comes out is what the models hold, and that no item was lost.
func (s *queueSystem) drainAll(t *rapid.T) {
	s.drain(t)
	for !s.thiefSpec.Empty() {
		s.thiefGet(t)
	}
	s.items.leave(t, s.global.drain(t)...)
	s.check(t)
	s.items.balanced(t)
}

func mustGrab(t *rapid.T, q *spec.Queue[int], observed int, stealRunNext bool) []int {
	got, err := q.Grab(observed, stealRunNext)
	must(t, err)
	return got
}

func must(t *rapid.T, err error) {
	if err != nil {
		t.Helper()
		t.Fatalf("%v", err) // a *spec.Violation names its invariant
	}
}

// mismatch fails the test because the implementation disagreed with the
// specification. Every verdict of the machines but a *spec.Violation goes
// through it, so that a failure is recognisable by its prefix.
func mismatch(t *rapid.T, format string, args ...any) {
	t.Helper()
	t.Fatalf("spec mismatch: "+format, args...)
}

// equal fails the test with a message naming what was compared.
func equal[V comparable](t *rapid.T, what string, want, got V) {
	if want != got {
		t.Helper()
		mismatch(t, "%s: spec says %v, implementation gave %v", what, want, got)
	}
}

// equalIDs is equal for sequences of item ids (or other ints).
func equalIDs(t *rapid.T, what string, want, got []int) {
	if !slices.Equal(want, got) {
		t.Helper()
		mismatch(t, "%s: spec says %v, implementation gave %v", what, want, got)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
