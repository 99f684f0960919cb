//go:build vsched_explore

package explorer

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// The memory models. Under SC, the default, an operation reads and writes
// the atomic's real memory, and a load sees the latest store. Under RC11 the
// explorer keeps every location's stores in their modification order, and
// a load may read any store that coherence and happens-before allow: which
// one is a choice of the search, like which thread runs.
//
// The weak model is RC11 (Lahav et al., "Repairing Sequential Consistency
// in C/C++11", PLDI 2017), carried out operationally:
//
//   - Each thread has a view, a vector clock of the events it knows: its
//     own, and those its acquires synchronized with. A load may read a store
//     of its location that is not modification-order-before (mo-before) a
//     store the thread knows of: one it wrote, read, or that happens before
//     it, or one that a read which happens before it read (coherence).
//   - A release (or sequentially consistent) store carries the storer's
//     view; an acquire (or sequentially consistent) load that reads it
//     joins that view (synchronizes with it). A read-modify-write carries
//     the view of the store it read on, so release sequences run through
//     read-modify-writes (C++20), and only through them.
//   - A read-modify-write reads the mo-latest store and goes right after it.
//     A plain store goes after every store its thread knows of, at the end
//     of the modification order or, as a choice of the search, before stores
//     it does not know of (2+2W).
//   - Loads read only stores that have executed, so po ∪ rf is acyclic: no
//     load buffering, no value out of thin air.
//   - Sequentially consistent operations and fences are ordered by the order
//     in which they execute (S), and S obeys RC11's psc rules, each as a
//     floor under what an access may read or where a store may go in mo:
//     an SC access reads no store mo-before the last SC store of its
//     location in S, nor mo-before a store that happens before a fence
//     earlier in S (and an SC store goes after both); an access that a
//     fence happens before reads no store mo-before an SC store earlier in
//     S than the fence, nor mo-before a store that happens before an
//     earlier fence. Fences also act as acquire fences (for the release
//     stores their thread's relaxed loads read) and release fences (for the
//     thread's later relaxed stores).
//
// Three approximations, each on the strong side (an outcome RC11 allows may
// not be explored; none that it forbids is reported); the first two are
// shown by TestWeakLitmusApproximationsErrOnTheStrongSide of package
// explore:
//
//   - A compare-and-swap that fails reads the mo-latest store, as if it
//     could not fail on a stale value.
//   - S is the order of execution, so an outcome that needs S to differ
//     from it is not explored.
//   - A load chooses among the latest maxChoices stores it may read, and a
//     store among as many places.
//
// Beyond the litmus suite, the model is not proven to agree with RC11.
//
// Each load that reads a store other than the mo-latest, and each store
// placed before the mo-latest, spends one of the execution's stale choices
// (Config.MaxStale), as a preemption spends one of its preemptions.

// Memory is a memory model of the explorer.
type Memory uint8

const (
	SC   Memory = iota // sequential consistency: every load sees the latest store
	RC11               // the repaired C11 model: loads may see older stores
)

func (m Memory) String() string {
	if m == RC11 {
		return "RC11"
	}
	return "SC"
}

// Order is the memory order an operation names.
type Order uint8

const (
	Relaxed Order = iota
	Acquire
	Release
	AcqRel // a read-modify-write that acquires and releases
	SeqCst
)

var orderNames = [...]string{"relaxed", "acquire", "release", "acq_rel", "SC"}

func (o Order) String() string { return orderNames[o] }

func (o Order) acquires() bool { return o == Acquire || o == AcqRel || o == SeqCst }
func (o Order) releases() bool { return o == Release || o == AcqRel || o == SeqCst }

// Site is where an atomic operation is called: the caller of the xsync
// method, and the operation's kind (a line may hold more than one).
type Site struct {
	File string
	Line int
	Op   Op
}

// order returns the order the operation at skip frames above the caller
// runs with: its own, or what Config.Orders makes of it.
func (e *execution) order(ord Order, op Op, skip int) Order {
	f := e.ex.cfg.Orders
	if f == nil {
		return ord
	}
	_, file, line, _ := runtime.Caller(skip + 1)
	return f(Site{File: file, Line: line, Op: op}, ord)
}

