//go:build !vsched_explore

package runq

// Size is the capacity of a Queue's ring, the runtime's len(p.runq).
//
// The explorer build (tag vsched_explore) shrinks it so that overflow and
// counter wraparound are reachable in a few steps.
const Size = 256
