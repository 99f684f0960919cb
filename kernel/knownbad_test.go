//go:build !vsched_explore

package kernel

import (
	"runtime"
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
	type knownBad struct {
		m mutant.Mutant
		v mutant.Verifier
	}
	cases := []knownBad{
		// Extra spinning Ms cost cores, not correctness.
		{mutant.Named("wakep-ignores-spinner"), byTest("TestWakepStartsNoMWhileAnMSpins", "wakep with an M spinning")},
		// The monitor's back-off after a deep sleep costs wakeups or
		// latency, not correctness.
		{mutant.Named("monitor-wake-resets-back-off"), byTest("TestTheMonitorStartsOverOnlyAfterALongDeepSleep", "sleeps 20µs per round, want 10ms")},
		{mutant.Named("monitor-never-starts-over"), byTest("TestTheMonitorStartsOverOnlyAfterALongDeepSleep", "sleeps 10ms per round, want 20µs")},
		// An allocation per spawn or per park: the allocation tests
		// report it (park-new-waker also loses the Wakes of a Waker kept
		// from an earlier park, which the stress tests report).
		{mutant.Named("gdead-skips-free-list"), byTest("TestCtxGoAllocatesNothingButTheClosure", "allocations, want 0")},
		{mutant.Named("park-new-waker"), byTest("TestParkAndWakeAllocateNothing", "allocations, want 0")},
		// The monitor's view of runs and time slices: a false stall
		// report, a chain broken that had ended.
		{mutant.Named("stall-clock-per-time-slice"), byTest("TestAStallIsOneLongRunNotAChainOfShortOnes", "stalls reported for a chain of two short runs")},
		{mutant.Named("preempt-request-outlives-chain"), byTest("TestAChainThatEndedByItselfIsNotBroken", "the child ran from runnext 0 times")},
	}
	if runtime.GOOS == "linux" {
		// A late deadline is still a deadline, and time does not pass in
		// the explorer's models.
		late := byTest("TestADeadlineFiresWhileThePIsBusyWithoutTheMonitor", "did not fire")
		late.Env = []string{"VSCHED_STRESS_HANG=5s"}
		cases = append(cases, knownBad{mutant.Named("deadlines-wait-for-a-poll"), late},
			// A spin too many costs CPU and wakeup batching, not a task.
			knownBad{mutant.Named("spin-after-compute"), byTest("TestStopSpinsOnlyAfterServingIO", "spun before they slept")},
			knownBad{mutant.Named("served-by-recycled-record"), byTest("TestARunOnARecycledRecordIsNoRunBackFromAWait", "marked its M as serving I/O")},
			// An allocation per descriptor wait.
			knownBad{mutant.Named("wait-new-waiter"), byTest("TestAWaitOnADescriptorAllocatesNothing", "allocations, want 0")})
	}
	for _, c := range cases {
		t.Run(c.m.Name, func(t *testing.T) {
			t.Parallel()
			mutant.Report(t, c.m, c.v)
		})
	}
}
