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
		mutant.Named("len-unclamped"),
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
	byDPORDifferential := mutant.Verifier{Name: "reduction", Pkg: "./explore", Run: "^TestDPORReachesEveryOutcomeOfKnownCounterexamples$",
		Tags: "vsched_explore", MustPrint: []string{"outcomes differ"}}
	byNoteRelay := mutant.Verifier{Name: "reduction", Pkg: "./explore", Run: "^TestDPORReordersTheSleepsOfANote$",
		Tags: "vsched_explore", MustPrint: []string{"outcomes differ"}}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("load-store-independent"), byDifferential},
		{mutant.Named("sleep-set-ignores-bound-cuts"), byDifferential},
		{mutant.Named("sleep-set-across-spin"), bySpinCounterexample},
		{mutant.Named("dpor-weak-initial-sleeps"), byDPORDifferential},
		{mutant.Named("dpor-no-lock-race"), byDPORDifferential},
		{mutant.Named("dpor-readonly-every-cas"), byDPORDifferential},
		{mutant.Named("dpor-spin-not-fallback"), byDPORDifferential},
		{mutant.Named("dpor-no-sleep-race"), byNoteRelay},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}

// TestKnownBadKernelsAreReported: each seeded bug of the kernel's wakeup
// protocol, its Block hand-off, its monitor and its task groups must make
// a model fail, as a deadlock (a lost wakeup), a broken invariant, or a
// task that runs the wrong number of times. Each nested run is narrowed to
// the model that reports its bug first when all of them run, so that it
// does not first search the models that pass (some take half a minute).
// The models run at their default bounds, which
// are those of the fast tier ("explore models" of vsched mutants -fast):
// 1, and 2 for NetpollShutdownVsMonitorPoll, BlockHandoffVsRemoteSubmit,
// NetpollMonitorPollVsTwoIdle and CountedJoinSlot, whose bugs take two
// preemptions; BlockHandoffVsBusySubmit, NetpollMonitorPollVsTwoIdle and
// CountedJoinSlot stop at their defaultCap.
func TestKnownBadKernelsAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	byModels := func(run string) mutant.Verifier {
		return mutant.Verifier{Name: "explore", Pkg: "./explore", Run: run, Tags: "vsched_explore",
			MustPrint: []string{"--- FAIL: TestKernelModels/", "VSCHED_REPLAY="}}
	}
	// A change to the scheduler's state without its lock: the lock-held
	// assertion must be what reports it.
	lockHeld := byModels("^TestKernelModels$/^RemoteSubmitVsLastSpinner$")
	lockHeld.MustPrint = append(lockHeld.MustPrint, "requires sched.lock held")
	byGroupModels := func(run string) mutant.Verifier {
		return mutant.Verifier{Name: "explore", Pkg: "./explore", Run: run, Tags: "vsched_explore",
			MustPrint: []string{"--- FAIL: TestGroupModels/", "VSCHED_REPLAY="}}
	}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("recheck-before-decrement"), byModels("^TestKernelModels$/^RemoteSubmitVsLastSpinner$")},
		{mutant.Named("no-trailing-wakep"), byModels("^TestKernelModels$/^SpawnVsIdle$/^GoBatch$")},
		{mutant.Named("park-commits-early"), byModels("^TestKernelModels$/^WakeVsParkCommit$")},
		{mutant.Named("resetspinning-no-wakep"), byModels("^TestKernelModels$/^RemoteSubmitVsLastSpinner$")},
		{mutant.Named("monitor-sleeps-after-stop"), byModels("^TestKernelModels$/^BlockVsRetake$")},
		{mutant.Named("stop-break-lost"), byModels("^TestKernelModels$/^NetpollShutdownVsPoller$")},
		{mutant.Named("no-blocking-poller"), byModels("^TestKernelModels$/^NetpollReadVsWrite$")},
		{mutant.Named("monitor-poll-hides-poller"), byModels("^TestKernelModels$/^NetpollMonitorPollVsIdle$")},
		{mutant.Named("monitor-release-skips-drain"), byModels("^TestKernelModels$/^NetpollShutdownVsMonitorPoll$")},
		{mutant.Named("needspinning-ignored"), byModels("^TestKernelModels$/^SpawnVsDroppingP$")},
		{mutant.Named("eager-block-not-handed-off"), byModels("^TestKernelModels$/^BlockHandoffVsSubmit$/^eager$")},
		{mutant.Named("pidleget-leaves-monitor-asleep"), byModels("^TestKernelModels$/^MonitorWakeVsShutdown$")},
		{mutant.Named("monitor-timed-sleep-after-stop"), byModels("^TestKernelModels$/^MonitorVsShutdown$")},
		{mutant.Named("retake-store-not-cas"), byModels("^TestKernelModels$/^BlockVsRetake$")},
		{mutant.Named("retake-waits-for-old-block"), byModels("^TestKernelModels$/^BlockHandoffVsSubmit$/^lazy$")},
		{mutant.Named("handoffp-ignores-local-work"), byModels("^TestKernelModels$/^BlockWithLocalWork$")},
		{mutant.Named("exitsyscall-ignores-retake"), byModels("^TestKernelModels$/^BlockVsRetake$")},
		{mutant.Named("exitsyscall-load-then-store"), byModels("^TestKernelModels$/^BlockVsRetake$")},
		{mutant.Named("wakep-claim-not-cas"), byModels("^TestKernelModels$/^RemoteSubmitVsLastSpinner$")},
		{mutant.Named("wakep-ignores-idle-p"), byModels("^TestKernelModels$/^SubmitVsStaleNeedspinning$")},
		{mutant.Named("mstart-addm-unlocked"), lockHeld},
		{mutant.Named("recheck-batch-dropped"), byModels("^TestKernelModels$/^SpawnOverflowVsLastSpinner$")},
		{mutant.Named("handoffp-ignores-needspinning"), byModels("^TestKernelModels$/^BlockHandoffVsBusySpawn$")},
		{mutant.Named("handoffp-idles-p-past-syswait"), byModels("^TestKernelModels$/^BlockExitVsHandoff$")},
		{mutant.Named("global-batch-no-wakep"), byModels("^TestKernelModels$/^BlockHandoffVsBusySubmit$")},
		{mutant.Named("monitor-lastpoll-store-not-cas"), byModels("^TestKernelModels$/^NetpollMonitorPollVsTwoIdle$")},
		{mutant.Named("ready-from-task-no-wakep"), byModels("^TestKernelModels$/^WakeFromBusyTask$")},
		{mutant.Named("close-stops-after-taking-ps"), byModels("^TestKernelModels$/^CloseVsBlockWithLocalWork$")},
		{mutant.Named("pidleput-no-exit-check"), byModels("^TestKernelModels$/^CloseVsRemoteWakep$")},
		{mutant.Named("blocking-poll-rest-stays-local"), byModels("^TestKernelModels$/^NetpollTwoWokenVsIdleP$")},
		{mutant.Named("poller-out-before-queued"), byModels("^TestKernelModels$/^NetpollShutdownVsWokenTask$")},
		// The task groups' protocol, by the group models (group_test.go).
		{mutant.Named("group-err-after-decrement"), byGroupModels("^TestGroupModels$/^LastTaskVsWait$")},
		{mutant.Named("join-checks-count-unlocked"), byGroupModels("^TestGroupModels$/^LastTaskVsJoin$")},
		{mutant.Named("complete-skips-recheck"), byGroupModels("^TestGroupModels$/^LastTaskVsGo$")},
		{mutant.Named("join-counts-parent-late"), byGroupModels("^TestGroupModels$/^JoinVsParentWait$")},
		{mutant.Named("waiter-after-stop-sleeps"), byGroupModels("^TestGroupModels$/^WaitAfterStop$")},
		{mutant.Named("direct-join-drops-counted"), byGroupModels("^TestGroupModels$/^CountedJoinVsReuse$")},
		{mutant.Named("complete-counted-from-early-look"), byGroupModels("^TestGroupModels$/^CountedJoinSlot$")},
		{mutant.Named("trygo-raced-slot-uncounted"), byGroupModels("^TestGroupModels$/^TryGoVsSetLimit$")},
		{mutant.Named("trygo-raced-count-kept"), byGroupModels("^TestGroupModels$/^TryGoVsHeldSlot$")},
		{mutant.Named("trygo-raced-ignores-limit"), byGroupModels("^TestGroupModels$/^TryGoVsHeldSlot$")},
	} {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			out := mutant.Report(t, c.m, c.v)
			for _, line := range strings.Split(out, "\n") {
				if l := strings.TrimSpace(line); strings.HasPrefix(l, "--- FAIL: TestKernelModels/") || strings.HasPrefix(l, "--- FAIL: TestGroupModels/") {
					t.Log(l)
				}
			}
		})
	}
}

