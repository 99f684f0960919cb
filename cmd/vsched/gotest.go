package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// event is one line of go test -json: the TestEvent of cmd/test2json, and
// the ImportPath that go test adds to its build-output events.
type event struct {
	Time        time.Time
	Action      string
	Package     string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
	ImportPath  string
}

// failure is the output kept for one thing that failed, printed after the
// campaign so that it does not scroll away under later phases.
type failure struct{ title, output string }

// tally folds a go test -json stream into counts of top-level tests (a
// failed subtest fails its parent, and counting both would make one broken
// property look like many), the work the verifiers logged, and the output
// of whatever failed. A test's output is dropped once it passes.
type tally struct {
	// complete counts the explorer's searches that covered every schedule
	// within their bounds; fuzzExecs comes from the fuzzing coordinator's
	// last progress line.
	passed, failed, skipped, complete int
	executions, operations, fuzzExecs int64
	capped                            []string
	failures                          []failure
	stray                             []string // what go test printed that was not an event, stderr included
	// broken holds the packages that failed with no failed test (a build
	// error, a panic outside a test).
	broken map[string]bool

	out   map[[2]string][]string // output so far, per package and top-level test ("" for none)
	build map[string]string      // build output, per import path
}

func newTally() *tally {
	return &tally{out: map[[2]string][]string{}, build: map[string]string{}, broken: map[string]bool{}}
}

// take returns and forgets the output of a package's test.
func (t *tally) take(k [2]string) string {
	defer delete(t.out, k)
	return strings.Join(t.out[k], "")
}

// runJSON runs cmd, a go test -json, folding its events into t and handing
// each to each (if not nil) as it arrives, both with mu held: go tests run
// at the same time share a mutex, and with it whatever their each touches.
func runJSON(ctx context.Context, cmd *exec.Cmd, mu *sync.Mutex, t *tally, each func(event)) error {
	var stderr bytes.Buffer
	stdout := &lineWriter{fn: func(line string) {
		mu.Lock()
		defer mu.Unlock()
		t.addLine(line, each)
	}}
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	err := runCommand(ctx, cmd)
	stdout.flush() // the last line, if it had no newline; fn takes mu
	mu.Lock()
	defer mu.Unlock()
	t.stray = append(t.stray, strings.TrimSpace(stderr.String()))
	t.settle(err)
	return err
}

// settle gives a go test that ended with runErr and no failure to show
// for it one: what go test said, when it failed around the tests (a bad
// flag, a module error). Every run of a phase keeps its own explanation.
func (t *tally) settle(runErr error) {
	if runErr != nil && len(t.failures) == 0 {
		out := strings.Join(append(slices.Clone(t.stray), "go test: "+runErr.Error()), "\n")
		t.failures = append(t.failures, failure{"go test", out})
	}
}

// addUp returns the counts, the searches, the failures and the stray
// output of ts together, for a phase that ran several go tests. Runs that
// build the same package report its build error or its panic outside the
// tests alike: that is one package error and one failure.
func addUp(ts []*tally) *tally {
	if len(ts) == 1 {
		return ts[0]
	}
	sum := newTally()
	for _, t := range ts {
		sum.passed += t.passed
		sum.failed += t.failed
		sum.skipped += t.skipped
		sum.complete += t.complete
		sum.executions += t.executions
		sum.operations += t.operations
		sum.fuzzExecs += t.fuzzExecs
		sum.capped = append(sum.capped, t.capped...)
		for _, f := range t.failures {
			if !slices.Contains(sum.failures, f) {
				sum.failures = append(sum.failures, f)
			}
		}
		sum.stray = append(sum.stray, t.stray...)
		maps.Copy(sum.broken, t.broken)
	}
	return sum
}

func (t *tally) addLine(line string, each func(event)) {
	var ev event
	if json.Unmarshal([]byte(line), &ev) != nil || ev.Action == "" {
		t.stray = append(t.stray, line)
		return
	}
	t.add(ev)
	if each != nil {
		each(ev)
	}
}

func (t *tally) add(ev event) {
	test, _, sub := strings.Cut(ev.Test, "/")
	switch ev.Action {
	case "build-output":
		t.build[ev.ImportPath] += ev.Output
	case "output":
		// "=== RUN" and its kin say when a test ran, not what it found.
		if strings.HasPrefix(ev.Output, "=== ") || t.countWork(ev.Test, ev.Output) {
			return
		}
		k := [2]string{ev.Package, test}
		t.out[k] = append(t.out[k], ev.Output)
	case "pass", "fail", "skip":
		switch {
		case ev.Test == "":
			t.endPackage(ev)
		case !sub:
			text := t.take([2]string{ev.Package, test})
			switch ev.Action {
			case "pass":
				t.passed++
			case "skip":
				t.skipped++
			default:
				t.failed++
				t.failures = append(t.failures, failure{test + " in " + ev.Package, text})
			}
		}
	}
}

