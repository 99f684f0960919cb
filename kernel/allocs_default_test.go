//go:build !race && !vsched_explore

package kernel_test

// allocSkip is empty: the default build is the one whose allocations the
// tests of allocs_test.go count.
const allocSkip = ""