// Kind is the kind of word an atomic holds.
type Kind uint8

const (
	Word32 Kind = iota
	Word64
	Ptr
)

// Value is the content of an atomic: U for the words, P for a pointer (a
// pointer field, so that the garbage collector sees what a store history
// holds).
type Value struct {
	U uint64
	P unsafe.Pointer
}

func (v Value) equal(w Value) bool { return v.U == w.U && v.P == w.P }

// readReal reads the word at addr: every xsync atomic is a sync/atomic value
// whose only word is its first.
func readReal(addr unsafe.Pointer, k Kind) Value {
	switch k {
	case Word32:
		return Value{U: uint64(atomic.LoadUint32((*uint32)(addr)))}
	case Word64:
		return Value{U: atomic.LoadUint64((*uint64)(addr))}
	}
	return Value{P: atomic.LoadPointer((*unsafe.Pointer)(addr))}
}

func writeReal(addr unsafe.Pointer, k Kind, v Value) {
	switch k {
	case Word32:
		atomic.StoreUint32((*uint32)(addr), uint32(v.U))
	case Word64:
		atomic.StoreUint64((*uint64)(addr), v.U)
	default:
		atomic.StorePointer((*unsafe.Pointer)(addr), v.P)
	}
}

// vclock is a vector clock over the threads of an execution: entry i is the
// latest event of thread i known. Its last entry, fenceEntry, is not a
// thread's: it is the place in S of the latest fence known, which joins by
// maximum like the others.
type vclock [MaxThreads + 1]uint32

const fenceEntry = MaxThreads

func (c *vclock) join(o *vclock) {
	for i := range c {
		c[i] = max(c[i], o[i])
	}
}

// store is one store to a location, in its modification order.
type store struct {
	v     Value
	by    int    // the storing thread, or -1 for the value before the model touched it
	epoch uint32 // by's clock at the store
	msg   vclock // the view it releases, when rel
	rel   bool
	rmw   bool // stored by a read-modify-write, right after the store it read
	mo    int  // its place in the modification order
	step  int  // the trace step that stored it, when tracing
}

// readRec is a read of a location by one thread: the store it read, and the
// reader's clock then.
type readRec struct {
	epoch uint32
	s     *store
}

// location is an atomic's state under the weak model.
type location struct {
	kind     Kind
	mo       []*store
	byThread [MaxThreads][]*store  // each thread's stores, in its program order
	reads    [MaxThreads][]readRec // each thread's reads, in its program order, one per store read
	lastSC   *store                // the latest sequentially consistent store in S
	scHist   []scStore             // its sequentially consistent stores, in S
}

// scStore is a sequentially consistent store with its place in S.
type scStore struct {
	at uint32
	s  *store
}

// memory is the weak model's state of one execution.
type memory struct {
	locs   map[unsafe.Pointer]*location
	fences vclock                     // what happens before some fence so far
	sTime  uint32                     // the sequentially consistent events so far: the place in S of the next
	sync   map[unsafe.Pointer]*vclock // what a mutex or a note carries from its last release
}

// threadMem is a thread's state under the weak model.
type threadMem struct {
	vc       vclock // happens-before: what the thread knows
	acqAcc   vclock // views of the stores its relaxed loads read, for a later fence
	relFence vclock // its view at its last fence, released by its later relaxed stores
	fenced   bool
}

func (e *execution) weak() bool { return e.mem != nil }

// loc returns the state of the location at addr, made at the first access:
// its first store is the value the real memory holds then, known to every
// thread.
func (e *execution) loc(addr unsafe.Pointer, k Kind) *location {
	l := e.mem.locs[addr]
	if l == nil {
		l = &location{kind: k, mo: []*store{{v: readReal(addr, k), by: -1}}}
		e.mem.locs[addr] = l
	}
	return l
}

// tick advances t's own clock entry for a new event of t.
func (t *thread) tick() uint32 {
	t.mem.vc[t.id]++
	return t.mem.vc[t.id]
}

