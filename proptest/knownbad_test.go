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
	// The concurrent stress tests of package runq catch what only real
	// parallelism reaches. The Empty race was hit in about 4 of 5 runs of
	// 0.2 s on an idle 2-core machine, so three runs missed about once in
	// 125 (CI hit it); ten runs, stopping at the first report, cost about
	// as little.
	byStealStress = mutant.Verifier{Name: "steal-stress", Pkg: "./runq", Run: "^TestConcurrentStealsConsumeEveryItemExactlyOnce$", Count: 3,
		MustPrint: []string{"--- FAIL: TestConcurrentStealsConsumeEveryItemExactlyOnce", "want exactly once"}}
	byEmptyStress = mutant.Verifier{Name: "empty-stress", Pkg: "./runq", Run: "^TestEmptyNeverFalselyTrue$", Count: 10,
		MustPrint: []string{"--- FAIL: TestEmptyNeverFalselyTrue", "Empty() reported true"}}
)

// knownBadQueues are seeded bugs in runq with the verifiers of this level of
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
}

// byKernelProptest is the single-M conformance test of the kernel against
// spec.Scheduler.
var byKernelProptest = mutant.Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestKernelMatchesSpec$",
	MustPrint: []string{"--- FAIL: TestKernelMatchesSpec", "spec mismatch"}}

func TestKnownBadKernelsAreReported(t *testing.T) {
	for _, m := range []mutant.Mutant{mutant.Named("yield-to-local"), mutant.Named("wake-ignores-wakers-p"), mutant.Named("fairness-after-local")} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, m, byKernelProptest)
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
