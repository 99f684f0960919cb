package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file reads what go test prints: the JSON event stream of
// "go test -json" (cmd/test2json's format) and the plain text of a fuzzing
// run. Nothing here runs a process, so all of it is tested on canned output.

// testEvent is one line of "go test -json". Build output (Go 1.24+) comes
// as events keyed by ImportPath rather than Package; the package's final
// "fail" event names the failed build in FailedBuild.
type testEvent struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// testCounts counts top-level tests only: a subtest's verdict is part of its
// parent's, and counting both would make one broken property look like many.
type testCounts struct {
	passed, failed, skipped int
	// brokenPkgs counts packages that failed with no failing top-level test:
	// a build failure, a panic in TestMain or init, a test binary that exited.
	brokenPkgs int
	// executions and operations add up what the tests logged: the
	// explorer's "explore: complete: N executions" (or CAPPED) and the
	// linearizability checker's "N operations checked".
	executions, operations int64
	// complete and capped count the explorer's searches by coverage:
	// every schedule within the bounds, or a prefix that a cap stopped.
	// cappedIn names the tests of the capped ones.
	complete, capped int
	cappedIn         []string
}

func (c testCounts) total() int { return c.passed + c.failed + c.skipped }

// live is the short form the status line shows while tests run.
func (c testCounts) live() string {
	s := fmt.Sprintf("%d passed, %d failed", c.passed, c.failed) + c.work()
	if cov := coverage(c.complete, c.capped); cov != "" {
		s += "; searches " + cov
	}
	return s
}

// coverage counts the explorer's searches apart, complete and capped, or
// is "" when there were none.
func coverage(complete, capped int) string {
	switch {
	case complete+capped == 0:
		return ""
	case capped == 0:
		return fmt.Sprintf("%d complete", complete)
	}
	return fmt.Sprintf("%d complete, %d CAPPED", complete, capped)
}

// work is what the tests checked beyond their count, if they said.
func (c testCounts) work() string {
	var s string
	if c.executions > 0 {
		s += "; " + groupDigits(c.executions) + " executions explored"
	}
	if c.operations > 0 {
		s += "; " + groupDigits(c.operations) + " operations checked"
	}
	return s
}

func (c testCounts) String() string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", c.passed, c.failed, c.skipped)
	switch c.brokenPkgs {
	case 0:
	case 1:
		s += "; 1 package error"
	default:
		s += fmt.Sprintf("; %d package errors", c.brokenPkgs)
	}
	return s + c.work()
}

// The log lines of the verifiers that say how much they checked: the
// explorer's summary of a search (explore.Summary: "complete", "CAPPED by
// the time cap" or "failed", then the executions) and the linearizability
// checker's count.
var (
	searchLogged     = regexp.MustCompile(`\bexplore: (complete|CAPPED by the (\w+) cap|failed): (\d+) executions\b`)
	operationsLogged = regexp.MustCompile(`\b(\d+) operations checked\b`)
)

// countWork adds what one line of test's output says it checked.
func (c *testCounts) countWork(test, out string) {
	if m := searchLogged.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[3], 10, 64)
		c.executions += n
		switch {
		case m[1] == "complete":
			c.complete++
		case m[2] != "":
			c.capped++
			c.cappedIn = append(c.cappedIn, fmt.Sprintf("%s (the %s cap, %s executions)", test, m[2], groupDigits(n)))
		}
	}
	if m := operationsLogged.FindStringSubmatch(out); m != nil {
		n, _ := strconv.ParseInt(m[1], 10, 64)
		c.operations += n
	}
}

// failure is the output kept for one thing that failed, printed after the
// campaign so that it does not scroll away under later phases.
type failure struct {
	title  string
	output []string // lines, without newlines
}

// testKey names a test or subtest of a package.
type testKey struct{ pkg, test string }

// testNode is the output of a test that has not ended yet, kept so that a
// failure can be shown the way go test without -v shows it: the "--- FAIL"
// line first, then what the test logged, then its failed subtests indented
// below it.
type testNode struct {
	header string   // "--- FAIL: TestX (0.01s)", once printed
	lines  []string // what the test itself printed
	failed []string // the rendered blocks of its failed subtests
}

// block renders a failed test. In go test -json output every "--- FAIL"
// line starts at column 0 and log lines are indented by four spaces, so the
// nesting is rebuilt here.
func (n *testNode) block(test string) []string {
	h := n.header
	if h == "" {
		h = "--- FAIL: " + test
	}
	return append(append([]string{h}, n.lines...), n.failed...)
}

// tally folds a go test -json event stream into counts and the output of
// whatever failed. The output of a test is dropped as soon as it passes, so
// memory stays proportional to the tests still running.
type tally struct {
	counts   testCounts
	started  int // packages whose test binary started (or failed to build)
	failures []failure

	running   map[testKey]*testNode
	pkgOutput map[string][]string // output outside any test, per package
	buildOut  map[string][]string // build output, per ImportPath
	failedIn  map[string]int      // failed top-level tests, per package
	stray     []string            // stdout lines that were not JSON
}

