package kernel

import (
	"time"

	"github.com/vsched/vsched/runq"
	"github.com/vsched/vsched/steal"
)

// The scheduler's constants, each with the runtime name it mirrors.
const (
	// fairnessTick: every 61st non-inherited execution on a P first takes
	// one task from a non-empty global queue (schedtick%61 in findRunnable).
	fairnessTick = 61

	// globalBatch is the most a P takes from the global queue at once: half
	// of its ring (globrunqgetbatch(len(pp.runq)/2)).
	globalBatch = runq.Size / 2

	// stealTries is the number of steal passes; runnext only on the last.
	stealTries = steal.Tries

	// gfreeMax and gfreeKeep bound a P's free list of task records: at
	// gfreeMax it moves records to the global list until gfreeKeep remain,
	// and an empty one takes up to gfreeKeep back (gfput, gfget).
	gfreeMax  = 64
	gfreeKeep = 32

	// publishEvery is how many task runs a P counts before it publishes its
	// counters to Stats; it also publishes whenever it goes idle.
	publishEvery = 64

	// forcePreempt is how long a runnext chain may share one time slice
	// before the monitor breaks it (forcePreemptNS), and how long a P in
	// Block with an empty local queue is left alone while another M spins
	// or a P is idle (the 10 ms of retake's syscall check); a P with local
	// work queued is retaken at the monitor's next round.
	forcePreempt = 10 * time.Millisecond

	// monitorMinDelay and monitorMaxDelay bound the monitor's sleep while
	// something runs: it starts at 20 µs and doubles after 50 rounds in
	// which it did nothing, up to 10 ms (sysmon's delay).
	monitorMinDelay   = 20 * time.Microsecond
	monitorMaxDelay   = 10 * time.Millisecond
	monitorIdleRounds = 50
	// monitorRestartAfter is how long the monitor's deep sleep must last
	// for the wake to start it over at monitorMinDelay (no runtime
	// counterpart; see sysmon): nominally as long as its first
	// monitorIdleRounds rounds, so that a kernel going quiet and busy
	// again restarts them at most about once per their own length.
	monitorRestartAfter = monitorIdleRounds * monitorMinDelay

	// stopSpin is how long an M that stops spins on its note before it
	// sleeps (no runtime counterpart: the runtime's stopm sleeps on a futex
	// at once). An M is a goroutine: when it parks and its Go P finds
	// nothing else to run, the Go scheduler puts the thread to sleep, and a
	// startm soon after waits for the operating system to wake one. Under
	// a request-response load the Ms stop and start thousands of times a
	// second; spinning for about one thread wakeup first turned much of
	// that wait into work (docs/BENCHMARKS.md, run G). Only an M that ran
	// a task back from an I/O wait since it last stopped spins (run J: a
	// computing kernel loses its wakeup batching to it). The spin yields to
	// goroutines ready on its Go P, but it is CPU spent all the same, at
	// most stopSpin per stop: it may wake another Go P's thread (each
	// Gosched may), it keeps its Go P from polling the Go netpoller, and
	// it takes the CPU from other processes.
	stopSpin = 30 * time.Microsecond

	// defaultStallThreshold is how long a task may run before the monitor
	// reports it as a stall.
	defaultStallThreshold = 10 * time.Millisecond
)
