package kernel

import (
	"bytes"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"
)

// hangGuard bounds a wait that only a bug could make long.
const hangGuard = time.Minute

func TestStallReportNamesTheTasksKind(t *testing.T) {
	stalls := make(chan Stall, 1)
	k := newKernel(t, WithProcs(1), WithStall(time.Millisecond, func(s Stall) {
		select {
		case stalls <- s:
		default:
		}
	}))
	slow := NewKind("slow-parse")
	released := make(chan struct{})
	if err := k.GoKind(slow, func(c *Ctx) {
		<-released // runs until the monitor has reported it
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-stalls:
		close(released)
		if s.Kind != slow || s.Kind.Name() != "slow-parse" || s.P != 0 {
			t.Fatalf("stall %+v; want kind slow-parse on P 0", s)
		}
	case <-time.After(hangGuard):
		close(released)
		t.Fatal("no stall reported for a task that ran until one was")
	}
	shutdown(t, k)
}

// goroutineLabels returns the labels of the calling goroutine as the
// goroutine profile shows them.
func goroutineLabels(t *testing.T) string {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
		t.Error(err)
	}
	// Each stack is a paragraph; the one running this function is ours.
	for _, para := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(para, "kernel.goroutineLabels") {
			for _, l := range strings.Split(para, "\n") {
				if strings.HasPrefix(l, "# labels: ") {
					return strings.TrimPrefix(l, "# labels: ")
				}
			}
			return ""
		}
	}
	return ""
}

func TestProfileLabelsNameThePAndTheTasksKind(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	kind, plain := make(chan string, 1), make(chan string, 1)
	if err := k.GoKind(NewKind("render"), func(c *Ctx) {
		kind <- goroutineLabels(t)
		c.Go(func(*Ctx) { plain <- goroutineLabels(t) })
	}); err != nil {
		t.Fatal(err)
	}
	if got := <-kind; got != `{"vsched.kind":"render"}` {
		t.Errorf("labels of a task of kind render: %s", got)
	}
	if got := <-plain; got != `{"vsched.p":"0"}` {
		t.Errorf("labels of a task without a kind, after one with a kind: %s", got)
	}
	shutdown(t, k)
}

func TestTraceHasARegionPerTaskRunNamedByKind(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("the execution tracer is already on")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, WithProcs(2))
	kind := NewKind("trace-kind-7f3a")
	for range 10 {
		if err := k.GoKind(kind, func(c *Ctx) { c.Go(func(*Ctx) {}) }); err != nil {
			t.Fatal(err)
		}
	}
	shutdown(t, k)
	trace.Stop()
	for _, want := range []string{"trace-kind-7f3a", taskRegion} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("the trace has no region named %q", want)
		}
	}
}