func newTally() *tally {
	return &tally{
		running:   make(map[testKey]*testNode),
		pkgOutput: make(map[string][]string),
		buildOut:  make(map[string][]string),
		failedIn:  make(map[string]int),
	}
}

// addLine folds in one line of go test -json's standard output and returns
// its event; ok is false for a line that is not an event.
func (t *tally) addLine(line string) (ev testEvent, ok bool) {
	if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &ev) != nil {
		t.stray = append(t.stray, line)
		return testEvent{}, false
	}
	t.add(ev)
	return ev, true
}

func (t *tally) add(ev testEvent) {
	switch ev.Action {
	case "build-output":
		t.buildOut[ev.ImportPath] = appendOutput(t.buildOut[ev.ImportPath], ev.Output)
	case "start":
		t.started++
	case "output":
		if ev.Test == "" {
			t.pkgOutput[ev.Package] = appendOutput(t.pkgOutput[ev.Package], ev.Output)
			return
		}
		if isFraming(ev.Output) {
			return
		}
		t.counts.countWork(ev.Test, ev.Output)
		n := t.node(testKey{ev.Package, ev.Test})
		if h := strings.TrimSuffix(ev.Output, "\n"); n.header == "" && isVerdictLine(h, ev.Test) {
			n.header = h
			return
		}
		n.lines = appendOutput(n.lines, ev.Output)
	case "pass", "fail", "skip":
		if ev.Test == "" {
			t.endPackage(ev)
		} else {
			t.endTest(ev)
		}
	}
}

func (t *tally) node(k testKey) *testNode {
	n := t.running[k]
	if n == nil {
		n = &testNode{}
		t.running[k] = n
	}
	return n
}

// endTest records the verdict of a test. Only top-level tests are counted;
// a failed subtest's output moves into its parent's report.
func (t *tally) endTest(ev testEvent) {
	k := testKey{ev.Package, ev.Test}
	n := t.node(k)
	delete(t.running, k)
	parent, _, isSub := cutLast(ev.Test, "/")
	if isSub {
		if ev.Action == "fail" {
			p := t.node(testKey{ev.Package, parent})
			p.failed = append(p.failed, indent(n.block(ev.Test))...)
		}
		return
	}
	switch ev.Action {
	case "pass":
		t.counts.passed++
	case "skip":
		t.counts.skipped++
	case "fail":
		t.counts.failed++
		t.failedIn[ev.Package]++
		t.failures = append(t.failures, failure{
			title:  ev.Test + " in " + ev.Package,
			output: n.block(ev.Test),
		})
	}
}

// endPackage records the end of a package's test binary. A failed package
// whose failure no test explains (build error, panic outside a test, a test
// binary that exited mid-test) is reported with the output that explains it.
func (t *tally) endPackage(ev testEvent) {
	pkg := ev.Package
	out := t.pkgOutput[pkg]
	delete(t.pkgOutput, pkg)
	orphans := t.unfinished(pkg)
	if ev.Action != "fail" {
		return
	}
	var lines []string
	if ev.FailedBuild != "" {
		lines = append(lines, t.buildOut[ev.FailedBuild]...)
		delete(t.buildOut, ev.FailedBuild)
	}
	lines = append(lines, orphans...)
	lines = append(lines, explanatory(pkg, out)...)
	if t.failedIn[pkg] > 0 && len(lines) == 0 {
		return // the failed tests already say everything
	}
	if len(lines) == 0 {
		lines = out // nothing explains it; show what there is
	}
	if t.failedIn[pkg] == 0 {
		t.counts.brokenPkgs++
	}
	title := pkg
	if ev.FailedBuild != "" {
		title += " [build failed]"
	}
	t.failures = append(t.failures, failure{title: title, output: lines})
}

// unfinished removes and renders the tests of pkg that never ended, which
// happens when the test binary dies under them (os.Exit, a timeout panic).
func (t *tally) unfinished(pkg string) []string {
	var names []string
	for k := range t.running {
		if k.pkg == pkg {
			names = append(names, k.test)
		}
	}
	sort.Strings(names)
	var lines []string
	for _, name := range names {
		n := t.running[testKey{pkg, name}]
		delete(t.running, testKey{pkg, name})
		lines = append(lines, "--- UNFINISHED: "+name)
		lines = append(lines, n.lines...)
		lines = append(lines, n.failed...)
	}
	return lines
}

// isVerdictLine reports whether out is the "--- PASS: test (0.00s)" line
// (or FAIL, SKIP) that go test prints when test ends.
func isVerdictLine(out, test string) bool {
	for _, v := range []string{"--- PASS: ", "--- FAIL: ", "--- SKIP: "} {
		if strings.HasPrefix(out, v+test+" ") {
			return true
		}
	}
	return false
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

func indent(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if l != "" {
			l = "    " + l
		}
		out[i] = l
	}
	return out
}

