package linearizability

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

// Errors that [Checker.Check] and [Stress] wrap, for errors.Is.
var (
	// ErrNotLinearizable: porcupine found no linearization of a history.
	ErrNotLinearizable = errors.New("not linearizable")
	// ErrConservation: an item was lost or consumed twice across queues.
	ErrConservation = errors.New("conservation violated")
	// ErrPanicked: a queue operation panicked during a stress round.
	ErrPanicked = errors.New("queue operation panicked")
	// ErrStuck: a queue operation did not return during a stress round.
	ErrStuck = errors.New("queue operation stuck")
	// ErrHistory: a history handed to [Checker.Check] is malformed.
	ErrHistory = errors.New("malformed history")
	// ErrConfig: a [Config] or an environment variable has a bad value.
	ErrConfig = errors.New("invalid configuration")
)

// Checker checks histories of a queue system against [NewModel] and, when
// one is not linearizable, shrinks it and writes porcupine's visualization.
type Checker struct {
	// Procs is the number of local queues and RingSize their ring
	// capacity, as for [NewModel].
	Procs, RingSize int
	// Timeout bounds each porcupine search; 0 means none. A search that
	// times out gives [porcupine.Unknown].
	Timeout time.Duration
	// Dir is the directory for the HTML visualization of a failing
	// history; if empty, no file is written.
	Dir string
	// Label goes into the HTML file's name.
	Label string
}

// Failure describes a history that failed a check: it wraps
// [ErrNotLinearizable], [ErrConservation], [ErrPanicked] or [ErrStuck].
type Failure struct {
	// Err is the sentinel error (see above).
	Err error
	// Round is the stress round of the history (0 outside [Stress]).
	Round int
	// RoundOps is the number of operations of the whole history, and Ops
	// that of the shortest failing prefix found (equal when the history
	// was not shrunk).
	RoundOps, Ops int
	// HTML is the path of porcupine's visualization of the shortest
	// failing prefix, or "". The same history is listed as text in the
	// file of the same name ending in .txt.
	HTML string
	// Detail says more, for example which invariant broke.
	Detail string
}

// Error says what failed, where, and where the visualization is.
func (f *Failure) Error() string {
	s := fmt.Sprintf("round %d: %v (%d operations", f.Round, f.Err, f.RoundOps)
	if f.Ops != f.RoundOps {
		s += fmt.Sprintf(", shortest failing prefix %d", f.Ops)
	}
	s += ")"
	if f.Detail != "" {
		s += ": " + f.Detail
	}
	if f.HTML != "" {
		s += "; visualization: " + f.HTML
	}
	return s
}

// Unwrap returns the sentinel error.
func (f *Failure) Unwrap() error { return f.Err }

// Check checks ops, which must be ordered by call stamp (as
// [Recorder.Operations] returns them). It returns porcupine's result; when
// the result is [porcupine.Illegal], the error is a *[Failure] wrapping
// [ErrNotLinearizable] whose history is the shortest failing prefix of ops
// that a binary search found, visualized in c.Dir. A malformed history gives
// an error wrapping [ErrHistory].
func (c Checker) Check(ops []porcupine.Operation) (porcupine.CheckResult, error) {
	if err := c.validate(ops); err != nil {
		return porcupine.Unknown, err
	}
	m := NewModel(c.Procs, c.RingSize)
	res := porcupine.CheckOperationsTimeout(m, ops, c.Timeout)
	if res != porcupine.Illegal {
		return res, nil
	}
	f := &Failure{Err: ErrNotLinearizable, RoundOps: len(ops), Ops: len(ops)}
	// Binary search for the shortest illegal prefix that ends at a
	// quiescent point, where every operation in it has returned before any
	// operation after it is called. Only such a prefix is a witness: its
	// operations come first in any linearization of the whole history, so
	// if it is illegal the history is, and so is every longer one.
	cuts := quiescentCuts(ops)
	lo, hi := -1, len(cuts)-1 // cuts[hi] is illegal; cuts[lo] is not, or lo is -1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if porcupine.CheckOperationsTimeout(m, ops[:cuts[mid]], c.Timeout) == porcupine.Illegal {
			hi = mid
		} else {
			lo = mid
		}
	}
	hi = cuts[hi]
	f.Ops = hi
	if c.Dir != "" {
		path, err := c.visualize(m, ops[:hi])
		if err != nil {
			f.Detail = "cannot write the visualization: " + err.Error()
		}
		f.HTML = path
	}
	return res, f
}

