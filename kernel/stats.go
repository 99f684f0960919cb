package kernel

import "github.com/vsched/vsched/internal/xsync"

// Stats is a snapshot of the kernel's counters, from [Kernel.Stats]. The
// counters only grow. A P publishes its counters every 64 task runs and
// whenever it goes idle, so while the kernel runs they may lag by up to 64
// runs per P; once it is idle, or stopped, they are exact.
type Stats struct {
	Procs int // Ps

	TasksRun      uint64 // task runs (a task that parks or yields runs again)
	SpawnedLocal  uint64 // tasks spawned by Ctx.Go and Ctx.GoBatch
	SpawnedRemote uint64 // tasks submitted by Kernel.Go and Kernel.GoBatch
	RunnextHits   uint64 // runs taken from runnext, inheriting the time slice
	StealOps      uint64 // successful steals
	Stolen        uint64 // tasks moved by steals
	GlobalPulls   uint64 // tasks taken from the global queue
	Overflows     uint64 // local queue overflows to the global queue
	Yields        uint64 // Ctx.Yield requests carried out
	Parks         uint64 // parks committed
	Wakes         uint64 // parked tasks woken (by a Wake, the poller, a deadline or a close)
	PollWakes     uint64 // tasks a poll of the netpoller made runnable (readiness or a deadline)
	MParks        uint64 // times an M went to sleep for want of work
	MUnparks      uint64 // times an M was woken
	Handoffs      uint64 // Ps handed off from an M in Block
	Stalls        uint64 // tasks reported running past the stall threshold
	Dropped       uint64 // tasks never run because the kernel stopped

	SpinningMs  int // Ms spinning now
	IdleProcs   int // Ps idle now
	GlobalQueue int // tasks in the global queue now
	Parked      int // tasks parked now, waiting for a Wake or on the netpoller
	IOWaiting   int // of those, tasks waiting on the netpoller

	PerProc []ProcStats // per P, by P number
}

// ProcStats are one P's counters in [Stats].
type ProcStats struct {
	TasksRun     uint64
	SpawnedLocal uint64
	RunnextHits  uint64
	StealOps     uint64
	Stolen       uint64
	GlobalPulls  uint64
	Overflows    uint64
	Yields       uint64
	Parks        uint64
	Wakes        uint64 // wakes by tasks on this P
}

// counters are a P's counters, written only by its owner.
type counters struct {
	tasksRun, spawned, runnextHits, stealOps, stolen, globalPulls,
	overflows, yields, parks, wakes uint64
}

// published is the copy of a P's counters that Stats reads.
type published struct {
	tasksRun, spawned, runnextHits, stealOps, stolen, globalPulls,
	overflows, yields, parks, wakes xsync.Stat
}

// publish copies pp's counters for Stats. Executed only by pp's owner.
func (pp *p) publish() {
	c, u := &pp.c, &pp.pub
	u.tasksRun.Store(c.tasksRun)
	u.spawned.Store(c.spawned)
	u.runnextHits.Store(c.runnextHits)
	u.stealOps.Store(c.stealOps)
	u.stolen.Store(c.stolen)
	u.globalPulls.Store(c.globalPulls)
	u.overflows.Store(c.overflows)
	u.yields.Store(c.yields)
	u.parks.Store(c.parks)
	u.wakes.Store(c.wakes)
}

// Stats returns a snapshot of the kernel's counters. It takes the
// scheduler lock once and may be called from any goroutine.
func (k *Kernel) Stats() Stats {
	s := Stats{Procs: k.procs, PerProc: make([]ProcStats, k.procs)}
	for i, pp := range k.allp {
		u := &pp.pub
		ps := ProcStats{
			TasksRun:     u.tasksRun.Load(),
			SpawnedLocal: u.spawned.Load(),
			RunnextHits:  u.runnextHits.Load(),
			StealOps:     u.stealOps.Load(),
			Stolen:       u.stolen.Load(),
			GlobalPulls:  u.globalPulls.Load(),
			Overflows:    u.overflows.Load(),
			Yields:       u.yields.Load(),
			Parks:        u.parks.Load(),
			Wakes:        u.wakes.Load(),
		}
		s.PerProc[i] = ps
		s.TasksRun += ps.TasksRun
		s.SpawnedLocal += ps.SpawnedLocal
		s.RunnextHits += ps.RunnextHits
		s.StealOps += ps.StealOps
		s.Stolen += ps.Stolen
		s.GlobalPulls += ps.GlobalPulls
		s.Overflows += ps.Overflows
		s.Yields += ps.Yields
		s.Parks += ps.Parks
		s.Wakes += ps.Wakes
	}
	s.PollWakes = k.pollWakes.Load()
	s.Wakes += k.outsideWakes.Load() + s.PollWakes
	if np := k.poller.Load(); np != nil {
		s.IOWaiting = int(np.Waiters())
	}
	s.MParks = k.mparks.Load()
	s.MUnparks = k.munparks.Load()
	s.Handoffs = k.handoffs.Load()
	s.Stalls = k.stalls.Load()
	s.SpinningMs = int(k.nmspinning.Load())
	s.IdleProcs = int(k.npidle.Load())
	k.lock.Lock()
	s.SpawnedRemote = k.remote
	s.Dropped = k.dropped
	s.GlobalQueue = k.global.Len()
	k.lock.Unlock()
	if parked := int64(s.Parks) - int64(s.Wakes); parked > 0 {
		s.Parked = int(parked)
	}
	return s
}