// floor is the mo-latest store of l that t may not read before (nor, for a
// store, go before): one it wrote or read, one that happens before it, or
// one read by a read that happens before it; an SC store earlier in S than
// a fence that happens before it; for a sequentially consistent access,
// also the latest sequentially consistent store, and what happens before
// the fences so far.
func (e *execution) floor(l *location, t *thread, sc bool) *store {
	f := l.known(&t.mem.vc, l.mo[0])
	if fs := t.mem.vc[fenceEntry]; fs > 0 {
		// The last SC store of l earlier in S than the fence.
		for i := len(l.scHist) - 1; i >= 0; i-- {
			if h := l.scHist[i]; h.at < fs {
				f = later(f, h.s)
				break
			}
		}
	}
	if sc {
		if l.lastSC != nil {
			f = later(f, l.lastSC)
		}
		f = l.known(&e.mem.fences, f)
	}
	return f
}

// later returns the mo-later of two stores.
func later(a, b *store) *store {
	if b.mo > a.mo {
		return b
	}
	return a
}

// known returns the mo-latest of f and the stores of l that view c knows:
// written, or read, by an event c covers.
func (l *location) known(c *vclock, f *store) *store {
	for u := range MaxThreads {
		k := c[u]
		if k == 0 {
			continue
		}
		ss := l.byThread[u]
		for i := len(ss) - 1; i >= 0; i-- {
			if ss[i].epoch <= k {
				f = later(f, ss[i])
				break
			}
		}
		rs := l.reads[u]
		for i := len(rs) - 1; i >= 0; i-- {
			if rs[i].epoch <= k {
				f = later(f, rs[i].s)
				break
			}
		}
	}
	return f
}

// read records that t read s, and what the read synchronizes.
func (l *location) read(t *thread, s *store, ord Order) {
	epoch := t.tick()
	if rs := l.reads[t.id]; len(rs) == 0 || rs[len(rs)-1].s != s {
		l.reads[t.id] = append(rs, readRec{epoch, s})
	}
	if !s.rel {
		return
	}
	if ord.acquires() {
		t.mem.vc.join(&s.msg)
	} else {
		t.mem.acqAcc.join(&s.msg)
	}
}

// insert puts s into l's modification order at position at.
func (l *location) insert(s *store, at int) {
	l.mo = append(l.mo, nil)
	copy(l.mo[at+1:], l.mo[at:])
	l.mo[at] = s
	for i := at; i < len(l.mo); i++ {
		l.mo[i].mo = i
	}
}

// newStore is t's store of v, with the view it releases.
func (e *execution) newStore(t *thread, v Value, ord Order) *store {
	s := &store{v: v, by: t.id, epoch: t.tick()}
	switch {
	case ord.releases():
		s.msg, s.rel = t.mem.vc, true
	case t.mem.fenced:
		s.msg, s.rel = t.mem.relFence, true
	}
	if e.trace != nil {
		s.step = len(*e.trace)
	}
	return s
}

// published records a sequentially consistent store in S.
func (e *execution) published(l *location, s *store) {
	e.mem.sTime++
	l.lastSC = s
	l.scHist = append(l.scHist, scStore{e.mem.sTime, s})
}

// maxChoices bounds the stores a load may choose among (the latest ones).
const maxChoices = 64

func (e *execution) weakLoad(t *thread, addr unsafe.Pointer, k Kind, ord Order, ev *Event) Value {
	l := e.loc(addr, k)
	f := e.floor(l, t, ord == SeqCst)
	n := min(len(l.mo)-f.mo, maxChoices)
	alt := e.choose(n)
	s := l.mo[len(l.mo)-1-alt]
	l.read(t, s, ord)
	ev.readFrom(s, alt, k)
	return s.v
}

func (e *execution) weakStore(t *thread, addr unsafe.Pointer, k Kind, ord Order, v Value, ev *Event) {
	l := e.loc(addr, k)
	f := e.floor(l, t, ord == SeqCst)
	// The places the store may take, latest first: after the mo-latest
	// store, or before any later store it does not know of, except right
	// before a read-modify-write's store, which stays next to the store
	// it read (RMW atomicity).
	n := min(len(l.mo)-f.mo, maxChoices)
	places := e.places[:0]
	for alt := range n {
		if alt == 0 || !l.mo[len(l.mo)-alt].rmw {
			places = append(places, alt)
		}
	}
	e.places = places
	alt := places[e.choose(len(places))]
	s := e.newStore(t, v, ord)
	at := len(l.mo) - alt
	old := l.mo[len(l.mo)-1].v
	l.insert(s, at)
	l.byThread[t.id] = append(l.byThread[t.id], s)
	if ord == SeqCst {
		e.published(l, s)
	}
	if alt == 0 {
		writeReal(addr, k, v)
	}
	ev.stored(old, v, alt, k)
}

