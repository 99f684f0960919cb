//go:build vsched_explore

package explore_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
)

// instr is one operation of a generated program.
type instr struct {
	op   int // 0 load, 1 store, 2 cas, 3 add, 4 lock+load+store+unlock, 5 spin+load; 6 relaxed load, 7 relaxed store, 8 acquire load, 9 release store, 10 fence
	addr int
	val  int32
}

// program runs threads of instructions over a few shared cells and returns
// a model that adds its outcome (every value each thread read, then the
// final memory) to seen.
func program(threads [][]instr, seen map[string]bool) func() {
	return func() {
		var cells [3]xsync.Int32
		var mu xsync.Mutex
		reads := make([][]int32, len(threads))
		run := func(i int) {
			for _, in := range threads[i] {
				c := &cells[in.addr]
				switch in.op {
				case 0:
					reads[i] = append(reads[i], c.Load())
				case 1:
					c.Store(in.val)
				case 2:
					if c.Cas(0, in.val) {
						reads[i] = append(reads[i], 1)
					} else {
						reads[i] = append(reads[i], 0)
					}
				case 3:
					reads[i] = append(reads[i], c.Add(in.val))
				case 4:
					mu.Lock()
					c.Store(c.Load() + in.val)
					mu.Unlock()
				case 5:
					xsync.Spin()
					reads[i] = append(reads[i], c.Load())
				case 6:
					reads[i] = append(reads[i], c.LoadRelaxed())
				case 7:
					c.StoreRelaxed(in.val)
				case 8:
					reads[i] = append(reads[i], c.LoadAcq())
				case 9:
					c.StoreRel(in.val)
				case 10:
					xsync.FenceSC()
				}
			}
		}
		var ths []*explore.Thread
		for i := 1; i < len(threads); i++ {
			ths = append(ths, explore.Go(func() { run(i) }))
		}
		run(0)
		for _, th := range ths {
			th.Join()
		}
		seen[fmt.Sprint(reads, cells[0].Load(), cells[1].Load(), cells[2].Load())] = true
	}
}

// sameOutcomes fails unless the search with sleep sets reaches exactly the
// outcomes of the search without them at bound, in no more executions.
func sameOutcomes(t interface{ Fatalf(string, ...any) }, threads [][]instr, bound int) {
	sameOutcomesIn(t, explore.Config{MaxPreemptions: bound, SleepSetsOnly: true}, threads)
}

// sameOutcomesIn fails unless the search under cfg reaches exactly the
// outcomes of the search with no reduction under cfg's bounds and memory
// model, in no more executions.
func sameOutcomesIn(t interface{ Fatalf(string, ...any) }, cfg explore.Config, threads [][]instr) {
	bound := cfg.MaxPreemptions
	full, reduced := map[string]bool{}, map[string]bool{}
	fullCfg := cfg
	fullCfg.NoReduction = true
	rf, err := explore.Run(fullCfg, program(threads, full))
	if err != nil || rf.Failure != nil || !rf.Complete {
		t.Fatalf("full search: %v %v", err, rf.Failure)
	}
	rr, err := explore.Run(cfg, program(threads, reduced))
	if err != nil || rr.Failure != nil || !rr.Complete {
		t.Fatalf("reduced search: %v %v", err, rr.Failure)
	}
	if !maps.Equal(full, reduced) {
		t.Fatalf("outcomes differ at bound %d:\nfull (%d executions):    %v\nreduced (%d executions): %v",
			bound, rf.Executions, slices.Sorted(maps.Keys(full)), rr.Executions, slices.Sorted(maps.Keys(reduced)))
	}
	if rr.Executions > rf.Executions {
		t.Fatalf("the reduced search ran %d executions, more than the full one's %d", rr.Executions, rf.Executions)
	}
}

// TestSleepSetsReachEveryOutcomeOfTheFullSearch: at any preemption bound,
// the search with sleep sets must reach exactly the outcomes the search
// without them reaches at that bound, on random programs. (A sleep set
// holds only choices whose subtrees nothing was cut from for the bound, so
// the two searches cover the same executions up to reordering of
// independent steps.)
func TestSleepSetsReachEveryOutcomeOfTheFullSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.Custom(func(t *rapid.T) instr {
			return instr{rapid.IntRange(0, 5).Draw(t, "op"), rapid.IntRange(0, 2).Draw(t, "addr"), rapid.Int32Range(1, 3).Draw(t, "val")}
		})
		bound := rapid.SampledFrom([]int{1, 2, explore.Unbounded}).Draw(t, "bound")
		// Without a bound the full search of three threads can exceed the
		// explorer's cap of a million executions (three threads of two
		// mutex increments are 24 steps), and a search that stops at the
		// cap compares nothing: CI once drew such a program and spent two
		// minutes on it before failing. Two threads stay near ten
		// thousand executions.
		maxThreads := 3
		if bound == explore.Unbounded {
			maxThreads = 2
		}
		threads := rapid.SliceOfN(rapid.SliceOfN(gen, 1, 2), 2, maxThreads).Draw(t, "threads")
		sameOutcomes(t, threads, bound)
	})
}