// TestKnownBadQueuesAreReportedByTheTokioPort: get-store-not-cas lets the
// owner and a thief take the same item. Three tests of the port of tokio's
// loom queue tests count one task too many and must report it at bound 1.
// tokio's chained_steal asserts nothing (under loom a task dropped twice
// fails through its reference count, which has no counterpart here), so
// its port cannot; the scenario TokioChainedSteal, with its ledger, must.
func TestKnownBadQueuesAreReportedByTheTokioPort(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	for _, c := range []struct{ name, run, fail string }{
		{"basic", "^TestTokioLoomQueue$/^bound=1$/^basic$", "--- FAIL: TestTokioLoomQueue/bound=1/basic"},
		{"steal_overflow", "^TestTokioLoomQueue$/^bound=1$/^steal_overflow$", "--- FAIL: TestTokioLoomQueue/bound=1/steal_overflow"},
		{"multi_stealer", "^TestTokioLoomQueue$/^bound=1$/^multi_stealer$", "--- FAIL: TestTokioLoomQueue/bound=1/multi_stealer"},
		{"TokioChainedSteal", "^TestRunqScenarios$/^TokioChainedSteal$", "--- FAIL: TestRunqScenarios/TokioChainedSteal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := mutant.Verifier{Name: "explore", Pkg: "./explore", Run: c.run, Tags: "vsched_explore",
				MustPrint: []string{c.fail, "VSCHED_REPLAY="}}
			mutant.Report(t, mutant.Named("get-store-not-cas"), v)
		})
	}
}

