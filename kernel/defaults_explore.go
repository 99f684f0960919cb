//go:build vsched_explore

package kernel

import "github.com/vsched/vsched/internal/xsync"

// defaultPause is the back-off before a thief takes a running victim's
// runnext. In the explorer build it is a spin point, so that the explorer
// lets the victim's owner run first, which is what the pause is for.
var defaultPause = xsync.Spin
