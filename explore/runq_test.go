//go:build vsched_explore

package explore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anishathalye/porcupine"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/linearizability"
	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/spec"
)

// The scenarios run the real runq at Size 4 under every schedule within the
// preemption bound. Each checks conservation (every item put is consumed
// exactly once, by an owner's Get or Drain, a thief's steal, or from the
// global queue) and that the execution's history of operations is a legal
// history of spec, with package linearizability's model of the queue
// system.

// task is an item of the queues. Under RC11 its payload stands for what a
// scheduler writes into a task before it queues it (the closure, the state):
// the producer stores it with no order of its own before the put, and the
// consumer must see it, so the queue must make the put happen before the
// consume that hands the item out.
type task struct {
	id      int
	payload xsync.Uint32
}

func (g *task) String() string { return fmt.Sprintf("g%d", g.id) }

// system is the state of one execution of a scenario: the queues, the
// items, the ledger they are checked against, and the history of every
// operation, checked against spec's model when the execution ends. Its
// methods run on the explorer's threads one at a time, so plain fields are
// safe.
type system struct {
	ledger spec.Ledger[*task]
	next   int
	qs     []*runq.Queue[task]
	// global is the global queue behind its lock, as the kernel keeps it.
	mu     xsync.Mutex
	global runq.Global[task]
	rec    *linearizability.Recorder
}

// maxOpsPerThread bounds the operations a thread of a scenario records.
const maxOpsPerThread = 64

// newSystem returns a system of procs local queues whose history threads
// record.
func newSystem(procs, threads int) *system {
	s := &system{rec: linearizability.NewRecorder(threads, maxOpsPerThread)}
	for range procs {
		s.qs = append(s.qs, new(runq.Queue[task]))
	}
	return s
}

// actor is one thread's handle on the system: what it does is recorded in
// its own history buffer.
type actor struct {
	s  *system
	th *linearizability.Thread
}

func (s *system) actor(thread int) actor { return actor{s, s.rec.Thread(thread)} }

// do runs op between two stamps and records it with its input and output.
func (a actor) do(in linearizability.Input, op func() linearizability.Output) {
	call := a.th.Stamp()
	out := op()
	a.th.Record(call, a.th.Stamp(), in, out)
}

func ids(gs []*task) []int {
	out := make([]int, len(gs))
	for i, g := range gs {
		if g != nil {
			out[i] = g.id
		}
	}
	return out
}

// put puts a new item into queue p (as its owner) and sends an overflow to
// the global queue.
func (a actor) put(p int, next bool) {
	s := a.s
	s.next++
	g := s.newTask()
	var ov []*task
	a.do(linearizability.Input{Op: linearizability.Put, P: p, Items: []int{g.id}, Next: next}, func() linearizability.Output {
		ov = s.qs[p].Put(g, next)
		return linearizability.Output{Items: ids(ov)}
	})
	if ov != nil {
		explore.Assertf(len(ov) == runq.Size/2+1, "overflow of %d items, want Size/2+1", len(ov))
		s.mu.Lock()
		a.do(linearizability.Input{Op: linearizability.GlobalPutBatch, Items: ids(ov)}, func() linearizability.Output {
			s.global.PutBatch(ov)
			return linearizability.Output{}
		})
		s.mu.Unlock()
	}
}

// putBatch puts n new items into queue p (as its owner) with one PutBatch
// and sends the items that do not fit to the global queue.
func (a actor) putBatch(p, n int) {
	s := a.s
	gs := make([]*task, n)
	for i := range gs {
		gs[i] = s.newTask()
	}
	var rest []*task
	a.do(linearizability.Input{Op: linearizability.PutBatch, P: p, Items: ids(gs)}, func() linearizability.Output {
		rest = s.qs[p].PutBatch(gs)
		return linearizability.Output{Items: ids(rest)}
	})
	if len(rest) > 0 {
		s.mu.Lock()
		a.do(linearizability.Input{Op: linearizability.GlobalPutBatch, Items: ids(rest)}, func() linearizability.Output {
			s.global.PutBatch(rest)
			return linearizability.Output{}
		})
		s.mu.Unlock()
	}
}

// newTask returns a new item, entered in the ledger, its payload written
// under RC11.
func (s *system) newTask() *task {
	s.next++
	g := &task{id: s.next}
	s.must(s.ledger.Enter(g))
	if weakScenarios {
		g.payload.StoreRelaxed(1)
	}
	return g
}

