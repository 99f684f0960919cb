package proptest

import (
	"testing"

	"pgregory.net/rapid"
)

func TestQueueMatchesSpec(t *testing.T) { rapid.Check(t, CheckQueue) }

func TestQueueOverflowsMatchSpec(t *testing.T) { rapid.Check(t, CheckQueueOverflows) }

func TestGlobalMatchesSpec(t *testing.T) { rapid.Check(t, CheckGlobal) }

func TestOrderVisitsEveryPositionOnce(t *testing.T) {
	rapid.Check(t, CheckOrderVisitsEveryPositionOnce)
}

func TestOrderStridesAreCoprimesWithDistinctSeeds(t *testing.T) {
	rapid.Check(t, CheckOrderStridesAreCoprimes)
}

func TestKernelMatchesSpec(t *testing.T) { rapid.Check(t, CheckKernel) }

func TestKernelStealsRunnextOnlyOnTheLastPass(t *testing.T) {
	rapid.Check(t, CheckKernelStealPasses)
}

func TestGroupsMatchSpec(t *testing.T) { rapid.Check(t, CheckGroups) }
