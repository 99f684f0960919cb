//go:build vsched_explore

package explorer

import "unsafe"

// Dynamic partial-order reduction with source sets and sleep sets
// (Source-DPOR: Abdulla, Aronis, Jonsson and Sagonas, "Optimal dynamic
// partial order reduction", POPL 2014, Algorithm 1).
//
// Every execution that ends (or is pruned) is analysed for races: two
// dependent steps of different threads that no third step orders. For each
// race the sequence v that reverses it is formed: the steps after the
// first that do not happen after it, then the second. Unless the decision
// before the first step already explores a thread that can start v (one of
// v's initials), one is added to the threads it explores. The search then
// explores, at each decision, only its first choice and the threads races
// asked for, skipping those in the sleep set; an execution whose every
// thread sleeps is pruned (Result.Pruned), the price of source sets
// without wakeup trees.
//
// The wakeup trees of the paper's optimal algorithm let a sleeping thread
// that can start v "weakly" (its step is independent of all of v) cover
// the reversal. With the sleep sets and the dependency here that rule
// loses outcomes: on three threads, a load and two mutex increments, it
// misses one the full search reaches (the mutant dpor-weak-initial-sleeps
// keeps the rule, and the differential test reports it). So the search
// keeps strict initials.
//
// Dependency is independent's complement, by address: the analysis
// compares a step only with the earlier steps on its address and with the
// fences (a fence, with every step). A timed sleep, which independent
// holds dependent on every step, reaches the analysis only when no
// timeout is allowed (else the search falls back, see below), and is then
// a Sleep: it depends on its note's Wakeups. Two additions:
//   - Go orders the parent's step before the child's first, and a thread's
//     last step comes before the Join that waits for it;
//   - two acquisitions of one mutex race even though the holder's Unlock
//     orders them, as long as the second thread had not seen the first
//     acquisition otherwise: reversing the Unlock and the Lock is never
//     possible, reversing the two Locks is. The same holds of two Sleeps
//     on one note, each taking a wakeup, ordered by the Wakeup between.
//
// A Cas that failed wrote nothing, and is analysed as a load.
//
// Under RC11 a step's reads-from and its store's place in the modification
// order are choices of the search inside the step, all explored; a race's
// reversal is replayed with each of them. The count of stale choices is
// the same in every order of a trace's steps (a load and the stores of
// its location are dependent, so the stores before it are the same), so
// the stale bound and the reduction do not interfere.
//
// The reduction runs only in an unbounded search, and gives way to sleep
// sets when a model spins or lets timed sleeps end by their timeouts:
// whether a thread held back after its spin, or a timed sleep, may step
// depends on what every other thread is doing, a dependency that no pair
// of steps shows (see Config.SleepSetsOnly and the package doc of
// explore).

// event is a step of an analysed execution: its thread, its operation, its
// place in its thread (1 for the first step), and its vector clock, whose
// entry u counts the steps of thread u that happen before it, itself
// included.
type event struct {
	t   int
	a   access
	idx int32
	vc  vector
}

// vector is a vector clock of the race analysis.
type vector [MaxThreads]int32

// race is a pair of steps, by their places in the execution, that race.
type race struct{ j, k int }

// before reports whether event x happens before event y (or is y).
func before(x, y *event) bool { return y.vc[x.t] >= x.idx }

// takes reports whether op takes what only one thread may have at a time
// and gives it back by another step: a Lock the mutex (its Unlock gives it
// back), a Sleep the note's wakeup (a Wakeup gives another). Two takings
// race although the step that gives back orders them.
func takes(op Op) bool { return op == OpLock || op == OpSleep || op == OpSleepFor }

// dependent reports whether two steps of different threads conflict.
func dependent(a, b access) bool { return !independent(a, b) }

func (vc *vector) join(o *vector) {
	for i := range vc {
		vc[i] = max(vc[i], o[i])
	}
}