// TestKnownBadWaitSlotsAreReported: each seeded bug of the netpoll wait
// slots must make one of netpoll's slot models fail; each seeded bug of the
// deadlines' timers, one of the models in which the timers fire on the
// explorer's clock.
func TestKnownBadWaitSlotsAreReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a mutant per case; skipped in -short")
	}
	bySlotModels := mutant.Verifier{Name: "explore", Pkg: "./netpoll", Run: "^TestWaitSlotModels$", Tags: "vsched_explore",
		MustPrint: []string{"--- FAIL: TestWaitSlotModels/", "VSCHED_REPLAY="}}
	byClockModels := mutant.Verifier{Name: "explore", Pkg: "./netpoll", Run: "^TestWaitSlotModels$/^(Clock|WaitVsPastDeadline)", Tags: "vsched_explore",
		MustPrint: []string{"--- FAIL: TestWaitSlotModels/", "VSCHED_REPLAY="}}
	for _, c := range []struct {
		m mutant.Mutant
		v mutant.Verifier
	}{
		{mutant.Named("commit-ignores-ready"), bySlotModels},
		{mutant.Named("ready-not-latched"), bySlotModels},
		{mutant.Named("wait-skips-err-check"), bySlotModels},
		{mutant.Named("close-wakes-nobody"), bySlotModels},
		{mutant.Named("close-flag-after-unblock"), bySlotModels},
		{mutant.Named("preparewait-err-leaves-wait"), bySlotModels},
		{mutant.Named("deadline-seq-ignored"), byClockModels},
		{mutant.Named("moved-later-not-rearmed"), byClockModels},
		{mutant.Named("expired-timer-keeps-due"), byClockModels},
		{mutant.Named("past-deadline-no-wake"), byClockModels},
	} {
		m := c.m
		t.Run(m.Name, func(t *testing.T) {
			t.Parallel()
			out := mutant.Report(t, m, c.v)
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "--- FAIL: TestWaitSlotModels/") {
					t.Log(strings.TrimSpace(line))
				}
			}
		})
	}
}