// quiescentCuts returns, in increasing order, every k > 0 such that each
// operation of ops[:k] returns before each operation of ops[k:] is called;
// ops are ordered by call stamp, and len(ops) is the last cut.
func quiescentCuts(ops []porcupine.Operation) []int {
	var cuts []int
	end := int64(math.MinInt64)
	for k, op := range ops {
		if k > 0 && op.Call > end {
			cuts = append(cuts, k)
		}
		end = max(end, op.Return)
	}
	return append(cuts, len(ops))
}

func (c Checker) visualize(m porcupine.Model, ops []porcupine.Operation) (string, error) {
	res, info := porcupine.CheckOperationsVerbose(m, ops, c.Timeout)
	if res != porcupine.Illegal {
		return "", fmt.Errorf("the verbose check of the failing prefix returned %v", res)
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(c.Dir, "vsched-lin-"+c.Label+"-*.html")
	if err != nil {
		return "", err
	}
	path := f.Name()
	if err := f.Close(); err != nil {
		return "", err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if err := porcupine.VisualizePath(m, info, path); err != nil {
		return path, err
	}
	return path, os.WriteFile(strings.TrimSuffix(path, ".html")+".txt", []byte(historyText(ops)), 0o644)
}

// historyText lists a history one operation a line, by call stamp, for a
// reader without a browser.
func historyText(ops []porcupine.Operation) string {
	var b strings.Builder
	for _, op := range ops {
		fmt.Fprintf(&b, "client %d [%d, %d] %s\n", op.ClientId, op.Call, op.Return, describeOperation(op.Input, op.Output))
	}
	return b.String()
}

// validate checks that ops could have come from a [Recorder] and name
// queues the model has.
func (c Checker) validate(ops []porcupine.Operation) error {
	if c.Procs < 1 || c.RingSize < 2 || c.RingSize%2 != 0 {
		return fmt.Errorf("%w: Checker{Procs: %d, RingSize: %d}: need Procs >= 1 and an even RingSize >= 2", ErrConfig, c.Procs, c.RingSize)
	}
	for i, op := range ops {
		in, ok := op.Input.(Input)
		if !ok {
			return fmt.Errorf("%w: operation %d: Input is %T, want linearizability.Input", ErrHistory, i, op.Input)
		}
		if _, ok := op.Output.(Output); !ok {
			return fmt.Errorf("%w: operation %d: Output is %T, want linearizability.Output", ErrHistory, i, op.Output)
		}
		switch {
		case op.Return < op.Call:
			return fmt.Errorf("%w: operation %d returns at %d before its call at %d", ErrHistory, i, op.Return, op.Call)
		case i > 0 && op.Call < ops[i-1].Call:
			return fmt.Errorf("%w: operation %d is called at %d, before operation %d at %d: sort by call", ErrHistory, i, op.Call, i-1, ops[i-1].Call)
		case in.Op >= numOps:
			return fmt.Errorf("%w: operation %d: unknown %v", ErrHistory, i, in.Op)
		case !in.Op.global() && (in.P < 0 || in.P >= c.Procs):
			return fmt.Errorf("%w: operation %d: queue P%d, the model has %d", ErrHistory, i, in.P, c.Procs)
		case in.Op == StealInto && (in.Dst < 0 || in.Dst >= c.Procs || in.Dst == in.P):
			return fmt.Errorf("%w: operation %d: StealInto from P%d into P%d", ErrHistory, i, in.P, in.Dst)
		}
		for _, g := range in.Items {
			if g <= 0 {
				return fmt.Errorf("%w: operation %d puts item %d; items are positive ids", ErrHistory, i, g)
			}
		}
	}
	return nil
}
