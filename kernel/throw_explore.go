//go:build vsched_explore

package kernel

// throw reports a broken invariant. In the explorer build it panics, so that
// the explorer reports it with the schedule that led there.
func throw(msg string) { panic("kernel: " + msg) }