func (s *system) consume(gs ...*task) {
	for _, g := range gs {
		explore.Assertf(g != nil, "a nil item was handed out")
		if weakScenarios {
			explore.Assertf(g.payload.LoadRelaxed() == 1, "%v was handed out without its payload: its put does not happen before its consume", g)
		}
		s.must(s.ledger.Leave(g))
	}
}

// get takes one item from queue p's owner side and reports whether there
// was one.
func (a actor) get(p int) bool {
	var got bool
	a.do(linearizability.Input{Op: linearizability.Get, P: p}, func() linearizability.Output {
		g, inherit := a.s.qs[p].Get()
		if g == nil {
			return linearizability.Output{}
		}
		got = true
		a.s.consume(g)
		return linearizability.Output{Items: []int{g.id}, InheritTime: inherit}
	})
	return got
}

// globalGet takes one item from the global queue and reports whether
// there was one.
func (a actor) globalGet() bool {
	s := a.s
	var got bool
	s.mu.Lock()
	a.do(linearizability.Input{Op: linearizability.GlobalGet}, func() linearizability.Output {
		g := s.global.Get()
		if g == nil {
			return linearizability.Output{}
		}
		got = true
		s.consume(g)
		return linearizability.Output{Items: []int{g.id}}
	})
	s.mu.Unlock()
	return got
}

func (a actor) drain(p int) {
	a.do(linearizability.Input{Op: linearizability.Drain, P: p}, func() linearizability.Output {
		gs := a.s.qs[p].Drain(nil)
		a.s.consume(gs...)
		return linearizability.Output{Items: ids(gs)}
	})
}

// steal moves about half of queue victim into queue thief (as thief's
// owner), consumes the item StealInto returns and reports whether there
// was one.
func (a actor) steal(victim, thief int, stealRunNext bool) bool {
	var got bool
	a.do(linearizability.Input{Op: linearizability.StealInto, P: victim, Dst: thief, StealRunNext: stealRunNext}, func() linearizability.Output {
		g := a.s.qs[victim].StealInto(a.s.qs[thief], stealRunNext, nil)
		if g == nil {
			return linearizability.Output{}
		}
		got = true
		a.s.consume(g)
		return linearizability.Output{Items: []int{g.id}}
	})
	return got
}

// grab takes about half of queue victim into a batch of exactly Size/2
// slots and consumes it.
func (a actor) grab(victim int, stealRunNext bool) {
	batch := make([]*task, runq.Size/2)
	a.do(linearizability.Input{Op: linearizability.Grab, P: victim, StealRunNext: stealRunNext}, func() linearizability.Output {
		n := a.s.qs[victim].Grab(batch, stealRunNext, nil)
		a.s.consume(batch[:n]...)
		return linearizability.Output{Items: ids(batch[:n])}
	})
}

func (a actor) empty(p int) bool {
	var empty bool
	a.do(linearizability.Input{Op: linearizability.Empty, P: p}, func() linearizability.Output {
		empty = a.s.qs[p].Empty()
		return linearizability.Output{Empty: empty}
	})
	return empty
}

// getGlobalBatch takes a fair share of the global queue, as findRunnable
// does, consumes the item to run and puts the rest into queue p.
func (a actor) getGlobalBatch(p, procs int) {
	s := a.s
	var g *task
	var rest []*task
	s.mu.Lock()
	a.do(linearizability.Input{Op: linearizability.GlobalGetBatch, Max: runq.Size / 2, Procs: procs}, func() linearizability.Output {
		g, rest = s.global.GetBatch(runq.Size/2, procs, make([]*task, 0, runq.Size/2))
		if g == nil {
			return linearizability.Output{}
		}
		return linearizability.Output{Items: append([]int{g.id}, ids(rest)...)}
	})
	s.mu.Unlock()
	if g == nil {
		return
	}
	s.consume(g)
	a.do(linearizability.Input{Op: linearizability.PutBatch, P: p, Items: ids(rest)}, func() linearizability.Output {
		return linearizability.Output{Items: ids(s.qs[p].PutBatch(rest))}
	})
}

