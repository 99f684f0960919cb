//go:build !vsched_explore

package proptest

import (
	"testing"

	"github.com/vsched/vsched/internal/mutant"
)

var (
	// The sequential verifiers print a spec verdict.
	byProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestQueueMatchesSpec$",
		MustPrint: []string{"--- FAIL: TestQueueMatchesSpec", "spec"}}
	byFuzzSeeds = mutant.Verifier{Name: "fuzz", Pkg: "./fuzz", Run: "^FuzzQueue$",
		MustPrint: []string{"--- FAIL: FuzzQueue/", "spec"}}
	byGlobalProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestGlobalMatchesSpec$",
		MustPrint: []string{"--- FAIL: TestGlobalMatchesSpec", "spec mismatch"}}
	byMonotonicProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestQueueMatchesSpec$",
		MustPrint: []string{"--- FAIL: TestQueueMatchesSpec", `invariant "monotonicity" violated`}}
	byGlobalLenProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestGlobalMatchesSpec$",
		MustPrint: []string{"--- FAIL: TestGlobalMatchesSpec", `invariant "global size" violated`}}
	byGlobalFuzzSeeds = mutant.Verifier{Name: "fuzz", Pkg: "./fuzz", Run: "^FuzzGlobal$",
		MustPrint: []string{"--- FAIL: FuzzGlobal/", "spec mismatch"}}
	// The concurrent stress tests of package runq catch what only real
	// parallelism reaches. The Empty race was hit in about 4 of 5 runs of
	// 0.2 s on an idle 2-core machine, so three runs missed about once in
	// 125 (CI hit it); ten runs, stopping at the first report, cost about
	// as little. The steal stress missed drain-store-not-cas in 2 of 20
	// runs beside a kernel test run (0 of 20 idle), and ten runs missed it
	// on a machine loaded fifteen times over its two cores: thirty runs,
	// which cost nothing more when the first one reports.
	byStealStress = mutant.Verifier{Name: "steal-stress", Pkg: "./runq", Run: "^TestConcurrentStealsConsumeEveryItemExactlyOnce$", Count: 30,
		MustPrint: []string{"--- FAIL: TestConcurrentStealsConsumeEveryItemExactlyOnce", "want exactly once"}}
	byEmptyStress = mutant.Verifier{Name: "empty-stress", Pkg: "./runq", Run: "^TestEmptyNeverFalselyTrue$", Count: 10,
		MustPrint: []string{"--- FAIL: TestEmptyNeverFalselyTrue", "Empty() reported true"}}
)

// knownBadQueues are seeded bugs in runq (the local and the global queue)
// with the verifiers of this level of
// the pyramid that must report each. The explorer and the linearizability
// checker have their own lists.
var knownBadQueues = []struct {
	m         mutant.Mutant
	verifiers []mutant.Verifier
}{
	{mutant.Named("steal-floor-half"), []mutant.Verifier{byProptest, byFuzzSeeds}},
	{mutant.Named("kicked-runnext-lost"), []mutant.Verifier{byProptest, byFuzzSeeds}},
	{mutant.Named("get-store-not-cas"), []mutant.Verifier{byStealStress}},
	{mutant.Named("drain-store-not-cas"), []mutant.Verifier{byStealStress}},
	{mutant.Named("putslow-store-not-cas"), []mutant.Verifier{byStealStress}},
	{mutant.Named("empty-single-tail-read"), []mutant.Verifier{byEmptyStress}},
	// rapid's 100 random cases reach a full ring only sometimes (the
	// proptest missed this mutant in 2 of 10 runs); the committed fuzz
	// corpus reaches it every time.
	{mutant.Named("putslow-drops-new-item"), []mutant.Verifier{byFuzzSeeds}},
	{mutant.Named("drain-skips-runnext"), []mutant.Verifier{byProptest, byFuzzSeeds}},
	{mutant.Named("global-batch-uncapped"), []mutant.Verifier{byGlobalProptest, byGlobalFuzzSeeds}},
	// Each of these three shows in one check of its property alone: the
	// inheritTime of a runnext item, counters that never go back, and
	// the length that Len publishes. A property that stopped making that
	// check would pass them.
	{mutant.Named("get-runnext-no-inherit"), []mutant.Verifier{byProptest}},
	{mutant.Named("put-rewinds-empty-ring"), []mutant.Verifier{byMonotonicProptest}},
	{mutant.Named("global-putbatch-len-unpublished"), []mutant.Verifier{byGlobalLenProptest}},
	// Only an owner Put during a thief's pause, with runnext kicked into
	// the ring, shows this one; a committed fuzz seed reaches it every
	// time, rapid's 100 random cases in about two runs of three.
	{mutant.Named("grab-runnext-cas-gives-up"), []mutant.Verifier{byFuzzSeeds}},
}

