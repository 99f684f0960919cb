//go:build vsched_explore

package explorer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// Event is one step of a traced execution.
type Event struct {
	Step   int
	Thread int
	Op     Op
	Addr   unsafe.Pointer
	// File and Line locate the code that made the step's operation.
	File string
	Line int
	// Value says what the operation read and wrote.
	Value string
	// Preempted is the thread that preempted this one right after this
	// step, or -1.
	Preempted int
	names     *names
}

// names gives addresses and pointer values short names in order of first
// appearance, so that a trace reads @1, @2 and p1, p2 instead of raw
// addresses that differ from run to run.
type names struct {
	addrs, ptrs map[unsafe.Pointer]int
}

func (n *names) addr(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	if n.addrs == nil {
		n.addrs = map[unsafe.Pointer]int{}
	}
	if _, ok := n.addrs[p]; !ok {
		n.addrs[p] = len(n.addrs) + 1
	}
	return "@" + strconv.Itoa(n.addrs[p])
}

func (n *names) ptr(p unsafe.Pointer) string {
	if p == nil {
		return "nil"
	}
	if n.ptrs == nil {
		n.ptrs = map[unsafe.Pointer]int{}
	}
	if _, ok := n.ptrs[p]; !ok {
		n.ptrs[p] = len(n.ptrs) + 1
	}
	return "p" + strconv.Itoa(n.ptrs[p])
}

// Failure is a failed execution: what went wrong, the schedule that replays
// it, and the trace of its steps.
type Failure struct {
	// Kind is "panic" (an assertion failed or a thread panicked),
	// "deadlock", "livelock", "nondeterminism" or "replay".
	Kind string
	// Thread is the thread that failed, or -1 when the failure belongs
	// to no single thread.
	Thread  int
	Message string
	// Stack is the panicking goroutine's stack, for a panic.
	Stack string
	// Schedule replays the execution: set VSCHED_REPLAY to it.
	Schedule    string
	Preemptions int
	Trace       []Event
}

// Error reports the failure with its replay schedule and its trace.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "explore: %s: %s\n", f.Kind, f.Message)
	if f.Schedule != "" {
		fmt.Fprintf(&b, "replay (%d preemptions): VSCHED_REPLAY=%s\n", f.Preemptions, f.Schedule)
	}
	if len(f.Trace) > 0 {
		b.WriteString(f.TraceString())
	}
	if f.Stack != "" {
		fmt.Fprintf(&b, "stack of the panic:\n%s", f.Stack)
	}
	return b.String()
}

// maxTrace bounds the steps a report shows; a livelock's trace is long.
const maxTrace = 400

// TraceString formats the trace: one line per step, each thread in its own
// column, the operation with the address (@n) it touched and the values it
// read (→) and wrote (⇒), and the source line that made it.
func (f *Failure) TraceString() string {
	var b strings.Builder
	nthreads := 0
	for _, ev := range f.Trace {
		nthreads = max(nthreads, ev.Thread+1)
	}
	b.WriteString("trace (one column per thread; @n names an address, pn a pointer value; ✂ marks a preemption):\n")
	events := f.Trace
	if len(events) > maxTrace {
		fmt.Fprintf(&b, "  ... %d earlier steps not shown ...\n", len(events)-maxTrace)
		events = events[len(events)-maxTrace:]
	}
	const col = 34
	for _, ev := range events {
		cell := fmt.Sprintf("T%d %s %s %s", ev.Thread, ev.Op, ev.names.addr(ev.Addr), ev.Value)
		cell = strings.Join(strings.Fields(cell), " ")
		line := fmt.Sprintf("%5d  %s%-*s", ev.Step, strings.Repeat(" ", col*ev.Thread), col, cell)
		line += strings.Repeat(" ", col*(nthreads-1-ev.Thread))
		if ev.File != "" {
			line += fmt.Sprintf("  %s:%d  %s", filepath.Base(ev.File), ev.Line, sourceLine(ev.File, ev.Line))
		}
		b.WriteString(strings.TrimRight(line, " "))
		b.WriteByte('\n')
		if ev.Preempted >= 0 {
			fmt.Fprintf(&b, "       ✂ T%d preempted by T%d\n", ev.Thread, ev.Preempted)
		}
	}
	return b.String()
}

var sources sync.Map // file name → []string

func sourceLine(file string, line int) string {
	v, ok := sources.Load(file)
	if !ok {
		data, err := os.ReadFile(file)
		if err != nil {
			return ""
		}
		v, _ = sources.LoadOrStore(file, strings.Split(string(data), "\n"))
	}
	lines := v.([]string)
	if line < 1 || line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[line-1])
}
