//go:build !vsched_explore

package kernel

import "github.com/vsched/vsched/steal"

// defaultPause is the back-off before a thief takes a running victim's
// runnext: a 3 µs spin, the runtime's usleep(3) in duration.
var defaultPause = steal.SpinPause(steal.RunNextPause)