// TestSleepSetsReachEveryOutcomeOfTheFullSearchUnderRC11 is the same
// comparison under the weak memory model, with operations of every order
// and fences, at stale bounds 1, 2 and none: the reduction must not lose an
// outcome that a stale read or a store placed early in the modification
// order makes reachable.
func TestSleepSetsReachEveryOutcomeOfTheFullSearchUnderRC11(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.Custom(func(t *rapid.T) instr {
			return instr{rapid.IntRange(0, 10).Draw(t, "op"), rapid.IntRange(0, 2).Draw(t, "addr"), rapid.Int32Range(1, 3).Draw(t, "val")}
		})
		bound := rapid.SampledFrom([]int{1, 2, explore.Unbounded}).Draw(t, "bound")
		stale := rapid.SampledFrom([]int{1, 2, explore.Unbounded}).Draw(t, "stale")
		maxThreads := 3
		if bound == explore.Unbounded {
			maxThreads = 2
		}
		threads := rapid.SliceOfN(rapid.SliceOfN(gen, 1, 2), 2, maxThreads).Draw(t, "threads")
		sameOutcomesIn(t, explore.Config{MaxPreemptions: bound, Memory: explore.RC11, MaxStale: stale, SleepSetsOnly: true}, threads)
	})
}

// TestSleepSetsReachEveryOutcomeOfKnownCounterexamples runs the comparison
// above on the shortest programs that broke a seeded bug of the reduction,
// so that each bug is reported on every run, not only when the random
// programs happen to contain a case for it.
func TestSleepSetsReachEveryOutcomeOfKnownCounterexamples(t *testing.T) {
	for _, c := range []struct {
		name    string
		threads [][]instr
	}{{
		// T0 loads what T1 stores: the two orders give different reads.
		name:    "load-vs-store",
		threads: [][]instr{{{op: 0, addr: 1}}, {{op: 1, addr: 1, val: 1}}},
	}, {
		// Three threads on one cell at bound 1: some orders are reachable
		// only through a choice whose first subtree the bound cut.
		name:    "load-cas-locked-add",
		threads: [][]instr{{{op: 0, addr: 0}}, {{op: 2, addr: 0, val: 1}}, {{op: 4, addr: 0, val: 1}}},
	}} {
		t.Run(c.name, func(t *testing.T) {
			for _, bound := range []int{1, 2, explore.Unbounded} {
				sameOutcomes(t, c.threads, bound)
			}
		})
	}
}

// TestSleepSetsKeepTheOrdersASpinDecides is the counterexample that showed
// spins and sleep sets interacting: whether T1 may run after its Spin
// depends on the order of the steps before, so they do not commute.
func TestSleepSetsKeepTheOrdersASpinDecides(t *testing.T) {
	for _, cfg := range []explore.Config{{}, {MaxPreemptions: explore.Unbounded, SleepSetsOnly: true}} {
		seen := map[int32]bool{}
		cfg.Check(t, func() {
			var mu xsync.Mutex
			var c xsync.Int32
			var r int32
			th := explore.Go(func() {
				xsync.Spin()
				r = c.Load()
			})
			mu.Lock()
			c.Store(c.Load() + 1)
			mu.Unlock()
			th.Join()
			seen[r] = true
		})
		if !seen[0] || !seen[1] {
			t.Fatalf("%+v: T1 read %v; want both 0 and 1", cfg, seen)
		}
	}
}

// TestDPORReachesEveryOutcomeOfTheFullSearch: without a bound, the search
// with dynamic partial-order reduction must reach exactly the outcomes of
// the search without any reduction, in no more executions, on random
// programs of loads, stores, compare-and-swaps, adds and mutex-guarded
// increments (no spins: a spin sends the search back to sleep sets, which
// the test above covers). Two threads get up to three operations, three
// threads one each, so that the full search stays near ten thousand
// executions.
func TestDPORReachesEveryOutcomeOfTheFullSearch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.Custom(func(t *rapid.T) instr {
			return instr{rapid.IntRange(0, 4).Draw(t, "op"), rapid.IntRange(0, 2).Draw(t, "addr"), rapid.Int32Range(1, 3).Draw(t, "val")}
		})
		n := rapid.IntRange(2, 3).Draw(t, "n")
		per := 3
		if n == 3 {
			per = 1
		}
		threads := rapid.SliceOfN(rapid.SliceOfN(gen, 1, per), n, n).Draw(t, "threads")
		sameOutcomesIn(t, explore.Config{MaxPreemptions: explore.Unbounded}, threads)
	})
}

