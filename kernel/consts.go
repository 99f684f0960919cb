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

	// gfreeGlobalMax bounds the kernel's global free list of task records
	// (64 Ki records: 4 MiB of records, and the rarer state and I/O
	// waiter of those that had them): what a burst of more dead tasks
	// leaves is the garbage collector's, so a kernel does not hold its
	// peak number of tasks' records until Close. The runtime keeps every
	// dead goroutine's descriptor.
	gfreeGlobalMax = 1 << 16

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
	// counterpart; DESIGN.md §3.4): nominally as long as its first
	// monitorIdleRounds rounds, so that a kernel going quiet and busy
	// again restarts them at most about once per their own length.
	monitorRestartAfter = monitorIdleRounds * monitorMinDelay

	// stopSpin is how long an M that stops after serving I/O spins on its
	// note before it sleeps (stopm): about one thread wakeup. No runtime
	// counterpart: the runtime's stopm sleeps at once (DESIGN.md §3.3).
	stopSpin = 30 * time.Microsecond

	// defaultStallThreshold is how long a task may run before the monitor
	// reports it as a stall.
	defaultStallThreshold = 10 * time.Millisecond
)
