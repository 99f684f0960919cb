//go:build !vsched_explore

package xsync

// Nanotime returns monotonic time in nanoseconds: the runtime's nanotime,
// for the scheduler's monitor, which compares the samples it takes and
// never reads the wall clock. It is not a scheduling point in either
// build; in an explorer model it is the model's clock, which only a
// timeout of a timed sleep moves.
func Nanotime() int64 { return monotonic() }
