//go:build vsched_explore

package explore_test

import (
	"strings"
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
		mutant.Named("grab-load-store-not-cas"),
		mutant.Named("get-store-not-cas"),
		mutant.Named("tail-before-slot"),
		mutant.Named("no-torn-read-retry"),
		mutant.Named("empty-single-tail-read"),
		mutant.Named("kicked-runnext-lost"),
		mutant.Named("steal-floor-half"),
	} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, m, byScenarios)
		})
	}
}

// TestKnownBadReductionIsReported seeds bugs in the explorer's own
// reduction; the differential test of the reduction must report each.
func TestKnownBadReductionIsReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	// Each mutant is checked by the fixed counterexample that first showed
	// it: the random programs of the differential test find each in almost
	// every run, but CI runs drew none that did, and a verifier that reports
	// a seeded bug only most of the time is not one to trust.
	byDifferential := mutant.Verifier{Name: "reduction", Pkg: "./explore", Run: "^TestSleepSetsReachEveryOutcomeOfKnownCounterexamples$",
		Tags: "vsched_explore", MustPrint: []string{"outcomes differ"}}
	bySpinCounterexample := mutant.Verifier{Name: "reduction", Pkg: "./explore",
		Run:  "^TestSleepSetsKeepTheOrdersASpinDecides$",
		Tags: "vsched_explore", MustPrint: []string{"--- FAIL: TestSleepSetsKeepTheOrdersASpinDecides", "want both 0 and 1"}}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("load-store-independent"), byDifferential},
		{mutant.Named("sleep-set-ignores-bound-cuts"), byDifferential},
		{mutant.Named("sleep-set-across-spin"), bySpinCounterexample},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}

// TestKnownBadKernelsAreReported: each seeded bug of the kernel's wakeup
// protocol must make a model fail, as a deadlock (a lost wakeup) or a task
// that runs the wrong number of times. The models run at preemption bound 1,
// where each is explored completely in about a second; the needspinning bug
// and the monitor's release of pollingNet take two preemptions, so their
// models run at bound 2.
func TestKnownBadKernelsAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	byModels := func(run, bound string) mutant.Verifier {
		return mutant.Verifier{Name: "explore", Pkg: "./explore", Run: run, Tags: "vsched_explore",
			Env:       []string{"VSCHED_MAX_PREEMPTIONS=" + bound},
			MustPrint: []string{"--- FAIL: TestKernelModels/", "VSCHED_REPLAY="}}
	}
	all := byModels("^TestKernelModels$", "1")
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("recheck-before-decrement"), all},
		{mutant.Named("no-trailing-wakep"), all},
		{mutant.Named("park-commits-early"), all},
		{mutant.Named("resetspinning-no-wakep"), all},
		{mutant.Named("monitor-sleeps-after-stop"), all},
		{mutant.Named("stop-break-lost"), all},
		{mutant.Named("no-blocking-poller"), all},
		{mutant.Named("monitor-poll-hides-poller"), byModels("^TestKernelModels$/^NetpollMonitorPollVsIdle$", "1")},
		{mutant.Named("monitor-release-skips-drain"), byModels("^TestKernelModels$/^NetpollShutdownVsMonitorPoll$", "2")},
		{mutant.Named("needspinning-ignored"), byModels("^TestKernelModels$/^SpawnVsIdle$/^Go$", "2")},
		{mutant.Named("eager-block-not-handed-off"), byModels("^TestKernelModels$/^BlockHandoffVsSubmit$/^eager$", "1")},
		{mutant.Named("pidleget-leaves-monitor-asleep"), byModels("^TestKernelModels$/^MonitorWakeVsShutdown$", "1")},
		{mutant.Named("monitor-timed-sleep-after-stop"), byModels("^TestKernelModels$/^MonitorWakeVsShutdown$", "1")},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			out := mutant.Report(t, c.m, c.v)
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "--- FAIL: TestKernelModels/") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}

// TestKnownBadWaitSlotsAreReported: each seeded bug of the netpoll wait
// slots must make one of netpoll's slot models fail.
func TestKnownBadWaitSlotsAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	bySlotModels := mutant.Verifier{Name: "explore", Pkg: "./netpoll", Run: "^TestWaitSlotModels$", Tags: "vsched_explore",
		MustPrint: []string{"--- FAIL: TestWaitSlotModels/", "VSCHED_REPLAY="}}
	for _, m := range []mutant.Mutant{
		mutant.Named("commit-ignores-ready"),
		mutant.Named("ready-not-latched"),
		mutant.Named("deadline-seq-ignored"),
		mutant.Named("moved-later-not-rearmed"),
		mutant.Named("expired-timer-keeps-due"),
		mutant.Named("wait-skips-err-check"),
		mutant.Named("close-wakes-nobody"),
	} {
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			out := mutant.Report(t, m, bySlotModels)
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "--- FAIL: TestWaitSlotModels/") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}