// analyse finds the races of the execution e just ended and adds, for
// each, a thread that starts its reversal to the decision before its first
// step. The steps are the thread decisions of the stack; under RC11 the
// memory model's choices between them belong to the step before, and are
// explored in full at every visit.
func (ex *explorer) analyse(e *execution) {
	n := min(len(ex.stack), e.depth)
	evs := ex.events[:0]
	if cap(evs) < n {
		evs = make([]event, 0, n)
	}
	all := uint64(1)<<len(e.threads) - 1
	var last, count [MaxThreads]int32
	for i := range last {
		last[i] = -1
	}
	races := ex.races[:0]
	if ex.byAddr == nil {
		ex.byAddr = map[unsafe.Pointer]int{}
	}
	clear(ex.byAddr)
	ex.lists, ex.fences = ex.lists[:0], ex.fences[:0]
	// The steps are the thread decisions; the memory model's choices
	// between them are part of the step before.
	ex.evNode, ex.nodeEv = ex.evNode[:0], ex.nodeEv[:0]
	for d := range n {
		ex.nodeEv = append(ex.nodeEv, int32(len(ex.evNode)))
		if !ex.stack[d].data {
			ex.evNode = append(ex.evNode, int32(d))
		}
	}
	for k := range ex.evNode {
		nd := &ex.stack[ex.evNode[k]]
		t := nd.chosen
		a := nd.ops[t]
		if nd.readOnly {
			a.op = OpLoad
		}
		evs = evs[:k+1]
		ev := &evs[k]
		*ev = event{t: t, a: a}
		switch {
		case last[t] >= 0:
			ev.vc = evs[last[t]].vc
		case e.threads[t].created >= 0:
			ev.vc = evs[ex.nodeEv[e.threads[t].created]].vc
		}
		if a.op == OpJoin {
			if l := last[a.join.id]; l >= 0 {
				ev.vc.join(&evs[l].vc)
			}
		}
		own := ev.vc // what the thread had seen before its dependencies
		// Walk back over the steps that may depend on this one (those on
		// its address, and the fences; every step for a fence): each
		// dependent one that no later dependency (or the thread's own
		// past) already orders before this step is in an immediate race
		// with it.
		var same []int32
		if a.addr != nil {
			li, ok := ex.byAddr[a.addr]
			if !ok {
				li = len(ex.lists)
				if li < cap(ex.lists) {
					ex.lists = ex.lists[:li+1]
					ex.lists[li] = ex.lists[li][:0]
				} else {
					ex.lists = append(ex.lists, nil)
				}
				ex.byAddr[a.addr] = li
			}
			same = ex.lists[li]
			ex.lists[li] = append(same, int32(k))
		}
		// Once a step of a thread is ordered before this one, so are
		// the thread's earlier steps: the walk ends when every thread
		// has one.
		ordered := uint64(1) << t
		check := func(j int) {
			p := &evs[j]
			switch {
			case ordered&(1<<p.t) != 0:
			case ev.vc[p.t] >= p.idx:
				ordered |= 1 << p.t
			case dependent(p.a, a):
				races = append(races, race{j, k})
				ev.vc.join(&p.vc)
				ordered |= 1 << p.t
			}
		}
		if a.op == OpFence {
			for j := k - 1; j >= 0 && ordered != all; j-- {
				check(j)
			}
		} else {
			fences := ex.fences
			for i, f := len(same)-1, len(fences)-1; (i >= 0 || f >= 0) && ordered != all; {
				if f < 0 || i >= 0 && same[i] > fences[f] {
					check(int(same[i]))
					i--
				} else {
					check(int(fences[f]))
					f--
				}
			}
		}
		if a.op == OpFence {
			ex.fences = append(ex.fences, int32(k))
		}
		if takes(a.op) {
			// The taking before this one (of the mutex, or of the note's
			// wakeup), if another thread's that this thread had not seen:
			// the two race.
			for i := len(same) - 1; i >= 0; i-- {
				p := &evs[same[i]]
				if takes(p.a.op) {
					if p.t != t && own[p.t] < p.idx {
						races = append(races, race{int(same[i]), k})
					}
					break
				}
			}
		}
		count[t]++
		ev.idx = count[t]
		ev.vc[t] = ev.idx
		last[t] = int32(k)
	}
	ex.events, ex.races = evs, races
	for _, r := range races {
		v := ex.seq[:0]
		first := &evs[r.j]
		for m := r.j + 1; m < len(evs); m++ {
			if m != r.k && !before(first, &evs[m]) {
				v = append(v, m)
			}
		}
		v = append(v, r.k)
		ex.seq = v
		ex.reverse(int(ex.evNode[r.j]), v)
	}
}

// initials returns the threads that can start sequence v (indices into
// ex.events): those whose first step in v happens after no earlier step of
// v.
func (ex *explorer) initials(v []int) uint64 {
	evs := ex.events
	var seen, init uint64
	for i, m := range v {
		t := evs[m].t
		if seen&(1<<t) != 0 {
			continue
		}
		seen |= 1 << t
		first := true
		for _, p := range v[:i] {
			if before(&evs[p], &evs[m]) {
				first = false
				break
			}
		}
		if first {
			init |= 1 << t
		}
	}
	return init
}

// reverse makes sure that the decision at depth d explores a thread that
// can start v, the reversal of a race: one of v's initials, unless one is
// there already. A sleeping initial is preferred (its subtree already
// covers v), then the thread of v's last step, the second of the race.
//
// An initial that cannot step at d (a Lock of a held mutex, a Sleep with
// no wakeup pending, a Join of a live thread) can never start v: what
// would enable it is a step it depends on, which would then come before
// it in v. Such a reversal (an Unlock and the Lock it let in, say) is no
// race, and nothing is added.
func (ex *explorer) reverse(d int, v []int) {
	nd := &ex.stack[d]
	init := ex.initials(v) & nd.enabled
	if init == 0 || init&nd.backtrack != 0 {
		return
	}
	switch last := ex.events[v[len(v)-1]].t; {
	case init&nd.sleep != 0:
		nd.backtrack |= 1 << lowest(init&nd.sleep)
	case init&(1<<last) != 0:
		nd.backtrack |= 1 << last
	default:
		nd.backtrack |= 1 << lowest(init)
	}
}