// byKernelProptest is the single-M conformance test of the kernel against
// spec.Scheduler; byKernelStealPasses is the same from the states where an
// idle P steals from Ps with and without ring items. Shrinking the long
// runs of TestKernelMatchesSpec took up to 20 s per mutant; a known-bad
// run needs the report, not the shortest counterexample. Up to three
// runs, as rapid's random walk may miss a bug in one.
var (
	byKernelProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestKernelMatchesSpec$", Count: 3,
		Env:       []string{"RAPID_SHRINKTIME=1s"},
		MustPrint: []string{"--- FAIL: TestKernelMatchesSpec", "spec mismatch"}}
	byKernelStealPasses = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestKernelStealsRunnextOnlyOnTheLastPass$",
		MustPrint: []string{"--- FAIL: TestKernelStealsRunnextOnlyOnTheLastPass", "spec mismatch"}}
)

// byGroupProptest is the conformance of task groups, in a single-M
// kernel, to spec.Groups.
var byGroupProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestGroupsMatchSpec$",
	Env:       []string{"RAPID_SHRINKTIME=1s"},
	MustPrint: []string{"--- FAIL: TestGroupsMatchSpec", "spec mismatch"}}

func TestKnownBadKernelsAreReported(t *testing.T) {
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("yield-to-local"), byKernelProptest},
		{mutant.Named("wake-ignores-wakers-p"), byKernelProptest},
		{mutant.Named("fairness-after-local"), byKernelProptest},
		{mutant.Named("fairness-tick-64"), byKernelProptest},
		// TestKernelMatchesSpec's random walk rarely reaches the state
		// runnext-every-pass needs (it took thousands of checks), and one
		// run of its 100 cases missed spinning-bound-inverted under two go
		// test ./... at once; every case of the steal passes in which
		// another P holds a task reaches both.
		{mutant.Named("spinning-bound-inverted"), byKernelStealPasses},
		{mutant.Named("runnext-every-pass"), byKernelStealPasses},
		{mutant.Named("limit-slot-never-taken"), byGroupProptest},
		// Only the exact comparison of the error a continuation
		// receives shows this one: the continuation gets an error
		// whenever it should, but another value.
		{mutant.Named("join-err-wrapped"), byGroupProptest},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}

// byOrderProptest is the conformance of steal.Order with spec.Visit and
// spec.Coprimes.
var byOrderProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest",
	Run:       "^(TestOrderVisitsEveryPositionOnce|TestOrderStridesAreCoprimesWithDistinctSeeds)$",
	MustPrint: []string{"--- FAIL: TestOrder", "spec mismatch"}}

func TestKnownBadStealOrdersAreReported(t *testing.T) {
	// order-done-one-early visits every position but the last one, which
	// only the count of positions visited shows.
	for _, m := range []mutant.Mutant{mutant.Named("order-divisor-strides"), mutant.Named("order-done-one-early")} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, m, byOrderProptest)
		})
	}
}

func TestKnownBadQueuesAreReported(t *testing.T) {
	for _, kb := range knownBadQueues {
		for _, v := range kb.verifiers {
			t.Run(kb.m.Name+"/"+v.Name, func(t *testing.T) {
				t.Parallel()
				mutant.Report(t, kb.m, v)
			})
		}
	}
}
