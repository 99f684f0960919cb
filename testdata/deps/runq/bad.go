// Package runq breaks two rules: it imports the oracle, and it takes its
// atomics from sync/atomic rather than internal/xsync.
package runq

import (
	"sync/atomic"

	"github.com/vsched/vsched/internal/xsync"
	"github.com/vsched/vsched/spec"
)

var _ atomic.Int32
var _ xsync.Int32
var _ = spec.Scheduler{}