// endPackage reports a failed package that no failed test explains, with
// what explains it: its build output, the tests that never ended (the
// binary died under them), its output outside any test (a panic).
func (t *tally) endPackage(ev event) {
	var b strings.Builder
	b.WriteString(t.build[ev.FailedBuild])
	for _, k := range slices.SortedFunc(maps.Keys(t.out), func(a, b [2]string) int { return strings.Compare(a[1], b[1]) }) {
		switch {
		case k[0] != ev.Package:
		case k[1] != "":
			fmt.Fprintf(&b, "--- UNFINISHED: %s\n%s", k[1], t.take(k))
		default:
			// The lines that repeat the verdict say nothing of the cause.
			for _, l := range strings.SplitAfter(t.take(k), "\n") {
				if s := strings.TrimSpace(l); s != "PASS" && s != "FAIL" && !strings.HasPrefix(s, "exit status ") &&
					!strings.HasPrefix(s, "FAIL\t"+ev.Package) && !strings.HasPrefix(s, "ok  \t"+ev.Package) {
					b.WriteString(l)
				}
			}
		}
	}
	if ev.Action != "fail" {
		return
	}
	testFailed := slices.ContainsFunc(t.failures, func(f failure) bool { return strings.HasSuffix(f.title, " in "+ev.Package) })
	if testFailed && b.Len() == 0 {
		return
	}
	if !testFailed {
		t.broken[ev.Package] = true
	}
	title := ev.Package
	if ev.FailedBuild != "" {
		title += " [build failed]"
	}
	t.failures = append(t.failures, failure{title, b.String()})
}

// The lines in which the verifiers say how much they checked: the
// explorer's summary of a search (explore.Summary), the linearizability
// checker's count, and the fuzzing coordinator's progress.
var (
	searchLogged     = regexp.MustCompile(`\bexplore: (complete|CAPPED by the (\w+) cap|failed): (\d+) executions\b`)
	operationsLogged = regexp.MustCompile(`\b(\d+) operations checked\b`)
	fuzzProgress     = regexp.MustCompile(`^fuzz: elapsed: [^,]+, execs: (\d+) `)
)

// countWork adds what a line of test's output says was checked, and
// reports whether the line is the fuzzing coordinator's chatter, which a
// failure's output does not need.
func (t *tally) countWork(test, out string) bool {
	num := func(s string) int64 { n, _ := strconv.ParseInt(s, 10, 64); return n }
	if m := searchLogged.FindStringSubmatch(out); m != nil {
		t.executions += num(m[3])
		switch {
		case m[1] == "complete":
			t.complete++
		case m[2] != "":
			t.capped = append(t.capped, fmt.Sprintf("%s (the %s cap, %s executions)", test, m[2], groupDigits(num(m[3]))))
		}
	}
	if m := operationsLogged.FindStringSubmatch(out); m != nil {
		t.operations += num(m[1])
	}
	if m := fuzzProgress.FindStringSubmatch(out); m != nil {
		t.fuzzExecs = num(m[1])
	}
	return strings.HasPrefix(out, "fuzz: elapsed: ")
}

// String gives the counts and the work; the status line leaves out the
// skips and adds the explorer's searches.
func (t *tally) String() string { return t.counts(false) }
func (t *tally) live() string   { return t.counts(true) }

func (t *tally) counts(live bool) string {
	s := fmt.Sprintf("%d passed, %d failed", t.passed, t.failed)
	if !live {
		s += fmt.Sprintf(", %d skipped", t.skipped)
	}
	if len(t.broken) > 0 {
		s += "; " + plural(len(t.broken), "package error")
	}
	for i, n := range []int64{t.executions, t.operations, t.fuzzExecs} {
		if n > 0 {
			s += "; " + groupDigits(n) + " " + [...]string{"executions explored", "operations checked", "fuzz execs"}[i]
		}
	}
	if cov := coverage(t.complete, len(t.capped)); live && cov != "" {
		s += "; searches " + cov
	}
	return s
}

// coverage counts the explorer's searches, complete and capped ("" if none).
func coverage(complete, capped int) string {
	if complete+capped == 0 {
		return ""
	} else if capped == 0 {
		return fmt.Sprintf("%d complete", complete)
	}
	return fmt.Sprintf("%d complete, %d CAPPED", complete, capped)
}

// judge makes a phase's result of a go test run that ended with runErr.
func (t *tally) judge(runErr error) result {
	t.settle(runErr)
	r := result{verdict: pass, summary: t.String(), complete: t.complete, cappedIn: t.capped, failures: t.failures}
	switch {
	case runErr != nil || len(t.failures) > 0:
		r.verdict = fail
	case t.passed+t.failed+t.skipped == 0:
		r.verdict, r.summary = skip, "no tests"
	case len(t.capped) > 0:
		r.verdict = capped
	}
	return r
}
