package kernel

import (
	"bytes"
	"runtime/pprof"
	"runtime/trace"
	"strings"
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

func TestGoKindRejectsNilFunctions(t *testing.T) {
	k := newKernel(t, WithProcs(1))
	if err := k.GoKind(NewKind("x"), nil); err != ErrNilFunc {
		t.Errorf("Kernel.GoKind(nil fn) = %v, want ErrNilFunc", err)
	}
	shutdown(t, k)
}
