package kernel

import "github.com/vsched/vsched/internal/xsync"

// Stats is a snapshot of the kernel's counters and gauges, from
// [Kernel.Stats]. The names follow tokio's RuntimeMetrics where the two
// schedulers have the same thing (a worker is a P, a poll is one run of a
// task's function), so that dashboards built for one read the other; the
// fields are stable: new ones may be added, none is renamed or dropped.
//
// Counters (Count, and the totals of [WorkerStats]) only grow. A P
// publishes its counters every 64 task runs and whenever it goes idle, so
// while the kernel runs they may lag by up to 64 runs per P; once it is
// idle, or stopped, they are exact. Gauges (the fields without Count) are
// read when Stats is called. Reading Stats takes the scheduler lock once
// and allocates the PerWorker slice, so it can be polled as often as any
// metrics scraper polls (BenchmarkStats measures it). Package
// [github.com/vsched/vsched/kernel/metrics] publishes it through expvar.
type Stats struct {
	Workers int // Ps (tokio: num_workers)

	// Tasks.
	SpawnedTasksCount   uint64 // tasks submitted: Kernel.Go and Ctx.Go, batches, group tasks and Join continuations included (spawned_tasks_count)
	RemoteScheduleCount uint64 // of those, submitted from outside the kernel, by Kernel.Go, Kernel.GoBatch or Group.Go (remote_schedule_count)
	AliveTasks          int    // tasks submitted and not yet finished or dropped, parked ones included; lags as the counters do (num_alive_tasks)
	ParkedTasks         int    // tasks parked now, waiting for a Wake or on the netpoller
	IOWaitingTasks      int    // of those, tasks waiting on the netpoller
	DroppedCount        uint64 // tasks never run because Close stopped the kernel

	// Scheduling, summed over the workers.
	PollCount          uint64 // task runs; a task that parks or yields runs again (worker_poll_count)
	LocalScheduleCount uint64 // tasks spawned by tasks, into their P's runnext (worker_local_schedule_count)
	RunnextCount       uint64 // runs taken from runnext, inheriting the time slice (tokio's LIFO slot)
	StealOperations    uint64 // successful steals (worker_steal_operations)
	StealCount         uint64 // tasks moved by steals (worker_steal_count)
	GlobalPullCount    uint64 // tasks taken from the global queue
	OverflowCount      uint64 // local queue overflows to the global queue (worker_overflow_count)
	YieldCount         uint64 // Ctx.Yield requests carried out
	TaskParkCount      uint64 // parks committed
	TaskWakeCount      uint64 // parked tasks woken, by a Wake, the poller, a deadline or a close
	IODriverReadyCount uint64 // tasks the netpoller made runnable: readiness and deadlines a poll found, and deadlines findRunnable fired (io_driver_ready_count)

	// Workers and the monitor.
	ParkCount        uint64 // times an M went to sleep for want of work (worker_park_count)
	UnparkCount      uint64 // times an M was woken (worker_park_unpark_count counts both)
	SpinParkCount    uint64 // of ParkCount, the sleeps that began with a spin on the M's note: only an M that ran a task back from an I/O wait spins, and only while tasks wait on the poller
	HandoffCount     uint64 // Ps handed off from an M in Ctx.Block
	StallCount       uint64 // task runs reported running past the stall threshold
	SpinningWorkers  int    // Ms spinning now, looking for work
	IdleWorkers      int    // Ps idle now
	BlockingThreads  int    // Ms inside Ctx.Block now (num_blocking_threads)
	GlobalQueueDepth int    // tasks in the global queue now (global_queue_depth)

	// With WithHistograms, over all workers: the time from a task
	// becoming runnable to the start of its run, and the time of a run.
	// Both lag as the counters do.
	ScheduleLatency Histogram
	PollTime        Histogram // (tokio: poll_time_histogram)

	PerWorker []WorkerStats // per P, by P number
}

