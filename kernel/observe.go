package kernel

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"time"

	"github.com/vsched/vsched/internal/xsync"
)

// Kind names a kind of task, for the three tools that look at a running
// program: the stall hook ([Stall.Kind]), the execution tracer (each run of
// a task of this kind is a region named after it) and the CPU profiler
// (runs of this kind carry the pprof label vsched.kind=<name>). Make a Kind
// once per kind of work, with [NewKind], and spawn with [Kernel.GoKind] or
// [Ctx.GoKind]; a task spawned with Go has no kind.
//
// A Kind is immutable and may be shared by any number of kernels and
// goroutines.
type Kind struct {
	name   string
	labels context.Context // pprof's labels of a run of this kind
}

// NewKind returns the Kind named name.
func NewKind(name string) *Kind {
	return &Kind{name: name, labels: pprof.WithLabels(context.Background(), pprof.Labels("vsched.kind", name))}
}

// Name returns the kind's name.
func (kd *Kind) Name() string { return kd.name }

// GoKind is [Kernel.Go] for a task of kind kd (nil: no kind).
func (k *Kernel) GoKind(kd *Kind, fn func(*Ctx)) error {
	return k.submit(kd, fn)
}

// GoKind is [Ctx.Go] for a task of kind kd (nil: no kind).
func (c *Ctx) GoKind(kd *Kind, fn func(*Ctx)) {
	c.spawn("GoKind", kd, fn)
}

// taskRegion is the name of the trace region of a task without a kind.
const taskRegion = "vsched.task"

// procLabels are the pprof labels of an M's goroutine while it holds P
// number id: a CPU profile splits the scheduler's own time, and the time of
// tasks without a kind, by P (go tool pprof -tagfocus vsched.p=3).
func procLabels(id int) context.Context {
	return pprof.WithLabels(context.Background(), pprof.Labels("vsched.p", strconv.Itoa(id)))
}

// traceEvent logs a scheduling event (a steal, a park, a hand-off) to the
// execution tracer. Callers check trace.IsEnabled first, so that a kernel
// that is not traced does not even box the arguments.
func traceEvent(category, format string, args ...any) {
	trace.Log(context.Background(), category, fmt.Sprintf(format, args...))
}

// traceParked logs a committed park on pp to the execution tracer.
func traceParked(pp *p) {
	if trace.IsEnabled() {
		traceEvent("vsched.park", "a task parked on P%d", pp.id)
	}
}

// Histograms of schedule latency and run time, kept when [WithHistograms]
// is given: each costs a clock read where a task becomes runnable and two
// around each run, so they are off by default.

// HistogramBuckets is the number of buckets of a [Histogram].
const HistogramBuckets = 24

// Histogram counts durations in buckets of doubling width: bucket 0 holds
// those under 1,024 ns, bucket i those from [HistogramBound](i-1) up to
// HistogramBound(i), and the last bucket everything from 4.3 s up.
type Histogram struct {
	Counts [HistogramBuckets]uint64
}

// HistogramBound returns the upper bound of bucket i of a [Histogram]
// (exclusive): 2^(10+i) ns. The last bucket has none; its bound is returned
// as the largest Duration.
func HistogramBound(i int) time.Duration {
	if i >= HistogramBuckets-1 {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(int64(1) << (10 + i))
}

// Total returns the number of durations counted.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Quantile returns the upper bound of the bucket that holds the q-quantile
// (0 <= q <= 1) of the durations counted, or 0 if none were: an
// overestimate by less than a factor of two.
func (h *Histogram) Quantile(q float64) time.Duration {
	total := h.Total()
	if total == 0 {
		return 0
	}
	rank := uint64(math.Ceil(q * float64(total)))
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= max(rank, 1) {
			return HistogramBound(i)
		}
	}
	return HistogramBound(HistogramBuckets - 1)
}

// bucketOf returns the bucket of a duration of ns nanoseconds.
func bucketOf(ns int64) int {
	if ns < 1024 {
		return 0
	}
	return min(bits.Len64(uint64(ns))-10, HistogramBuckets-1)
}

// histograms are a P's histograms, written only by its owner.
type histograms struct {
	sched, run [HistogramBuckets]uint64
}

// pubHistograms are the copy that Stats reads.
type pubHistograms struct {
	sched, run [HistogramBuckets]xsync.Stat
}

// WithHistograms turns on the histograms of schedule latency (from the
// moment a task becomes runnable, by a spawn, a submit, a Wake, a yield or
// the netpoller, to the start of its run) and of run time (one run of its
// function) in [Stats.ScheduleLatency] and [Stats.PollTime]. They cost
// three clock reads per task run, and the stamp of when a task became
// runnable lives in its record's rarer state, which every record then
// carries (96 bytes, kept with the record) and every run reads (see
// docs/BENCHMARKS.md).
func WithHistograms() Option {
	return func(k *Kernel) error {
		k.histograms = true
		return nil
	}
}

// stampReady records when gp became runnable, unless it already was.
func (k *Kernel) stampReady(gp *g) {
	if k.histograms {
		if x := gp.extra(); x.readyAt == 0 {
			x.readyAt = nanotime()
		}
	}
}

// publishHistograms copies pp's histograms for Stats. Executed only by
// pp's owner.
func (pp *p) publishHistograms() {
	for i := range HistogramBuckets {
		pp.hpub.sched[i].Store(pp.h.sched[i])
		pp.hpub.run[i].Store(pp.h.run[i])
	}
}

// runObserved runs gp's function with what observes it turned on: the
// pprof labels of its kind, a trace region, the histograms. The labels and
// the region are put back by a deferred call, so that a panic the kernel
// recovers does not leave them on the M.
func (k *Kernel) runObserved(mp *m, gp *g) {
	var start int64
	if pp := mp.p; pp.h != nil {
		start = nanotime()
		if x := gp.x; x != nil && x.readyAt != 0 {
			pp.h.sched[bucketOf(start-x.readyAt)]++
			x.readyAt = 0
		}
	}
	if gp.kind != nil {
		pprof.SetGoroutineLabels(gp.kind.labels)
		defer func() {
			if pp := mp.p; pp != nil { // Block may have moved the task to another P
				pprof.SetGoroutineLabels(pp.labels)
			}
		}()
	}
	if trace.IsEnabled() {
		name := taskRegion
		if gp.kind != nil {
			name = gp.kind.name
		}
		defer trace.StartRegion(context.Background(), name).End()
	}
	gp.fn(&gp.ctx)
	if pp := mp.p; start != 0 && pp != nil {
		pp.h.run[bucketOf(nanotime()-start)]++
	}
}