// TestDPORReachesEveryOutcomeOfTheFullSearchUnderRC11 is the same
// comparison under the weak memory model, with operations of every order
// and fences, at stale bounds 1, 2 and none: the stale reads stay choices
// of the search inside each step.
func TestDPORReachesEveryOutcomeOfTheFullSearchUnderRC11(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		gen := rapid.Custom(func(t *rapid.T) instr {
			op := rapid.SampledFrom([]int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10}).Draw(t, "op")
			return instr{op, rapid.IntRange(0, 2).Draw(t, "addr"), rapid.Int32Range(1, 3).Draw(t, "val")}
		})
		stale := rapid.SampledFrom([]int{1, 2, explore.Unbounded}).Draw(t, "stale")
		n := rapid.IntRange(2, 3).Draw(t, "n")
		per := 3
		if n == 3 {
			per = 1
		}
		threads := rapid.SliceOfN(rapid.SliceOfN(gen, 1, per), n, n).Draw(t, "threads")
		sameOutcomesIn(t, explore.Config{MaxPreemptions: explore.Unbounded, Memory: explore.RC11, MaxStale: stale}, threads)
	})
}

// TestDPORReachesEveryOutcomeOfKnownCounterexamples runs the comparison on
// the shortest programs that broke a seeded bug of the reduction, so that
// each is reported on every run.
func TestDPORReachesEveryOutcomeOfKnownCounterexamples(t *testing.T) {
	for _, c := range []struct {
		name    string
		threads [][]instr
		// reduction is the reduction the search must report using.
		reduction string
	}{{
		// T0 reads a cell that T1 and T2 increment under a mutex: T0
		// reads 2 only if T2 takes the mutex first, an order that only
		// the race of the two Locks (which T1's Unlock orders) reverses.
		// A sleeping thread that is merely independent of the reversal
		// does not cover it either.
		name:      "load-vs-two-locked-adds",
		threads:   [][]instr{{{op: 0, addr: 0}}, {{op: 4, addr: 0, val: 1}}, {{op: 4, addr: 0, val: 2}}},
		reduction: "DPOR",
	}, {
		// T1's Cas fails or succeeds depending on T0's load only as a
		// load: a Cas analysed as a load although it wrote hides the
		// order in which T0 reads its value.
		name:      "load-vs-cas",
		threads:   [][]instr{{{op: 0, addr: 2}}, {{op: 2, addr: 2, val: 1}}},
		reduction: "DPOR",
	}, {
		// T1 spins and then reads what T0 writes under a mutex: whether
		// T1 may go on after its spin depends on T0 having stepped, a
		// dependency of no pair of steps, so the search falls back to
		// sleep sets.
		name:      "spin-vs-locked-add",
		threads:   [][]instr{{{op: 4, addr: 0, val: 1}}, {{op: 5, addr: 0}}},
		reduction: "sleep sets (DPOR does not model the Spin the model reached)",
	}, {
		// Three threads over three cells; a reversal whose only covering
		// thread sleeps, merely independent of it, is lost without
		// strict initials.
		name: "three-cells",
		threads: [][]instr{
			{{op: 2, addr: 1, val: 3}, {op: 3, addr: 2, val: 1}},
			{{op: 0, addr: 2}, {op: 4, addr: 1, val: 2}},
			{{op: 3, addr: 2, val: 1}, {op: 0, addr: 2}},
		},
		reduction: "DPOR",
	}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := explore.Config{MaxPreemptions: explore.Unbounded}
			sameOutcomesIn(t, cfg, c.threads)
			res, err := explore.Run(cfg, program(c.threads, map[string]bool{}))
			if err != nil || res.Reduction != c.reduction {
				t.Fatalf("the search used reduction %q (%v), want %q", res.Reduction, err, c.reduction)
			}
		})
	}
}

// TestDPORReordersTheSleepsOfANote: two threads sleep on one note, and
// each, woken, counts and passes the wakeup on. Which thread takes the
// first wakeup decides the counts, and only the race of the two Sleeps
// (which the Wakeup between orders) reverses it. The random programs of
// the differential tests use no notes; this model stands for them.
func TestDPORReordersTheSleepsOfANote(t *testing.T) {
	relay := func(seen map[string]bool) func() {
		return func() {
			var n xsync.Note
			var c xsync.Int32
			var r1, r2 int32
			t1 := explore.Go(func() { n.Sleep(); r1 = c.Add(1); n.Wakeup() })
			t2 := explore.Go(func() { n.Sleep(); r2 = c.Add(1); n.Wakeup() })
			n.Wakeup()
			t1.Join()
			t2.Join()
			seen[fmt.Sprint(r1, r2)] = true
		}
	}
	for _, mem := range []explore.Memory{explore.SC, explore.RC11} {
		full, reduced := map[string]bool{}, map[string]bool{}
		explore.Config{MaxPreemptions: explore.Unbounded, Memory: mem, NoReduction: true}.Check(t, relay(full))
		res := explore.Config{MaxPreemptions: explore.Unbounded, Memory: mem}.Check(t, relay(reduced))
		if !maps.Equal(full, reduced) || res.Reduction != "DPOR" {
			t.Fatalf("memory %v: outcomes differ: full %v, %s %v", mem, slices.Sorted(maps.Keys(full)), res.Reduction, slices.Sorted(maps.Keys(reduced)))
		}
	}
}
