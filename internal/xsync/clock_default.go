//go:build !vsched_explore

package xsync

import "time"

// Nanotime returns monotonic time in nanoseconds: the runtime's nanotime,
// for the scheduler's monitor, which compares the samples it takes and
// never reads the wall clock. It is not a scheduling point in either
// build; in an explorer model it is the model's clock, which only a
// timeout of a timed sleep moves.
func Nanotime() int64 { return monotonic() }

// Now returns the wall-clock time: time.Now. In an explorer model it is
// the model's clock; see the explorer build.
func Now() time.Time { return time.Now() }

// Until returns the duration until t, as time.Until, measured on the clock
// that [Now] reads: code that turns a caller's deadline into a [Nanotime]
// uses it, so that in a model the deadline lies on the model's clock.
func Until(t time.Time) time.Duration { return time.Until(t) }
