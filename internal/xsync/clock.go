package xsync

import "time"

// epoch is the origin of Nanotime.
var epoch = time.Now()

// Nanotime returns monotonic time in nanoseconds since the package was
// initialized: the runtime's nanotime, for the scheduler's monitor, which
// compares the samples it takes and never reads the wall clock. It is not a
// scheduling point in either build.
func Nanotime() int64 { return int64(time.Since(epoch)) }
