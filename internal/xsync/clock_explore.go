//go:build vsched_explore

package xsync

import "github.com/vsched/vsched/internal/explorer"

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