// done drains every queue, checks that nothing was lost, and checks the
// execution's history against spec's model of the queue system.
func (a actor) done() {
	s := a.s
	for p := range s.qs {
		a.drain(p)
	}
	for a.globalGet() {
	}
	explore.Assertf(s.ledger.Live() == 0, "%d items were lost", s.ledger.Live())
	if weakScenarios {
		return
	}
	c := linearizability.Checker{Procs: len(s.qs), RingSize: runq.Size}
	ops := s.rec.Operations()
	if res, err := c.Check(ops); err != nil || res != porcupine.Ok {
		panic(fmt.Sprintf("the history is not a legal history of spec (%v, %v):\n%s", res, err, describe(ops)))
	}
}

// describe lists a history by call stamp.
func describe(ops []porcupine.Operation) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "  [%3d,%3d] T%d %+v -> %+v\n", op.Call, op.Return, op.ClientId, op.Input, op.Output)
	}
	return b.String()
}

func (s *system) must(err error) {
	if err != nil {
		panic(err.Error())
	}
}

// The Tokio scenarios are the four tests of tokio's loom_queue.rs in the
// shapes of their port (tokio_loom_queue_test.go), with the checks of
// every scenario here: each item consumed exactly once, and the history
// legal for spec. Queue 0 is the owner's (T0); the others belong to
// thieves.

func scenarioTokioBasic() {
	s := newSystem(2, 2)
	own, thief := s.actor(0), s.actor(1)
	th := explore.Go(func() {
		for range 3 {
			thief.steal(0, 1, false)
			for thief.get(1) {
			}
		}
	})
	for range 2 {
		own.put(0, false)
		own.put(0, false)
		own.get(0)
		own.put(0, false)
		for own.get(0) {
		}
	}
	for own.globalGet() {
	}
	th.Join()
	own.done()
}

func scenarioTokioStealOverflow() {
	s := newSystem(2, 2)
	own, thief := s.actor(0), s.actor(1)
	th := explore.Go(func() {
		thief.steal(0, 1, false)
		for thief.get(1) {
		}
	})
	own.put(0, false)
	own.get(0)
	for range 6 {
		own.put(0, false)
	}
	th.Join()
	for own.get(0) {
	}
	for own.globalGet() {
	}
	own.done()
}

func scenarioTokioMultiStealer() {
	s := newSystem(3, 3)
	own := s.actor(0)
	for range 5 {
		own.put(0, false)
	}
	var ths []*explore.Thread
	for i := 1; i <= 2; i++ {
		thief := s.actor(i)
		ths = append(ths, explore.Go(func() {
			if thief.steal(0, i, false) {
				for thief.get(i) {
				}
			}
		}))
	}
	for own.get(0) {
	}
	for own.globalGet() {
	}
	for _, th := range ths {
		th.Join()
	}
	own.done()
}

// scenarioTokioChainedSteal: queue 0 is a victim and, at the same time, the
// destination of its owner's steal from queue 1.
func scenarioTokioChainedSteal() {
	s := newSystem(3, 2)
	own, thief := s.actor(0), s.actor(1)
	for range 4 {
		own.put(0, false)
		own.put(1, false) // T0 fills queue 1 before its owner would run
	}
	th := explore.Go(func() {
		thief.steal(0, 2, false)
		for thief.get(2) {
		}
	})
	for own.get(0) {
	}
	own.steal(1, 0, false)
	th.Join()
	for own.get(0) {
	}
	for own.get(1) {
	}
	for own.globalGet() {
	}
	own.done()
}

// scenarioRunNextKickOutVsThief: the owner kicks its runnext out to the ring
// while a thief tries to take runnext.
func scenarioRunNextKickOutVsThief() {
	s := newSystem(1, 2)
	own, thief := s.actor(0), s.actor(1)
	own.put(0, true)
	th := explore.Go(func() { thief.grab(0, true) })
	own.put(0, true)
	own.get(0)
	th.Join()
	own.done()
}

// scenarioPutBatchVsThief: the owner publishes two items with one
// PutBatch while a thief steals from its queue into its own. Under RC11 the
// thief's acquire load of the tail must see the slots the batch wrote.
func scenarioPutBatchVsThief() {
	s := newSystem(2, 2)
	own, thief := s.actor(0), s.actor(1)
	th := explore.Go(func() { thief.steal(0, 1, false) })
	own.putBatch(0, 2)
	th.Join()
	own.done()
}

