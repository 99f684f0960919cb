package linearizability

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/vsched/vsched/spec"
)

// Op names an operation of a history. The local-queue operations act on
// P-local queue [Input.P]; the Global ones act on the global queue.
type Op uint8

// The operations a history may hold, named after the runq methods (and the
// runtime functions) they record.
const (
	// Put is Queue.Put (runqput) of Input.Items[0] with Input.Next;
	// Output.Items is the overflow batch.
	Put Op = iota
	// PutBatch is Queue.PutBatch (runqputbatch) of Input.Items;
	// Output.Items is what did not fit.
	PutBatch
	// Get is Queue.Get (runqget); Output.Items is the item taken, if any,
	// and Output.InheritTime its flag.
	Get
	// Drain is Queue.Drain (runqdrain); Output.Items is what it took.
	Drain
	// Grab is Queue.Grab (runqgrab) by a thief with Input.StealRunNext;
	// Output.Items is what it took, oldest first.
	Grab
	// StealInto is Queue.StealInto (runqsteal) from P into Input.Dst with
	// Input.StealRunNext; Output.Items is the item returned, if any. The
	// rest of what was grabbed is in Dst's ring, as the model computes.
	StealInto
	// Empty is Queue.Empty (runqempty); Output.Empty is its result.
	Empty
	// GlobalPut is Global.Put (globrunqput) of Input.Items[0].
	GlobalPut
	// GlobalPutBatch is Global.PutBatch (globrunqputbatch) of Input.Items.
	GlobalPutBatch
	// GlobalGet is Global.Get (globrunqget); Output.Items is the item
	// taken, if any.
	GlobalGet
	// GlobalGetBatch is Global.GetBatch (globrunqgetbatch) with Input.Max
	// and Input.Procs; Output.Items is everything it took, the item to run
	// first.
	GlobalGetBatch
	numOps
)

var opNames = [...]string{"Put", "PutBatch", "Get", "Drain", "Grab", "StealInto", "Empty",
	"GlobalPut", "GlobalPutBatch", "GlobalGet", "GlobalGetBatch"}

// String returns the operation's name.
func (o Op) String() string {
	if o < numOps {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// global reports whether o acts on the global queue.
func (o Op) global() bool { return o >= GlobalPut && o < numOps }

// Input is what an operation was called with, the Input of a
// [porcupine.Operation] checked by a model from [NewModel]. Items are told
// apart by positive ids; 0 stands for a nil item.
type Input struct {
	Op Op
	// P is the local queue acted on: the owner's for owner operations,
	// the victim's for Grab and StealInto, the one read by Empty.
	P int
	// Dst is the thief's own queue for StealInto.
	Dst int
	// Items are the items put, for Put (one item), PutBatch, GlobalPut
	// (one item) and GlobalPutBatch.
	Items []int
	// Next is Put's next argument.
	Next bool
	// StealRunNext is the stealRunNext argument of Grab and StealInto.
	StealRunNext bool
	// Max and Procs are GlobalGetBatch's arguments.
	Max, Procs int
}

// Output is what an operation returned, the Output of a
// [porcupine.Operation] checked by a model from [NewModel]; which fields
// matter depends on [Input.Op].
type Output struct {
	Items       []int
	InheritTime bool
	Empty       bool
}

// state is a model state: the specification of every local queue and of the
// global queue. States are immutable once built, so a step copies only the
// queues it changes. key encodes the whole state and hash is key's hash, so
// Equal is a hash and a string comparison.
type state struct {
	locals []*spec.Queue[int]
	// pending[p] holds items that an operation of queue p's owner has
	// taken into account but not yet published in p's ring (see
	// NewModel).
	pending []appendix
	lkeys   []string
	global  *spec.Global[int]
	gkey    string
	key     string
	hash    uint64
}

// appendix is the second step of an owner operation: appending items to the
// ring. An item displaced from runnext is appended as by Put, which may
// overflow (overflow is what the Put returned); the items of a PutBatch or
// of a steal are appended as by PutBatch, which must take them all.
type appendix struct {
	items    []int // none: nothing pending
	put      bool
	overflow []int
}

var hashSeed = maphash.MakeSeed()

func appendList(b []byte, gs []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(gs)))
	for _, g := range gs {
		b = binary.AppendUvarint(b, uint64(g))
	}
	return b
}

