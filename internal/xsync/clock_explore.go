//go:build vsched_explore

package xsync

import (
	"time"

	"github.com/vsched/vsched/internal/explorer"
)

// Nanotime returns monotonic time in nanoseconds; see the default build.
// In a model it is the execution's clock (explorer.Now), which moves only
// when a timed sleep ends by its timeout, so that every execution of a
// model reads the same times.
func Nanotime() int64 {
	if explorer.Active() {
		return explorer.Now()
	}
	return monotonic()
}

// Now returns the wall-clock time; see the default build. In a model it is
// the model's clock read as a time: [Nanotime] nanoseconds after the Unix
// epoch. A model builds the deadlines it sets from it (xsync.Now().Add(d)),
// so that they lie d ahead on the clock the explorer moves.
func Now() time.Time {
	if explorer.Active() {
		return time.Unix(0, explorer.Now())
	}
	return time.Now()
}

// Until returns the duration until t on the clock [Now] reads; see the
// default build.
func Until(t time.Time) time.Duration {
	if explorer.Active() {
		return t.Sub(Now())
	}
	return time.Until(t)
}