// explanatory drops the lines of a package's own output that only repeat
// its verdict ("FAIL", "FAIL\tpkg\t0.01s", "ok  \tpkg"), keeping anything
// that says why it failed, such as a panic outside a test.
func explanatory(pkg string, lines []string) []string {
	var keep []string
	for _, l := range lines {
		switch {
		case l == "PASS", l == "FAIL",
			strings.HasPrefix(l, "FAIL\t"+pkg),
			strings.HasPrefix(l, "ok  \t"+pkg):
		default:
			keep = append(keep, l)
		}
	}
	return keep
}

// isFraming reports whether an output line is one of go test -v's framing
// lines, which say when a test ran but not what it found.
func isFraming(out string) bool {
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME "} {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return false
}

// appendOutput appends an event's Output, which usually is one line ending
// in a newline, as lines without the newline.
func appendOutput(lines []string, out string) []string {
	out = strings.TrimSuffix(out, "\n")
	if out == "" && len(lines) == 0 {
		return lines
	}
	return append(lines, strings.Split(out, "\n")...)
}

// fuzzProgress matches the line the fuzzing coordinator prints every few
// seconds and once at the end:
//
//	fuzz: elapsed: 4s, execs: 301108 (75448/sec), new interesting: 0 (total: 1)
var fuzzProgress = regexp.MustCompile(`^fuzz: elapsed: [^,]+, execs: (\d+) `)

// parseFuzzExecs returns the execution count of a fuzz progress line.
func parseFuzzExecs(line string) (int64, bool) {
	m := fuzzProgress.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	return n, err == nil
}

// isFuzzChatter reports whether a line is one of the coordinator's status
// lines ("fuzz: elapsed: ..."), which a failure report does not need.
func isFuzzChatter(line string) bool {
	return strings.HasPrefix(line, "fuzz: elapsed: ")
}

// isTrailer reports whether a line is one of the lines that end a failed
// plain go test run ("FAIL", "exit status 1", "FAIL\tpkg\t0.02s"); the
// phase verdict already says all they say.
func isTrailer(line string) bool {
	return line == "FAIL" || line == "PASS" ||
		strings.HasPrefix(line, "exit status ") ||
		strings.HasPrefix(line, "FAIL\t") || strings.HasPrefix(line, "ok  \t")
}

// parseFailingInput returns the path in go test's
//
//	Failing input written to testdata/fuzz/FuzzX/771e938e4458e983
//
// line. The path is relative to the fuzzed package's directory.
func parseFailingInput(line string) (string, bool) {
	const marker = "Failing input written to "
	_, path, ok := strings.Cut(strings.TrimSpace(line), marker)
	if !ok || path == "" {
		return "", false
	}
	return path, true
}

// fuzzOutcome folds the plain-text output of one fuzzing run.
type fuzzOutcome struct {
	execs   int64 // from the last progress line; -1 until one is seen
	crasher string
	kept    []string // everything but progress chatter, for a failure report
}

func newFuzzOutcome() *fuzzOutcome { return &fuzzOutcome{execs: -1} }

func (o *fuzzOutcome) addLine(line string) {
	if n, ok := parseFuzzExecs(line); ok {
		o.execs = n
	}
	if isFuzzChatter(line) || isTrailer(line) {
		return
	}
	if p, ok := parseFailingInput(line); ok {
		o.crasher = p
	}
	o.kept = append(o.kept, line)
}

// deadlineRace reports whether a failed fuzzing run failed only through the
// race in go test's fuzzing coordinator at the end of -fuzztime
// (golang/go#75804, fixed in Go 1.27): the target "fails" with nothing but
// "context deadline exceeded" and writes no failing input. Such a run found
// nothing; any other output is a real failure.
func (o *fuzzOutcome) deadlineRace(target string) bool {
	if o.crasher != "" {
		return false
	}
	seen := false
	for _, line := range o.kept {
		switch t := strings.TrimSpace(line); {
		case t == "context deadline exceeded":
			seen = true
		case strings.HasPrefix(t, "--- FAIL: "+target+" ("), t == "":
		default:
			return false
		}
	}
	return seen
}

// crasherFromRoot returns the failing input's path relative to the module
// root, given the fuzzed package's directory relative to the root.
func (o *fuzzOutcome) crasherFromRoot(pkgDir string) string {
	if o.crasher == "" || filepath.IsAbs(o.crasher) {
		return o.crasher
	}
	return filepath.Join(pkgDir, o.crasher)
}

func (o *fuzzOutcome) summary() string {
	if o.execs < 0 {
		return "execs unknown"
	}
	return groupDigits(o.execs) + " execs"
}

// groupDigits writes n with thousands separators, since fuzzing counts run
// to millions: 1234567 → "1,234,567".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lineWriter hands each complete line written to it to fn, without the
// newline, so that output from a pipe is only ever shown whole. flush hands
// over a last line that had no newline.
type lineWriter struct {
	fn  func(string)
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	start := 0
	for {
		i := bytes.IndexByte(w.buf[start:], '\n')
		if i < 0 {
			break
		}
		w.fn(strings.TrimSuffix(string(w.buf[start:start+i]), "\r"))
		start += i + 1
	}
	w.buf = w.buf[:copy(w.buf, w.buf[start:])]
	return len(p), nil
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(string(w.buf))
		w.buf = w.buf[:0]
	}
}