// queueKey encodes a local queue; every list is preceded by its length, so
// the keys of consecutive queues concatenate without ambiguity.
func queueKey(q *spec.Queue[int], a appendix) string {
	b := make([]byte, 0, 2*(q.RingLen()+len(a.items)+len(a.overflow)+5))
	next, ok := q.RunNext()
	if !ok {
		next = 0
	}
	b = binary.AppendUvarint(b, uint64(next))
	b = appendList(b, q.Ring())
	b = appendList(b, a.items)
	if a.put {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	b = appendList(b, a.overflow)
	return string(b)
}

func globalKey(q *spec.Global[int]) string {
	return string(appendList(make([]byte, 0, 2*(q.Len()+1)), q.Items()))
}

// seal computes the key and the hash of a state whose queues are final.
func (s *state) seal() *state {
	var b strings.Builder
	for _, k := range s.lkeys {
		b.WriteString(k)
	}
	b.WriteString(s.gkey)
	s.key = b.String()
	s.hash = maphash.String(hashSeed, s.key)
	return s
}

// withLocal returns a copy of s, not sealed, in which local queue p is q
// with the pending appendix a.
func (s *state) withLocal(p int, q *spec.Queue[int], a appendix) *state {
	c := &state{locals: slices.Clone(s.locals), pending: slices.Clone(s.pending), lkeys: slices.Clone(s.lkeys), global: s.global, gkey: s.gkey}
	c.locals[p], c.pending[p], c.lkeys[p] = q, a, queueKey(q, a)
	return c
}

func (s *state) withGlobal(q *spec.Global[int]) *state {
	return &state{locals: s.locals, pending: s.pending, lkeys: s.lkeys, global: q, gkey: globalKey(q)}
}

func cloneGlobal(q *spec.Global[int]) *spec.Global[int] {
	c := new(spec.Global[int])
	c.PutBatch(q.Items())
	return c
}

// NewModel returns the porcupine model of a queue system built from package
// spec: procs P-local queues, each a [spec.Queue] whose ring holds ringSize
// items (runq.Size for the real queues), and one [spec.Global]. A history
// of one queue and its thieves uses the local queues as the victim and the
// thieves' own queues; a whole system adds the global queue.
//
// Each operation is checked against the specification's result for the
// same call. The nondeterminism of a steal is decided by its output: a grab
// that took k ring items observed a ring of 2k-1 items (the shortest length
// for which [spec.StealAmount] is k; 2k gives the same result), one that
// took runnext or nothing observed an empty ring, and the step applies
// [spec.Queue.Grab] (or [spec.Queue.StealInto]) with that observed length;
// the specification decides whether that observation is possible in the
// state at the linearization point. A StealInto reports only the item it
// returned; its position in the victim's ring tells how many items went
// with it.
//
// Three owner operations of the real queue take effect in two steps: they
// decide what they do on one read of the counters, and publish the items
// they append to their own ring with a later store of the tail. They are a
// Put with next that displaces an item from runnext (runnext changes first,
// the displaced item joins the ring afterwards), a PutBatch (its count is
// decided on the head it read), and a StealInto (the thief's ring gets the
// stolen items after the victim's head moved). Until the tail store, a
// thief of that ring sees it without those items. The model takes such an
// operation's first step at its linearization point and leaves its
// appended items pending; they join the ring, as the specification appends
// them, before the next operation of the ring's owner, and before or after
// any operation of its thieves. A model step cannot see when an operation
// returned, so this accepts a thief that sees the ring without the pending
// items until the owner's next operation starts, a little more than the
// real queue allows; an Empty that reports true while an item stays in the
// queue for its whole call is still illegal.
//
// The global queue's operations form their own partition: they touch no
// local queue, so the history is linearizable if and only if the local
// operations and the global operations each are.
//
// NewModel panics if procs < 1 or ringSize is not even and positive.
func NewModel(procs, ringSize int) porcupine.Model {
	if procs < 1 {
		panic(fmt.Sprintf("linearizability: NewModel: procs = %d, must be at least 1", procs))
	}
	if ringSize < 2 || ringSize%2 != 0 {
		panic(fmt.Sprintf("linearizability: NewModel: ring size %d must be even and positive", ringSize))
	}
	m := &model{procs: procs, ringSize: ringSize}
	nm := porcupine.NondeterministicModel{
		Partition:         partition,
		Init:              func() []any { return []any{m.init()} },
		Step:              m.step,
		Equal:             equal,
		Hash:              func(s any) uint64 { return s.(*state).hash },
		DescribeOperation: describeOperation,
		DescribeState:     describeState,
	}
	return nm.ToModel()
}

type model struct {
	procs, ringSize int
}

func (m *model) init() *state {
	s := &state{locals: make([]*spec.Queue[int], m.procs), pending: make([]appendix, m.procs), lkeys: make([]string, m.procs), global: new(spec.Global[int])}
	for i := range s.locals {
		s.locals[i] = spec.NewQueue[int](m.ringSize)
		s.lkeys[i] = queueKey(s.locals[i], appendix{})
	}
	s.gkey = globalKey(s.global)
	return s.seal()
}

func equal(a, b any) bool {
	x, y := a.(*state), b.(*state)
	return x.hash == y.hash && x.key == y.key
}

// partition splits a history into the local-queue operations and the
// global-queue operations, dropping an empty part.
func partition(h []porcupine.Operation) [][]porcupine.Operation {
	var local, global []porcupine.Operation
	for _, op := range h {
		if op.Input.(Input).Op.global() {
			global = append(global, op)
		} else {
			local = append(local, op)
		}
	}
	var parts [][]porcupine.Operation
	for _, p := range [][]porcupine.Operation{local, global} {
		if len(p) > 0 {
			parts = append(parts, p)
		}
	}
	return parts
}

// publish takes the second step of queue p's pending operation, if any. It
// reports false if the specification's append disagrees with what the
// operation returned.
func (s *state) publish(p int) (*state, bool) {
	a := s.pending[p]
	if len(a.items) == 0 {
		return s, true
	}
	q := s.locals[p].Clone()
	var over []int
	if a.put {
		over = q.Put(a.items[0], false)
	} else {
		over = q.PutBatch(a.items)
	}
	if !slices.Equal(over, a.overflow) {
		return nil, false
	}
	return s.withLocal(p, q, appendix{}).seal(), true
}

// step returns the states the specification can be in after the operation,
// none if it cannot return what the implementation returned. It never
// changes s.
func (m *model) step(st, input, output any) []any {
	s, in, out := st.(*state), input.(Input), output.(Output)
	if in.Op.global() {
		return m.stepGlobal(s, in, out)
	}
	if in.P < 0 || in.P >= m.procs {
		return nil
	}
	// The owner of P (and, for StealInto, of Dst) runs one operation at a
	// time, so its pending items are in the ring when it starts another;
	// a thief of P may come before or after they get there.
	var bases []*state
	switch in.Op {
	case Put, PutBatch, Get, Drain:
		r, ok := s.publish(in.P)
		if !ok {
			return nil
		}
		bases = []*state{r}
	default:
		bases = []*state{s}
		if len(s.pending[in.P].items) != 0 {
			if r, ok := s.publish(in.P); ok {
				bases = append(bases, r)
			}
		}
	}
	if in.Op == StealInto {
		if in.Dst < 0 || in.Dst >= m.procs || in.Dst == in.P {
			return nil
		}
		settled := bases[:0]
		for _, b := range bases {
			if r, ok := b.publish(in.Dst); ok {
				settled = append(settled, r)
			}
		}
		bases = settled
	}
	var next []any
	for _, b := range bases {
		if n := m.stepLocal(b, in, out); n != nil {
			next = append(next, n)
		}
	}
	return next
}

// stepLocal takes the first step of a local-queue operation in a state in
// which the operation's owner has nothing pending. It returns nil if the
// specification cannot return what the implementation returned.
func (m *model) stepLocal(s *state, in Input, out Output) *state {
	switch in.Op {
	case Put:
		if len(in.Items) != 1 {
			return nil
		}
		if old, had := s.locals[in.P].RunNext(); in.Next && had {
			// runnext changes now; old joins the ring later.
			q := s.locals[in.P].Clone()
			q.Grab(0, true) // takes runnext out: the ring looked empty
			q.Put(in.Items[0], true)
			return s.withLocal(in.P, q, appendix{items: []int{old}, put: true, overflow: out.Items}).seal()
		}
		q := s.locals[in.P].Clone()
		if !slices.Equal(q.Put(in.Items[0], in.Next), out.Items) {
			return nil
		}
		return s.withLocal(in.P, q, appendix{}).seal()
	case PutBatch:
		// The count is decided now, on the current ring; the items are
		// published later.
		rest := s.locals[in.P].Clone().PutBatch(in.Items)
		if !slices.Equal(rest, out.Items) {
			return nil
		}
		added := in.Items[:len(in.Items)-len(rest)]
		if len(added) == 0 {
			return s
		}
		return s.withLocal(in.P, s.locals[in.P], appendix{items: added}).seal()
	case Get:
		q := s.locals[in.P].Clone()
		g, ok, inherit := q.Get()
		if !ok {
			if len(out.Items) == 0 {
				return s
			}
			return nil
		}
		if len(out.Items) != 1 || out.Items[0] != g || out.InheritTime != inherit {
			return nil
		}
		return s.withLocal(in.P, q, appendix{}).seal()
	case Drain:
		q := s.locals[in.P].Clone()
		if !slices.Equal(q.Drain(), out.Items) {
			return nil
		}
		return s.withLocal(in.P, q, appendix{}).seal()
	case Grab:
		q := s.locals[in.P].Clone()
		got, err := q.Grab(observedFor(s.locals[in.P], in.StealRunNext, out.Items), in.StealRunNext)
		if err != nil || !slices.Equal(got, out.Items) {
			return nil
		}
		return s.withLocal(in.P, q, s.pending[in.P]).seal()
	case StealInto:
		if len(out.Items) > 1 {
			return nil
		}
		victim := s.locals[in.P]
		observed := 0
		if len(out.Items) == 1 {
			if i := slices.Index(victim.Ring(), out.Items[0]); i >= 0 {
				observed = 2*i + 1 // took the i+1 oldest, the last one returned
			}
		}
		q, dst := victim.Clone(), s.locals[in.Dst].Clone()
		g, ok, err := q.StealInto(dst, observed, in.StealRunNext)
		if err != nil || ok != (len(out.Items) == 1) || ok && g != out.Items[0] {
			return nil
		}
		// The victim's head moves now; dst's tail, later.
		var moved appendix
		if n := dst.RingLen() - s.locals[in.Dst].RingLen(); n > 0 {
			moved.items = dst.Ring()[dst.RingLen()-n:]
		}
		return s.withLocal(in.P, q, s.pending[in.P]).withLocal(in.Dst, s.locals[in.Dst], moved).seal()
	case Empty:
		if s.locals[in.P].Empty() == out.Empty {
			return s
		}
	}
	return nil
}

func (m *model) stepGlobal(s *state, in Input, out Output) []any {
	q := cloneGlobal(s.global)
	switch in.Op {
	case GlobalPut:
		if len(in.Items) != 1 {
			return nil
		}
		q.Put(in.Items[0])
	case GlobalPutBatch:
		q.PutBatch(in.Items)
	case GlobalGet:
		g, ok := q.Get()
		if !ok {
			if len(out.Items) == 0 {
				return []any{s}
			}
			return nil
		}
		if len(out.Items) != 1 || out.Items[0] != g {
			return nil
		}
	case GlobalGetBatch:
		if in.Procs < 1 || !slices.Equal(q.GetBatch(in.Max, in.Procs), out.Items) {
			return nil
		}
	default:
		return nil
	}
	return []any{s.withGlobal(q).seal()}
}

// observedFor returns the ring length a grab that took got must have
// observed: 0 if it took nothing or runnext alone, else 2k-1 for k items.
func observedFor(q *spec.Queue[int], stealRunNext bool, got []int) int {
	if len(got) == 0 {
		return 0
	}
	if next, ok := q.RunNext(); ok && stealRunNext && len(got) == 1 && got[0] == next {
		return 0
	}
	return 2*len(got) - 1
}

func describeOperation(input, output any) string {
	in, out := input.(Input), output.(Output)
	switch in.Op {
	case Put:
		next := ""
		if in.Next {
			next = ", next"
		}
		return fmt.Sprintf("P%d.Put(%s%s) → overflow %s", in.P, items(in.Items), next, items(out.Items))
	case PutBatch:
		return fmt.Sprintf("P%d.PutBatch(%s) → rest %s", in.P, items(in.Items), items(out.Items))
	case Get:
		return fmt.Sprintf("P%d.Get() → %s, inheritTime %v", in.P, items(out.Items), out.InheritTime)
	case Drain:
		return fmt.Sprintf("P%d.Drain() → %s", in.P, items(out.Items))
	case Grab:
		return fmt.Sprintf("P%d.Grab(stealRunNext %v) → %s", in.P, in.StealRunNext, items(out.Items))
	case StealInto:
		return fmt.Sprintf("P%d.StealInto(P%d, stealRunNext %v) → %s", in.P, in.Dst, in.StealRunNext, items(out.Items))
	case Empty:
		return fmt.Sprintf("P%d.Empty() → %v", in.P, out.Empty)
	case GlobalPut, GlobalPutBatch:
		return fmt.Sprintf("%v(%s)", in.Op, items(in.Items))
	case GlobalGet:
		return fmt.Sprintf("GlobalGet() → %s", items(out.Items))
	case GlobalGetBatch:
		return fmt.Sprintf("GlobalGetBatch(max %d, procs %d) → %s", in.Max, in.Procs, items(out.Items))
	}
	return fmt.Sprintf("%v %+v → %+v", in.Op, in, out)
}

func describeState(st any) string {
	s := st.(*state)
	var b strings.Builder
	for p, q := range s.locals {
		fmt.Fprintf(&b, "P%d{", p)
		if next, ok := q.RunNext(); ok {
			fmt.Fprintf(&b, "next %d, ", next)
		}
		fmt.Fprintf(&b, "ring %s", items(q.Ring()))
		if a := s.pending[p]; len(a.items) > 0 {
			fmt.Fprintf(&b, ", pending %s", items(a.items))
		}
		b.WriteString("} ")
	}
	fmt.Fprintf(&b, "global %s", items(s.global.Items()))
	return b.String()
}

// items formats item ids; 0, the nil item, prints as nil.
func items(gs []int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, g := range gs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if g == 0 {
			b.WriteString("nil")
		} else {
			b.WriteString(strconv.Itoa(g))
		}
	}
	b.WriteByte(']')
	return b.String()
}
