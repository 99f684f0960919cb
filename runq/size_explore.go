//go:build vsched_explore

package runq

// Size is the capacity of a Queue's ring. The explorer build shrinks the
// runtime's 256 to 4, as tokio does under loom, so that overflow and
// wraparound are reachable within a few steps.
const Size = 4
