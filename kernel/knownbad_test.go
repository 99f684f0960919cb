package kernel

import (
	"testing"

	"github.com/vsched/vsched/internal/mutant"
)

// TestKnownBadKernelsAreReported: seeded bugs of the kernel that neither
// the conformance test against spec.Scheduler (proptest) nor the
// explorer's models report, because the scheduler still runs every task
// once, must make one of this package's tests fail.
func TestKnownBadKernelsAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	byTest := func(name, why string) mutant.Verifier {
		return mutant.Verifier{Name: "kernel tests", Pkg: "./kernel", Run: "^" + name + "$",
			MustPrint: []string{"--- FAIL: " + name, why}}
	}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		// Extra spinning Ms cost cores, not correctness.
		{mutant.Named("wakep-ignores-spinner"), byTest("TestWakepStartsNoMWhileAnMSpins", "wakep with an M spinning")},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}