// scenarioEmptyNeverFalselyTrue is the runtime's TestSchedLocalQueueEmpty
// for one of its four runnext/ring combinations: the owner puts a first
// item (in runnext with next0), then a second (with next1) and takes one,
// while another thread asks once whether the queue is empty. An item stays
// in the queue the whole time, so Empty must say false.
func scenarioEmptyNeverFalselyTrue(next0, next1 bool) func() {
	return func() {
		s := newSystem(1, 2)
		own, observer := s.actor(0), s.actor(1)
		own.put(0, next0)
		th := explore.Go(func() {
			explore.Assertf(!observer.empty(0), "Empty() reported true while an item stayed in the queue (next0 %v, next1 %v)", next0, next1)
		})
		own.put(0, next1)
		own.get(0)
		th.Join()
		own.done()
	}
}

// fullQueue returns a system of procs queues, two threads' actors on it,
// and queue 0 filled to its Size by its owner (thread 0).
func fullQueue(procs int) (*system, actor, actor) {
	s := newSystem(procs, 2)
	own, thief := s.actor(0), s.actor(1)
	for range runq.Size {
		own.put(0, false)
	}
	return s, own, thief
}

// scenarioLenNeverAboveCapacity: a thread counts a full queue while a
// thief steals half of it and the owner refills it. The count's loads of
// head and tail may straddle both, so the tail it reads can be a whole
// steal ahead of the head; Len must still never exceed Size+1.
func scenarioLenNeverAboveCapacity() {
	s, own, thief := fullQueue(2)
	obs := explore.Go(func() {
		n := s.qs[0].Len()
		explore.Assertf(n <= runq.Size+1, "Len() = %d, more than Size+1 = %d", n, runq.Size+1)
	})
	th := explore.Go(func() {
		thief.steal(0, 1, false)
		thief.drain(1)
	})
	for range runq.Size / 2 {
		own.put(0, false)
	}
	obs.Join()
	th.Join()
	own.done()
}

// scenarioDrainVsGrab: the owner drains while a thief grabs.
func scenarioDrainVsGrab() {
	s := newSystem(1, 2)
	own, thief := s.actor(0), s.actor(1)
	for range 3 {
		own.put(0, false)
	}
	own.put(0, true)
	th := explore.Go(func() { thief.grab(0, true) })
	own.drain(0)
	th.Join()
	own.done()
}

// scenarioOverflowToGlobal: the owner overflows half its ring to the global
// queue while a thief steals and then pulls its share of the global queue.
func scenarioOverflowToGlobal() {
	_, own, thief := fullQueue(2)
	th := explore.Go(func() {
		thief.steal(0, 1, false)
		thief.getGlobalBatch(1, 2)
		thief.drain(1)
	})
	own.put(0, false) // overflows: Size/2 items and this one go global
	own.put(0, false)
	th.Join()
	own.done()
}

// wrap takes an item from the full queue p and puts one back, twice, so
// that its counters move a lap past where a thief may have read them.
func (a actor) wrap(p int) {
	for range 2 {
		a.get(p)
		a.put(p, false)
	}
}

// scenarioStealIntoHalfFullWhileVictimWraps: a thief steals into a queue
// that holds Size/2 items while the victim's owner consumes and refills, so
// that the thief's reads of head and tail can come from different moments.
func scenarioStealIntoHalfFullWhileVictimWraps() {
	_, own, thief := fullQueue(2)
	th := explore.Go(func() {
		for range runq.Size / 2 {
			thief.put(1, false)
		}
		thief.steal(0, 1, false)
		thief.drain(1)
	})
	own.wrap(0)
	th.Join()
	own.done()
}

// scenarioGrabWhileVictimWraps is the same race with Grab into a batch of
// exactly Size/2 slots.
func scenarioGrabWhileVictimWraps() {
	_, own, thief := fullQueue(1)
	th := explore.Go(func() { thief.grab(0, false) })
	own.wrap(0)
	th.Join()
	own.done()
}

