package netbench

import (
	"math"
	"slices"
	"syscall"
	"time"
)

// cpuTime is the process's user+system CPU time so far
// (getrusage(RUSAGE_SELF)): every thread, the Go runtime's included. It is
// bench/compare's cpuTime.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// percentile returns the p-th percentile (0 < p <= 100) of samples by the
// nearest-rank method; it sorts samples. It is bench/compare's percentile.
func percentile(samples []int64, p float64) int64 {
	slices.Sort(samples)
	i := int(math.Ceil(float64(len(samples))*p/100)) - 1
	return samples[min(max(i, 0), len(samples)-1)]
}
