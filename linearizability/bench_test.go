package linearizability

import (
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/vsched/vsched/runq"
)

// recordRounds runs stress rounds of the given mode until it has at least n
// operations of histories, and returns them, one slice per round.
func recordRounds(b *testing.B, mode Mode, n int) [][]porcupine.Operation {
	b.Helper()
	cfg, err := Config{Mode: mode, Seed: 1, StuckTimeout: time.Minute}.withDefaults()
	if err != nil {
		b.Fatal(err)
	}
	workers, procs := cfg.Thieves+1, cfg.Thieves+1
	if mode == SystemMode {
		workers, procs = cfg.Procs, cfg.Procs
	}
	d := &driver[*runq.Queue[item]]{cfg: cfg, ringSize: runq.Size, rec: NewRecorder(workers, 0),
		queues: make([]*runq.Queue[item], procs), nextID: make([]int, workers), workers: make([]workerLog, workers),
		capacity: recordCapacity(cfg, runq.Size)}
	for i := range d.queues {
		d.queues[i] = new(runq.Queue[item])
	}
	var rounds [][]porcupine.Operation
	for round, total := 1, 0; total < n; round++ {
		ops, fatal, unbalanced := d.round(round)
		if fatal != nil || unbalanced != nil {
			b.Fatalf("recording failed: %v %v", fatal, unbalanced)
		}
		rounds = append(rounds, ops)
		total += len(ops)
	}
	return rounds
}

// BenchmarkCheck measures how many recorded operations porcupine checks per
// second against NewModel, on histories recorded once from the real queues
// (about 20,000 operations in rounds of a few hundred). With hash=off the
// checker's cache compares states with Equal alone.
func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		mode Mode
		hash bool
	}{{QueueMode, true}, {SystemMode, true}, {QueueMode, false}} {
		mode := bc.mode
		name := "mode=" + mode.String() + "/hash=on"
		if !bc.hash {
			name = "mode=" + mode.String() + "/hash=off"
		}
		b.Run(name, func(b *testing.B) {
			rounds := recordRounds(b, mode, 20_000)
			procs := 1
			for _, r := range rounds {
				for _, op := range r {
					in := op.Input.(Input)
					procs = max(procs, in.P+1, in.Dst+1)
				}
			}
			m := NewModel(procs, runq.Size)
			if !bc.hash {
				m.Hash = nil
			}
			ops := 0
			for _, r := range rounds {
				ops += len(r)
			}
			b.ResetTimer()
			for b.Loop() {
				for _, r := range rounds {
					if !porcupine.CheckOperations(m, r) {
						b.Fatal("a recorded history of the real queue is not linearizable")
					}
				}
			}
			b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}
