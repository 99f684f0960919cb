package kernel

import (
	"context"
	"fmt"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
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

// runTraced runs gp's function inside an execution-tracer region named
// after its kind. Called only while tracing is on: trace.IsEnabled is one
// atomic load, so a kernel that is not traced pays nothing else.
func runTraced(gp *g) {
	name := taskRegion
	if gp.kind != nil {
		name = gp.kind.name
	}
	r := trace.StartRegion(context.Background(), name)
	gp.fn(&gp.ctx)
	r.End()
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
