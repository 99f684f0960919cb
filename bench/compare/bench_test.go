package compare

import (
	"fmt"
	"testing"
	"time"
)

// The benchmark sizes, from docs/BENCHMARKS.md and the performance anchors
// (tokio's rt_multi_threaded benchmarks and a fib fork-join).
const (
	spawnTasks  = 10_000
	fanOutTasks = 10_000
	limitTasks  = 100_000
	groupLimitN = 4
	chainDepth  = 1_000
	fibN        = 25
	yieldTasks  = 200
	yieldCount  = 1_000
	pingHandoff = 10_000
	burstCount  = 8
	burstTasks  = 1_024
	burstWorkUs = 1
	idleSecond  = time.Second
)

// depthTasks are the queue depths of SpawnDepth, from a thousand tasks
// queued at once to ten million.
var depthTasks = []int{1_000, 10_000, 100_000, 1_000_000, 10_000_000}

func BenchmarkSpawnLocal(b *testing.B)   { benchWorkload(b, withIOWaiter(spawnLocal(spawnTasks))) }
func BenchmarkSpawnRemote(b *testing.B)  { benchWorkload(b, withIOWaiter(spawnRemote(spawnTasks))) }
func BenchmarkChainedSpawn(b *testing.B) { benchWorkload(b, chainedSpawn(chainDepth)) }
func BenchmarkForkJoinFib(b *testing.B)  { benchWorkload(b, forkJoinFib(fibN)) }
func BenchmarkGroupFanOut(b *testing.B)  { benchWorkload(b, groupFanOut(fanOutTasks)) }
func BenchmarkGroupLimit(b *testing.B)   { benchWorkload(b, groupLimit(limitTasks, groupLimitN)) }
func BenchmarkYieldMany(b *testing.B)    { benchWorkload(b, yieldMany(yieldTasks, yieldCount)) }
func BenchmarkPingPong(b *testing.B)     { benchWorkload(b, withIOWaiter(pingPong(pingHandoff))) }

func BenchmarkImbalanced(b *testing.B) {
	benchWorkload(b, imbalanced(burstCount, burstTasks, burstWorkUs))
}

// BenchmarkSpawnDepth reports, for each queue depth in depthTasks
// (tasks=N), how the cost of a spawn and the memory of a queued task grow
// with the number of tasks queued at once. Under -short it runs only the
// smallest depth.
func BenchmarkSpawnDepth(b *testing.B) {
	for i, n := range depthTasks {
		if i > 0 && testing.Short() {
			break
		}
		b.Run(fmt.Sprintf("tasks=%d", n), func(b *testing.B) { benchSpawnDepth(b, n) })
	}
}

// BenchmarkIdleWake reports the median and 99th percentile of the
// submit-to-start latency on an idle implementation. Its sec/op includes
// the idle gap of every sample and means nothing.
func BenchmarkIdleWake(b *testing.B) {
	benchSamples(b, idleWakeVariants(), func(b *testing.B, samples []int64) {
		b.ReportMetric(float64(percentile(samples, 50)), "p50-ns")
		b.ReportMetric(float64(percentile(samples, 99)), "p99-ns")
	})
}

// BenchmarkIdleCPU reports the process CPU time per second of idleness of
// each implementation, in ms. It takes a second per run, a tenth of one
// under -short (the CI's smoke run).
func BenchmarkIdleCPU(b *testing.B) {
	period := idleSecond
	if testing.Short() {
		period /= 10
	}
	benchSamples(b, idleCPUVariants(period), func(b *testing.B, samples []int64) {
		var cpu int64
		for _, s := range samples {
			cpu += s
		}
		idle := float64(len(samples)) * period.Seconds()
		b.ReportMetric(float64(cpu)/1e6/idle, "cpu-ms/idle-s")
	})
}

// BenchmarkObservability is SpawnLocal on the kernel with each
// observability feature on (impl=kernel-<feature>) and all off
// (impl=kernel).
func BenchmarkObservability(b *testing.B) { benchWorkload(b, observedSpawnLocal(spawnTasks)) }