func TestTraceLogsParksAndHandoffs(t *testing.T) {
	if trace.IsEnabled() {
		t.Skip("the execution tracer is already on")
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	k := newKernel(t, WithProcs(1), WithBlockHandoff(HandoffEager))
	parked := make(chan *Waker, 1)
	woken := false
	if err := k.Go(func(c *Ctx) {
		if woken {
			return
		}
		woken = true
		c.Block(func() {}) // an eager Block hands the P off
		parked <- c.Park()
	}); err != nil {
		t.Fatal(err)
	}
	w := <-parked
	// Wake only once the park has committed (a Wake before the commit
	// cancels it, and nothing parks): the P publishes its counters when it
	// goes idle after the commit.
	for i := 0; k.Stats().ParkedTasks != 1; i++ {
		if i == 10_000_000 {
			t.Fatal("the task never parked")
		}
		runtime.Gosched()
	}
	w.Wake()
	shutdown(t, k)
	trace.Stop()
	for _, want := range []string{"vsched.park", "vsched.handoff"} {
		if !bytes.Contains(buf.Bytes(), []byte(want)) {
			t.Errorf("the trace has no %q event", want)
		}
	}
}

func TestGoKindRejectsNilFunctions(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	if err := k.GoKind(NewKind("x"), nil); err != ErrNilFunc {
		t.Errorf("Kernel.GoKind(nil fn) = %v, want ErrNilFunc", err)
	}
	shutdown(t, k)
}

func TestHistogramsCountEveryRunAndEveryScheduling(t *testing.T) {
	const n = 200
	k := newKernel(t, WithProcs(2), WithHistograms())
	var wg sync.WaitGroup
	wg.Add(n)
	slow := make(chan struct{})
	if err := k.Go(func(c *Ctx) {
		for range n - 1 {
			c.Go(func(*Ctx) { wg.Done() })
		}
		wg.Done()
		<-slow // this run lasts until the others have run
	}); err != nil {
		t.Fatal(err)
	}
	// The root's run ends only after every child has run. No clock value
	// is asserted, only that every run and every scheduling was counted.
	go func() { wg.Wait(); close(slow) }()
	shutdown(t, k)
	s := k.Stats()
	if got := s.PollTime.Total(); got != n {
		t.Errorf("PollTime counts %d runs, want %d", got, n)
	}
	if got := s.ScheduleLatency.Total(); got != n {
		t.Errorf("ScheduleLatency counts %d schedulings, want %d", got, n)
	}
	if s.PollTime.Quantile(1) < s.PollTime.Quantile(0.5) {
		t.Errorf("the histogram's quantiles are not ordered: %v", s.PollTime)
	}

	// A batch from outside: each task is stamped once, under the lock,
	// before any M can run it.
	k = newKernel(t, WithProcs(2), WithHistograms())
	if err := k.GoBatch(noops(n)...); err != nil {
		t.Fatal(err)
	}
	shutdown(t, k)
	if s := k.Stats(); s.ScheduleLatency.Total() != n || s.PollTime.Total() != n {
		t.Errorf("a batch of %d: ScheduleLatency counts %d, PollTime %d", n, s.ScheduleLatency.Total(), s.PollTime.Total())
	}

	k = newKernel(t, WithProcs(1))
	if err := k.Go(func(*Ctx) {}); err != nil {
		t.Fatal(err)
	}
	shutdown(t, k)
	if s := k.Stats(); s.PollTime.Total() != 0 || s.ScheduleLatency.Total() != 0 {
		t.Errorf("a kernel without WithHistograms kept them: %+v", s)
	}
}

// ScheduleLatency samples a run once per scheduling, not per run: a yield
// makes the task runnable again (a sample), and a park whose Wake came
// before the commit runs the task again at once, without a scheduling (no
// sample).
func TestScheduleLatencyCountsSchedulingsNotRuns(t *testing.T) {
	k := newKernel(t, WithProcs(1), WithHistograms())
	var runs int
	if err := k.Go(func(c *Ctx) {
		runs++
		switch runs {
		case 1:
			c.Yield()
		case 2:
			c.Park().Wake()
		}
	}); err != nil {
		t.Fatal(err)
	}
	shutdown(t, k)
	s := k.Stats()
	if s.PollTime.Total() != 3 || s.ScheduleLatency.Total() != 2 {
		t.Errorf("a task that yields once and parks once, woken before the commit: PollTime counts %d runs, ScheduleLatency %d schedulings; want 3 and 2",
			s.PollTime.Total(), s.ScheduleLatency.Total())
	}
}

func TestHistogramBucketsDoubleFrom1024ns(t *testing.T) {
	for ns, want := range map[int64]int{0: 0, 1023: 0, 1024: 1, 2047: 1, 2048: 2, 1 << 40: HistogramBuckets - 1} {
		if got := bucketOf(ns); got != want {
			t.Errorf("bucketOf(%d) = %d, want %d", ns, got, want)
		}
		if b := bucketOf(ns); b < HistogramBuckets-1 && time.Duration(ns) >= HistogramBound(b) {
			t.Errorf("%d ns is in bucket %d, whose bound is %v", ns, b, HistogramBound(b))
		}
	}
	var h Histogram
	h.Counts[0], h.Counts[3] = 9, 1
	if h.Quantile(0.5) != HistogramBound(0) || h.Quantile(0.95) != HistogramBound(3) || h.Quantile(0) != HistogramBound(0) {
		t.Errorf("quantiles of %v: %v %v", h.Counts, h.Quantile(0.5), h.Quantile(0.95))
	}
	if (&Histogram{}).Quantile(0.5) != 0 {
		t.Error("an empty histogram has a quantile")
	}
}
