package mutant

// The seeded bugs of package kernel. Each verifier package lists the ones it
// must report.
var (
	// RecheckBeforeDecrement has a spinning M that drops its P look at the
	// queues again before it decrements nmspinning: a submitter that
	// publishes between the recheck and the decrement sees a spinner and
	// wakes nobody, and no spinner looks again (runtime issue #45867's
	// family).
	RecheckBeforeDecrement = Mutant{
		Name: "recheck-before-decrement",
		File: "kernel/proc.go",
		Old: "\t\tmp.spinning = false\n\t\tif k.nmspinning.Add(-1) < 0 {\n\t\t\tthrow(\"findRunnable: negative nmspinning\")\n\t\t}\n" +
			"\t\tif gp, pp := k.recheckNoP(); pp != nil {\n",
		New: "\t\tgp, pp := k.recheckNoP() // mutant: recheck before the decrement\n" +
			"\t\tmp.spinning = false\n\t\tif k.nmspinning.Add(-1) < 0 {\n\t\t\tthrow(\"findRunnable: negative nmspinning\")\n\t\t}\n" +
			"\t\tif pp != nil {\n",
	}
	// NoTrailingWakep drops the wakep that ends injectglist, which covers
	// Ps that went idle after it read npidle (runtime issue #63555).
	NoTrailingWakep = Mutant{
		Name: "no-trailing-wakep",
		File: "kernel/proc.go",
		Old:  "\t\t\tk.globrunqputbatchLocked(rest)\n\t\t\tk.lock.Unlock()\n\t\t}\n\t}\n\tk.wakep()\n}\n",
		New:  "\t\t\tk.globrunqputbatchLocked(rest)\n\t\t\tk.lock.Unlock()\n\t\t}\n\t}\n\t// mutant: no trailing wakep\n}\n",
	}
	// ParkCommitsEarly commits a park inside Ctx.Park, before the task's
	// function returns: a Wake can then make the task runnable while it is
	// still running.
	ParkCommitsEarly = Mutant{
		Name: "park-commits-early",
		File: "kernel/task.go",
		Old:  "\tgp.parking = true\n\tw.state.Store(wRequested)\n",
		New:  "\tgp.parking = true\n\tw.state.Store(wParked) // mutant: the park commits before the function returns\n",
	}
	// NeedSpinningIgnored lets a non-spinning M drop its P although a
	// spinner found work it could not take (needspinning).
	NeedSpinningIgnored = Mutant{
		Name: "needspinning-ignored",
		File: "kernel/proc.go",
		Old:  "\tif !mp.spinning && k.needspinning.Load() == 1 {\n",
		New:  "\tif false && !mp.spinning && k.needspinning.Load() == 1 { // mutant: needspinning ignored\n",
	}
	// NoResetSpinningWakep has the last spinner that found work stop
	// spinning without waking another (resetspinning without wakep).
	NoResetSpinningWakep = Mutant{
		Name: "resetspinning-no-wakep",
		File: "kernel/proc.go",
		Old:  "\t\tthrow(\"resetspinning: negative nmspinning\")\n\t}\n\tk.wakep()\n",
		New:  "\t\tthrow(\"resetspinning: negative nmspinning\")\n\t}\n\t// mutant: no wakep\n",
	}
)

// Seeded bugs of the kernel's task life cycle, which the single-M
// conformance test against spec.Scheduler must report.
var (
	// YieldToLocal sends a yielding task to its P's local queue instead of
	// the global tail, where it would run again before other Ps' work and
	// before the global queue (runtime issue #13546's family).
	YieldToLocal = Mutant{
		Name: "yield-to-local",
		File: "kernel/task.go",
		Old:  "\t\tk.lock.Lock()\n\t\tk.globrunqputLocked(gp)\n\t\tk.lock.Unlock()\n\t\tk.wakep()\n",
		New:  "\t\tk.runqput(pp, gp, false) // mutant: a yield stays on the P\n\t\tk.wakep()\n",
	}
	// WakeIgnoresWakersP sends every woken task to the global queue, even
	// when a task on a P wakes it (no goready into runnext).
	WakeIgnoresWakersP = Mutant{
		Name: "wake-ignores-wakers-p",
		File: "kernel/task.go",
		Old:  "if mp := k.callerMFast(); mp != nil && mp.curg != nil && mp.p != nil {",
		New:  "if mp := k.callerMFast(); false && mp != nil { // mutant: no goready",
	}
	// FairnessAfterLocal checks the global queue on the 61st tick only
	// after the local queue, which then never yields to it.
	FairnessAfterLocal = Mutant{
		Name: "fairness-after-local",
		File: "kernel/proc.go",
		Old:  "\tif pp.schedtick%fairnessTick == 0 && k.global.Len() > 0 {",
		New:  "\tif gp, inheritTime := pp.runq.Get(); gp != nil { // mutant: local before the 61-tick check\n\t\treturn gp, inheritTime\n\t}\n\tif pp.schedtick%fairnessTick == 0 && k.global.Len() > 0 {",
	}
)

// MonitorSleepsAfterStop lets the monitor go to its deep sleep without
// looking at the kernel's state once more after announcing it: a stop in
// between leaves it asleep, and Shutdown waits for it forever.
var MonitorSleepsAfterStop = Mutant{
	Name: "monitor-sleeps-after-stop",
	File: "kernel/monitor.go",
	Old:  "if (k.state.Load() == stateStopped || !k.quiet()) && k.monMode.Cas(monDeep, monAwake) {",
	New:  "if !k.quiet() && k.monMode.Cas(monDeep, monAwake) { // mutant: the stop is not looked at again",
}

// The seeded bugs of the kernel's netpoll integration.
var (
	// StopBreakLost lets an M become the blocking poller after Shutdown or
	// Close began: their one Break may have gone to the poller before it,
	// and nothing breaks this one, so Shutdown waits for it forever.
	StopBreakLost = Mutant{
		Name: "stop-break-lost",
		File: "kernel/netpoll.go",
		Old:  "\tif k.state.Load() != stateRunning {\n\t\t// No blocking poll once",
		New:  "\tif false { // mutant: the stop is not rechecked\n\t\t// No blocking poll once",
	}
	// NoBlockingPoller never blocks in the poller when an M goes idle:
	// with every P idle nobody polls, and readiness is never seen.
	NoBlockingPoller = Mutant{
		Name: "no-blocking-poller",
		File: "kernel/netpoll.go",
		Old:  "\tif np == nil || np.Waiters() == 0 || k.lastpoll.Swap(0) == 0 {\n\t\treturn nil, nil, false\n\t}\n\tif k.state",
		New:  "\tif true || np == nil || np.Waiters() == 0 || k.lastpoll.Swap(0) == 0 { // mutant: no blocking poller\n\t\treturn nil, nil, false\n\t}\n\tif k.state",
	}
)