var scenarios = []struct {
	name  string
	model func()
	// complete: the unbounded search finishes in seconds.
	complete bool
}{
	{"TokioBasic", scenarioTokioBasic, false},
	{"TokioStealOverflow", scenarioTokioStealOverflow, true},
	{"TokioMultiStealer", scenarioTokioMultiStealer, true},
	{"TokioChainedSteal", scenarioTokioChainedSteal, true},
	{"RunNextKickOutVsThief", scenarioRunNextKickOutVsThief, true},
	{"EmptyNeverFalselyTrue/next0=true,next1=true", scenarioEmptyNeverFalselyTrue(true, true), true},
	{"EmptyNeverFalselyTrue/next0=false,next1=true", scenarioEmptyNeverFalselyTrue(false, true), true},
	{"EmptyNeverFalselyTrue/next0=true,next1=false", scenarioEmptyNeverFalselyTrue(true, false), true},
	{"EmptyNeverFalselyTrue/next0=false,next1=false", scenarioEmptyNeverFalselyTrue(false, false), true},
	{"PutBatchVsThief", scenarioPutBatchVsThief, true},
	{"DrainVsGrab", scenarioDrainVsGrab, true},
	{"LenNeverAboveCapacity", scenarioLenNeverAboveCapacity, true},
	{"OverflowToGlobal", scenarioOverflowToGlobal, true},
	{"StealIntoHalfFullWhileVictimWraps", scenarioStealIntoHalfFullWhileVictimWraps, true},
	{"GrabWhileVictimWraps", scenarioGrabWhileVictimWraps, true},
}

// TestRunqScenarios explores every scenario at the default preemption
// bound (2, or VSCHED_MAX_PREEMPTIONS).
func TestRunqScenarios(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			explore.Check(t, sc.model)
		})
	}
}

// TestRunqScenariosUnbounded explores every interleaving of the scenarios
// small enough for it: with no bound, sleep sets keep the search to
// seconds.
func TestRunqScenariosUnbounded(t *testing.T) {
	if testing.Short() {
		t.Skip("the bounded search runs in -short")
	}
	for _, sc := range scenarios {
		if !sc.complete {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			res := explore.Config{MaxPreemptions: explore.Unbounded}.Check(t, sc.model)
			if !res.Complete {
				t.Fatalf("the unbounded search did not complete: %s", explore.Summary(res))
			}
		})
	}
}

// TestRunqScenariosWithoutReduction runs the scenarios at the default bound
// without sleep sets, a cross-check of the reduction on the real code.
func TestRunqScenariosWithoutReduction(t *testing.T) {
	if testing.Short() {
		t.Skip("the reduced search runs in -short")
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			explore.Config{NoReduction: true}.Check(t, sc.model)
		})
	}
}

// BenchmarkExplore reports the executions per second of the search on a
// fixed scenario: with sleep sets under SC and under RC11, and without
// reduction under SC. Every variant makes the checks of an RC11 run.
func BenchmarkExplore(b *testing.B) {
	for _, cfg := range []struct {
		name string
		cfg  explore.Config
	}{
		{"reduction=sleepsets/memory=sc", explore.Config{}},
		{"reduction=sleepsets/memory=rc11", explore.Config{Memory: explore.RC11}},
		{"reduction=none/memory=sc", explore.Config{NoReduction: true}},
	} {
		b.Run("scenario=TokioBasic/"+cfg.name, func(b *testing.B) {
			// The same checks under both models: conservation and
			// publication, not the history (see weakScenarios).
			weakScenarios = true
			defer func() { weakScenarios = false }()
			executions := 0
			for b.Loop() {
				res, err := explore.Run(cfg.cfg, scenarioTokioBasic)
				if err != nil || res.Failure != nil || !res.Complete {
					b.Fatal(err, explore.Summary(res))
				}
				executions += res.Executions + res.Pruned
			}
			b.ReportMetric(float64(executions)/b.Elapsed().Seconds(), "executions/s")
			b.ReportMetric(float64(executions)/float64(b.N), "executions/op")
		})
	}
}

// weakScenarios is set while the scenarios run under RC11. There a thief
// may read the victim's tail as it was before its steal began (a stale
// value its acquire of head allows), find the ring emptier than it is, and
// take less: a history that is not linearizable against the real-time
// order of the stamps, and that the algorithm tolerates, since a steal
// only ever finds less. So under RC11 a scenario checks conservation, every
// item consumed exactly once, and publication, every item's payload seen by
// its consumer, and not its history.
var weakScenarios bool

// TestRunqScenariosRC11 explores every scenario under the weak memory
// model: loads may read older stores, as far as the orders runq names
// allow, within the default bounds (2 preemptions, 2 stale choices).
func TestRunqScenariosRC11(t *testing.T) {
	weakScenarios = true
	defer func() { weakScenarios = false }()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			explore.Config{Memory: explore.RC11}.Check(t, sc.model)
		})
	}
}
