package mutant

// The seeded bugs of package netpoll's wait slots.
var (
	// CommitIgnoresReady commits a wait by storing the waiter, without
	// checking that the slot still says wait: readiness that came after
	// PrepareWait is overwritten, and the task sleeps through it.
	CommitIgnoresReady = Mutant{
		Name: "commit-ignores-ready",
		File: "netpoll/desc.go",
		Old:  "\tif d.slot(mode).state.Cas(pdWait, w) {\n",
		New:  "\tif d.slot(mode).state.Store(w); true { // mutant: the commit does not check for ready\n",
	}
	// ReadyNotLatched drops an edge that finds nobody waiting instead of
	// latching it: a task that waits afterwards misses it.
	ReadyNotLatched = Mutant{
		Name: "ready-not-latched",
		File: "netpoll/desc.go",
		Old:  "\t\tif old == pdReady || old == nil && !ioready {\n",
		New:  "\t\tif old == pdReady || old == nil { // mutant: an edge with nobody waiting is lost\n",
	}
	// DeadlineSeqIgnored lets a timer fire for a deadline that was moved
	// since it was set.
	DeadlineSeqIgnored = Mutant{
		Name: "deadline-seq-ignored",
		File: "netpoll/desc.go",
		Old:  "\tif d.closing || *cur != seq {\n",
		New:  "\tif d.closing || *cur != seq && false { // mutant: a stale timer fires\n",
	}
	// WaitSkipsErrCheck does not look for Close or an expired deadline
	// after announcing the wait: a Close that looked at the slot before
	// the announcement leaves the task parked on a closed descriptor.
	WaitSkipsErrCheck = Mutant{
		Name: "wait-skips-err-check",
		File: "netpoll/desc.go",
		Old:  "\t\t\tif err := d.checkErr(mode); err != nil {\n\t\t\t\ts.state.Swap(nil)",
		New:  "\t\t\tif err := d.checkErr(mode); err != nil && false { // mutant\n\t\t\t\ts.state.Swap(nil)",
	}
)
