//go:build linux && !vsched_explore

package netpoll_test

import (
	"testing"

	"github.com/vsched/vsched/internal/mutant"
)

// TestKnownBadPollersAreReported: each seeded bug of the poller that only
// a real epoll instance shows must make one of this package's tests fail.
// The wait-slot bugs are checked by the explorer's slot models
// (explore/knownbad_test.go).
func TestKnownBadPollersAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	byTest := func(name, why string) mutant.Verifier {
		return mutant.Verifier{Name: "netpoll tests", Pkg: "./netpoll", Run: "^" + name + "$",
			MustPrint: []string{"--- FAIL: " + name, why}}
	}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("stale-tag-not-dropped"), byTest("TestEventWithAStaleTagIsDropped", "an event of the ended registration")},
		{mutant.Named("past-deadline-no-wake"), byTest("TestDeadlineInThePastWakesTheWaiterAtOnce", "want the parked one")},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}
