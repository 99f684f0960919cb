package compare

import "testing"

// Small sizes: every implementation of the task-group workloads runs to
// the right count, several times on one setup, as the benchmarks reuse
// it. ForkJoinFib's group variants are checked with the other workloads
// in TestEveryVariantRunsEveryWorkloadToItsCount.
func TestEveryGroupVariantRunsToItsCount(t *testing.T) {
	for _, w := range []workload{
		groupFanOut(300),
		groupLimit(500, 4),
		groupLimit(50, 1),
	} {
		for _, v := range w.variants {
			t.Run(w.name+"/impl="+v.impl, func(t *testing.T) {
				r := v.setup(t)
				for i := range 3 {
					if got := r.run(); got != w.want {
						t.Fatalf("run %d returned %d, want %d", i, got, w.want)
					}
				}
			})
		}
	}
}

// The group fork/joins compute fib for every small n, leaves included.
func TestGroupFibComputesFib(t *testing.T) {
	k := newKernel(t)
	for n := range 16 {
		for name, run := range map[string]func() int64{
			"kernel-group":       groupFibRun(t, k, n, groupFib),
			"kernel-group-spine": groupFibRun(t, k, n, groupFibSpine),
			"kernel-group-walk":  groupFibRun(t, k, n, groupFibWalk),
		} {
			if got := run(); got != fibOf(n) {
				t.Errorf("%s fib(%d) = %d, want %d", name, n, got, fibOf(n))
			}
		}
	}
}