// RMWOp is what a read-modify-write does with its operand.
type RMWOp uint8

const (
	AddOp  RMWOp = iota // add the operand
	SwapOp              // store the operand
	casOp               // store the operand if the value read is expected
)

// apply returns what the read-modify-write stores after reading v, and
// whether it stores at all.
func (op RMWOp) apply(v Value, k Kind, arg, expect Value) (Value, bool) {
	switch op {
	case AddOp:
		if k == Word32 {
			return Value{U: uint64(uint32(v.U) + uint32(arg.U))}, true
		}
		return Value{U: v.U + arg.U}, true
	case SwapOp:
		return arg, true
	}
	return arg, v.equal(expect)
}

// weakRMW reads the mo-latest store of the location and, unless it is a
// compare-and-swap that finds another value, stores right after it. It
// returns the value read.
func (e *execution) weakRMW(t *thread, addr unsafe.Pointer, k Kind, ord Order, op RMWOp, arg, expect Value, ev *Event) Value {
	l := e.loc(addr, k)
	last := l.mo[len(l.mo)-1]
	l.read(t, last, ord)
	nv, ok := op.apply(last.v, k, arg, expect)
	if !ok {
		return last.v
	}
	s := e.newStore(t, nv, ord)
	s.rmw = true
	if last.rel { // the release sequence goes on through the RMW
		if s.rel {
			s.msg.join(&last.msg)
		} else {
			s.msg, s.rel = last.msg, true
		}
	}
	l.insert(s, len(l.mo))
	l.byThread[t.id] = append(l.byThread[t.id], s)
	if ord == SeqCst {
		e.published(l, s)
	}
	writeReal(addr, k, nv)
	ev.stored(last.v, nv, 0, k)
	return last.v
}

// weakFence is FenceSC: an acquire fence, then its place in S, where it
// learns what happened before the earlier fences and tells the later ones
// what happens before it (two fences in S order what is on either side of
// them as happens-before would, for what a load may read), then a release
// fence.
func (e *execution) weakFence(t *thread) {
	t.tick()
	m := &t.mem
	m.vc.join(&m.acqAcc)
	e.mem.sTime++
	m.vc[fenceEntry] = e.mem.sTime
	m.vc.join(&e.mem.fences)
	e.mem.fences.join(&m.vc)
	m.relFence, m.fenced = m.vc, true
}

// release and acquire carry views through a mutex, a note and thread start
// and end: what the one thread knew at its release, the other knows after
// its acquire.
func (e *execution) release(t *thread, addr unsafe.Pointer) {
	c := e.mem.sync[addr]
	if c == nil {
		c = new(vclock)
		e.mem.sync[addr] = c
	}
	c.join(&t.mem.vc)
	t.tick()
}

func (e *execution) acquire(t *thread, addr unsafe.Pointer) {
	if c := e.mem.sync[addr]; c != nil {
		t.mem.vc.join(c)
	}
}

// The trace of the weak model's operations.

func (ev *Event) readFrom(s *store, stale int, k Kind) {
	if ev == nil {
		return
	}
	ev.Value = "→ " + ev.show(s.v, k)
	if stale > 0 {
		from := "the initial value"
		if s.by >= 0 {
			from = fmt.Sprintf("step %d", s.step)
		}
		ev.Value += fmt.Sprintf(" (stale: %s, %d newer)", from, stale)
	}
}

func (ev *Event) stored(old, v Value, before int, k Kind) {
	if ev == nil {
		return
	}
	ev.Value = ev.show(old, k) + " ⇒ " + ev.show(v, k)
	if before > 0 {
		ev.Value += fmt.Sprintf(" (mo before %d newer)", before)
	}
}

func (ev *Event) show(v Value, k Kind) string {
	if k == Ptr {
		return ev.names.ptr(v.P)
	}
	return fmt.Sprint(v.U)
}
