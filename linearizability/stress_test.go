package linearizability

import (
	"errors"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/vsched/vsched/runq"
)

var (
	flagDuration = flag.Duration("lin.duration", 0, "run each stress test this long (overrides "+EnvDuration+")")
	flagRounds   = flag.Int("lin.rounds", 0, "run each stress test this many rounds (overrides "+EnvRounds+")")
)

// stressConfig is the configuration of a stress test: a short run by
// default, the environment's or the flags' otherwise.
func stressConfig(t *testing.T, mode Mode) Config {
	t.Helper()
	cfg := Config{Mode: mode, Duration: 700 * time.Millisecond}
	if testing.Short() {
		cfg.Duration = 200 * time.Millisecond
	}
	cfg, err := cfg.WithEnv()
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv(EnvRounds) != "" && os.Getenv(EnvDuration) == "" {
		cfg.Duration = 0
	}
	if *flagDuration > 0 {
		cfg.Duration = *flagDuration
	}
	if *flagRounds > 0 {
		cfg.Rounds = *flagRounds
		if *flagDuration == 0 {
			cfg.Duration = 0
		}
	}
	return cfg
}

func runStress(t *testing.T, cfg Config) {
	t.Helper()
	res, err := Stress(cfg)
	if err != nil {
		if errors.Is(err, ErrNotLinearizable) || errors.Is(err, ErrConservation) || errors.Is(err, ErrPanicked) {
			t.Fatalf("%v mode, seed %d, runq.Size %d: %v", cfg.Mode, res.Seed, runq.Size, err)
		}
		t.Fatal(err)
	}
	if res.Rounds == 0 || res.Ops == 0 {
		t.Fatalf("nothing was checked: %+v", res)
	}
	t.Logf("%v mode, runq.Size %d, seed %d: %d rounds, %d operations checked, %d rounds timed out", cfg.Mode, runq.Size, res.Seed, res.Rounds, res.Ops, res.Unknown)
}

func TestQueueHistoriesAreLinearizable(t *testing.T) {
	runStress(t, stressConfig(t, QueueMode))
}

func TestSystemHistoriesAreLinearizableAndConserveItems(t *testing.T) {
	runStress(t, stressConfig(t, SystemMode))
}

// TestRoundsOfOneOperationRecordTheWrapRound: the owner's wrapSteal round
// records up to a ring of Puts beyond its operations, and the recorder
// must hold them however few operations a round has.
func TestRoundsOfOneOperationRecordTheWrapRound(t *testing.T) {
	for _, mode := range []Mode{QueueMode, SystemMode} {
		runStress(t, Config{Mode: mode, OpsPerRound: 1, Rounds: 3})
	}
}
