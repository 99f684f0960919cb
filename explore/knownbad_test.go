//go:build vsched_explore

package explore_test

import (
	"testing"

	"github.com/vsched/vsched/internal/mutant"
)

// The explorer is trusted because it reports these seeded bugs, each with a
// schedule that replays it.

var byScenarios = mutant.Verifier{Name: "explore", Pkg: "./explore", Run: "^TestRunqScenarios$", Tags: "vsched_explore",
	MustPrint: []string{"--- FAIL: TestRunqScenarios/", "VSCHED_REPLAY=", "trace (one column per thread"}}

func TestKnownBadQueuesAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	for _, m := range []mutant.Mutant{
		mutant.GrabLoadStoreNotCas,
		mutant.GetStoreNotCas,
		mutant.TailBeforeSlot,
		mutant.NoTornReadRetry,
		mutant.EmptySingleTailRead,
		mutant.KickedRunNextLost,
		mutant.StealFloorHalf,
	} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, m, byScenarios)
		})
	}
}

// TestKnownBadReductionIsReported seeds a bug in the explorer itself: a load
// and a store of the same address are taken as independent, so sleep sets
// prune orders that matter. The differential test of the reduction must
// report it.
func TestKnownBadReductionIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant; skipped in -short")
	}
	m := mutant.Mutant{
		Name: "load-store-independent",
		File: "internal/explorer/engine.go",
		Old:  "return a.op == OpLoad && b.op == OpLoad",
		New:  "return a.op == OpLoad || b.op == OpLoad // mutant: a load commutes with a store",
	}
	mutant.Report(t, m, mutant.Verifier{Name: "reduction", Pkg: "./explore", Run: "^TestSleepSetsReachEveryOutcomeOfTheFullSearch$",
		Tags: "vsched_explore", MustPrint: []string{"outcomes differ"}})
}