// WorkerStats are one P's counters and its local queue's depth, in
// [Stats.PerWorker]; the fields mean what the same fields of [Stats] mean,
// for this P.
type WorkerStats struct {
	PollCount          uint64
	LocalScheduleCount uint64
	RunnextCount       uint64
	StealOperations    uint64 // steals this P made
	StealCount         uint64 // tasks this P stole
	GlobalPullCount    uint64
	OverflowCount      uint64
	YieldCount         uint64
	TaskParkCount      uint64
	TaskWakeCount      uint64 // wakes by tasks running on this P
	LocalQueueDepth    int    // tasks in the run queue and runnext now (worker_local_queue_depth)
}

// counters are a P's counters, written only by its owner.
type counters struct {
	tasksRun, spawned, runnextHits, stealOps, stolen, globalPulls,
	overflows, yields, parks, wakes, finished uint64
}

// published is the copy of a P's counters that Stats reads.
type published struct {
	tasksRun, spawned, runnextHits, stealOps, stolen, globalPulls,
	overflows, yields, parks, wakes, finished xsync.Stat
}

// publish copies pp's counters for Stats. Executed only by pp's owner.
// Differs from the runtime: DESIGN.md §3.3.
func (pp *p) publish() {
	c, u := &pp.c, &pp.pub
	pp.pubAt = c.tasksRun
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
	u.finished.Store(c.finished)
	if pp.h != nil {
		pp.publishHistograms()
	}
}

// Stats returns a snapshot of the kernel's counters. It takes the
// scheduler lock once and may be called from any goroutine.
func (k *Kernel) Stats() Stats {
	s := Stats{Workers: k.procs, PerWorker: make([]WorkerStats, k.procs)}
	var finished uint64
	for i, pp := range k.allp {
		u := &pp.pub
		w := WorkerStats{
			PollCount:          u.tasksRun.Load(),
			LocalScheduleCount: u.spawned.Load(),
			RunnextCount:       u.runnextHits.Load(),
			StealOperations:    u.stealOps.Load(),
			StealCount:         u.stolen.Load(),
			GlobalPullCount:    u.globalPulls.Load(),
			OverflowCount:      u.overflows.Load(),
			YieldCount:         u.yields.Load(),
			TaskParkCount:      u.parks.Load(),
			TaskWakeCount:      u.wakes.Load(),
			LocalQueueDepth:    pp.runq.Len(),
		}
		finished += u.finished.Load()
		if h := pp.hpub; h != nil {
			for b := range HistogramBuckets {
				s.ScheduleLatency.Counts[b] += h.sched[b].Load()
				s.PollTime.Counts[b] += h.run[b].Load()
			}
		}
		s.PerWorker[i] = w
		s.PollCount += w.PollCount
		s.LocalScheduleCount += w.LocalScheduleCount
		s.RunnextCount += w.RunnextCount
		s.StealOperations += w.StealOperations
		s.StealCount += w.StealCount
		s.GlobalPullCount += w.GlobalPullCount
		s.OverflowCount += w.OverflowCount
		s.YieldCount += w.YieldCount
		s.TaskParkCount += w.TaskParkCount
		s.TaskWakeCount += w.TaskWakeCount
	}
	s.IODriverReadyCount = k.pollWakes.Load()
	s.TaskWakeCount += k.outsideWakes.Load() + s.IODriverReadyCount
	if np := k.poller.Load(); np != nil {
		s.IOWaitingTasks = int(np.Waiters())
	}
	s.ParkCount = k.mparks.Load()
	s.UnparkCount = k.munparks.Load()
	s.SpinParkCount = k.mspins.Load()
	s.HandoffCount = k.handoffs.Load()
	s.StallCount = k.stalls.Load()
	s.SpinningWorkers = int(k.nmspinning.Load())
	s.IdleWorkers = int(k.npidle.Load())
	s.BlockingThreads = int(k.nmsys.Load())
	k.lock.Lock()
	s.RemoteScheduleCount = k.remote
	s.DroppedCount = k.dropped
	s.GlobalQueueDepth = k.global.Len()
	k.lock.Unlock()
	s.SpawnedTasksCount = s.LocalScheduleCount + s.RemoteScheduleCount
	if parked := int64(s.TaskParkCount) - int64(s.TaskWakeCount); parked > 0 {
		s.ParkedTasks = int(parked)
	}
	if alive := int64(s.SpawnedTasksCount) - int64(finished) - int64(s.DroppedCount); alive > 0 {
		s.AliveTasks = int(alive)
	}
	return s
}
