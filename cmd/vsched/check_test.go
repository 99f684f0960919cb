//go:build !vsched_explore

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The files in testdata are real go test -json output, recorded with go
// 1.26 on small stand-in modules: properties.jsonl has a passing package
// (spec), a failed subtest (runq), a panic in TestMain (steal) and a
// compile error (proptest); fuzz_seeds.jsonl replays a committed crasher;
// fuzz_crash.jsonl is a fuzzing run that finds one, fuzz_pass.jsonl one
// that finds nothing.

func tallyOf(t *testing.T, stream string) *tally {
	t.Helper()
	tl := newTally()
	for _, line := range strings.Split(strings.TrimSuffix(stream, "\n"), "\n") {
		tl.addLine(line, nil)
	}
	return tl
}

func testdataTally(t *testing.T, name string) *tally {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tallyOf(t, string(b))
}

// events writes a go test -json stream.
func events(evs ...event) string {
	var b strings.Builder
	for _, ev := range evs {
		line, _ := json.Marshal(ev)
		b.Write(append(line, '\n'))
	}
	return b.String()
}

func failureTitled(t *testing.T, fs []failure, title string) failure {
	t.Helper()
	var titles []string
	for _, f := range fs {
		if f.title == title {
			return f
		}
		titles = append(titles, f.title)
	}
	t.Fatalf("no failure titled %q; have %q", title, titles)
	return failure{}
}

func TestTallyCountsTopLevelTestsOnly(t *testing.T) {
	tl := testdataTally(t, "properties.jsonl")
	// spec: TestPass, TestSub (its three subtests not counted), TestSkip;
	// runq: TestMaybeFail fails, TestOK passes; steal and proptest run no test.
	if got := tl.String(); got != "3 passed, 1 failed, 1 skipped; 2 package errors" {
		t.Errorf("counts %q", got)
	}
	if len(tl.failures) != 3 {
		t.Errorf("%d failures, want 3 (the runq test, the steal panic, the proptest build): %q", len(tl.failures), tl.failures)
	}
}

func TestTallyKeepsTheOutputOfAFailedTestAndItsSubtests(t *testing.T) {
	f := failureTitled(t, testdataTally(t, "properties.jsonl").failures, "TestMaybeFail in github.com/vsched/vsched/runq")
	want := "    runq_test.go:10: inner broke: want 1, got 2\n--- FAIL: TestMaybeFail/inner (0.00s)\n--- FAIL: TestMaybeFail (0.00s)\n"
	if f.output != want {
		t.Errorf("output %q, want %q", f.output, want)
	}
}

func TestTallyReportsACompileErrorAndAPanicOutsideTests(t *testing.T) {
	tl := testdataTally(t, "properties.jsonl")
	f := failureTitled(t, tl.failures, "github.com/vsched/vsched/proptest [build failed]")
	if want := "# github.com/vsched/vsched/proptest [github.com/vsched/vsched/proptest.test]\nproptest/p_test.go:5:32: declared and not used: x\n"; f.output != want {
		t.Errorf("build failure %q, want %q", f.output, want)
	}
	f = failureTitled(t, tl.failures, "github.com/vsched/vsched/steal")
	if !strings.HasPrefix(f.output, "panic: boom in main\n") || strings.Contains(f.output, "FAIL\t") {
		t.Errorf("panic %q: want it first, without the verdict line", f.output)
	}
}

func TestTallyKeepsTheOutputOfATestThatNeverEnded(t *testing.T) {
	// A test calling os.Exit: no verdict for the test, a failed package.
	tl := tallyOf(t, events(
		event{Action: "start", Package: "p"},
		event{Action: "output", Package: "p", Test: "TestExit", Output: "=== RUN   TestExit\n"},
		event{Action: "output", Package: "p", Test: "TestExit", Output: "    x_test.go:3: about to exit\n"},
		event{Action: "output", Package: "p", Output: "FAIL\tp\t0.002s\n"},
		event{Action: "fail", Package: "p"},
	))
	f := failureTitled(t, tl.failures, "p")
	if want := "--- UNFINISHED: TestExit\n    x_test.go:3: about to exit\n"; f.output != want {
		t.Errorf("output %q, want %q", f.output, want)
	}
	if len(tl.broken) != 1 {
		t.Errorf("broken = %v, want 1 package", tl.broken)
	}
}

func TestJudge(t *testing.T) {
	passing := events(event{Action: "start", Package: "p"}, event{Action: "pass", Package: "p", Test: "TestA"}, event{Action: "pass", Package: "p"})
	noTests := events(event{Action: "start", Package: "p"}, event{Action: "pass", Package: "p"})
	exitErr := errors.New("exit status 1")
	for _, tc := range []struct {
		name, stream string
		err          error
		verdict      verdict
		summary      string
	}{
		{"all pass", passing, nil, pass, "1 passed, 0 failed, 0 skipped"},
		{"no tests is a skip", noTests, nil, skip, "no tests"},
		{"an exit status alone fails", passing, exitErr, fail, "1 passed, 0 failed, 0 skipped"},
		{"go test fails before any package", "go: updates to go.mod needed\n", exitErr, fail, "0 passed, 0 failed, 0 skipped"},
	} {
		r := tallyOf(t, tc.stream).judge(tc.err)
		if r.verdict != tc.verdict || r.summary != tc.summary {
			t.Errorf("%s: %v %q, want %v %q", tc.name, r.verdict, r.summary, tc.verdict, tc.summary)
		}
		if r.verdict == fail && (len(r.failures) == 0 || !strings.Contains(r.failures[0].output+r.failures[0].title, "go")) {
			t.Errorf("%s: a failed phase kept nothing to explain it: %q", tc.name, r.failures)
		}
	}
	r := tallyOf(t, "go: updates to go.mod needed\n").judge(exitErr)
	if f := failureTitled(t, r.failures, "go test"); !strings.Contains(f.output, "go: updates to go.mod needed") || !strings.Contains(f.output, "exit status 1") {
		t.Errorf("output %q", f.output)
	}
}

func TestTheSeedsPhaseReportsACommittedCrasher(t *testing.T) {
	r := testdataTally(t, "fuzz_seeds.jsonl").judge(errors.New("exit status 1"))
	if r.verdict != fail || r.summary != "1 passed, 1 failed, 0 skipped" {
		t.Fatalf("result %v %q", r.verdict, r.summary)
	}
	f := failureTitled(t, r.failures, "FuzzCrash in github.com/vsched/vsched/fuzz")
	if !strings.Contains(f.output, `fuzz_test.go:20: found A in "A"`) || !strings.Contains(f.output, "--- FAIL: FuzzCrash/e9e3ffbe3b3a072c") {
		t.Errorf("output %q", f.output)
	}
}

func fuzzResult(t *testing.T, stream string, err error) (result, string) {
	t.Helper()
	var out bytes.Buffer
	c := &checker{prog: newProgress(&out)}
	r := c.judgeFuzz(context.Background(), "FuzzCrash", tallyOf(t, stream).judge(err))
	c.prog.close()
	return r, out.String()
}

func TestFuzzingCountsExecutionsFromTheLastProgressLine(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "fuzz_pass.jsonl"))
	r, _ := fuzzResult(t, string(b), nil)
	if r.verdict != pass || r.summary != "1 passed, 0 failed, 0 skipped; 290,701 fuzz execs" {
		t.Errorf("result %v %q", r.verdict, r.summary)
	}
}

func TestAFailingInputIsNamedFromTheModuleRoot(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "fuzz_crash.jsonl"))
	r, notes := fuzzResult(t, string(b), errors.New("exit status 1"))
	if r.verdict != fail {
		t.Fatalf("verdict %v, want FAIL", r.verdict)
	}
	input := filepath.Join("fuzz", "testdata", "fuzz", "FuzzCrash", "e9e3ffbe3b3a072c")
	if !strings.Contains(notes, "failing input written to "+input) {
		t.Errorf("notes %q do not name %s", notes, input)
	}
	f := failureTitled(t, r.failures, "FuzzCrash in github.com/vsched/vsched/fuzz")
	for _, s := range []string{`found A in "A"`, "replay from the module root: go test -run=FuzzCrash/e9e3ffbe3b3a072c ./fuzz"} {
		if !strings.Contains(f.output, s) {
			t.Errorf("failure output lacks %q:\n%s", s, f.output)
		}
	}
	if strings.Contains(f.output, "fuzz: elapsed:") {
		t.Errorf("failure output keeps the coordinator's progress:\n%s", f.output)
	}
}

// deadlineRace is a run that ended in the fuzzing coordinator's deadline
// race (golang/go#75804), as .ci/run met it on go1.26.8, in events.
func deadlineRace(failLines ...string) string {
	evs := []event{{Action: "start", Package: "p"},
		{Action: "output", Package: "p", Test: "FuzzCrash", Output: "fuzz: elapsed: 10s, execs: 53140 (5938/sec), new interesting: 30 (total: 157)\n"},
		{Action: "output", Package: "p", Test: "FuzzCrash", Output: "--- FAIL: FuzzCrash (10.07s)\n"}}
	for _, l := range failLines {
		evs = append(evs, event{Action: "output", Package: "p", Test: "FuzzCrash", Output: l + "\n"})
	}
	return events(append(evs, event{Action: "fail", Package: "p", Test: "FuzzCrash"},
		event{Action: "output", Package: "p", Output: "FAIL\n"}, event{Action: "output", Package: "p", Output: "exit status 1\n"},
		event{Action: "output", Package: "p", Output: "FAIL\tp\t10.078s\n"}, event{Action: "fail", Package: "p"})...)
}

func TestTheFuzzDeadlineRaceAloneDoesNotFail(t *testing.T) {
	exit := errors.New("exit status 1")
	if r, _ := fuzzResult(t, deadlineRace("    context deadline exceeded"), exit); r.verdict != pass || !strings.Contains(r.summary, "golang/go#75804") {
		t.Errorf("the race alone: %v %q, want PASS naming golang/go#75804", r.verdict, r.summary)
	}
	for name, stream := range map[string]string{
		"a property failure too": deadlineRace("    context deadline exceeded", "    queue.go:216: spec mismatch: Grab"),
		"a failing input":        deadlineRace("    context deadline exceeded", "    Failing input written to testdata/fuzz/FuzzCrash/0123abcd"),
		"another failure":        deadlineRace("    spec mismatch"),
	} {
		if r, _ := fuzzResult(t, stream, exit); r.verdict != fail {
			t.Errorf("%s: %v, want FAIL", name, r.verdict)
		}
	}
}

func TestTallyAddsUpTheWorkTheVerifiersLoggedAndCountsSearchesByCoverage(t *testing.T) {
	evs := []event{{Action: "start", Package: "p"}}
	for _, line := range []struct{ test, out string }{
		{"TestKernelModels/A", "    kernel_test.go:264: explore: complete: 9983 executions (1004 pruned), preemption bound 2\n"},
		{"TestKernelModels/B", "    kernel_test.go:264: explore: CAPPED by the time cap: 17 executions (0 pruned), preemption bound 2, 2 timeouts\n"},
		{"TestKernelModels/C", "    kernel_test.go:264: explore: complete: 1000 executions (3 pruned), preemption bound 1\n"},
		{"TestX", "    stress_test.go:57: queue mode, runq.Size 256, seed 3: 12 rounds, 2400 operations checked, 0 rounds timed out\n"},
	} {
		evs = append(evs, event{Action: "output", Package: "p", Test: line.test, Output: line.out})
	}
	for _, test := range []string{"TestKernelModels", "TestX", ""} {
		evs = append(evs, event{Action: "pass", Package: "p", Test: test})
	}
	tl := tallyOf(t, events(evs...))
	if tl.executions != 11000 || tl.operations != 2400 || tl.complete != 2 || !slices.Equal(tl.capped, []string{"TestKernelModels/B (the time cap, 17 executions)"}) {
		t.Fatalf("executions %d, operations %d, complete %d, capped %q", tl.executions, tl.operations, tl.complete, tl.capped)
	}
	if got := tl.live(); !strings.Contains(got, "11,000 executions explored; 2,400 operations checked; searches 2 complete, 1 CAPPED") {
		t.Errorf("live status %q", got)
	}
	// A phase whose searches were capped and in which nothing failed is
	// CAPPED, not PASS, in the phase's line, the table and the verdict line.
	r := tl.judge(nil)
	r.phase = "explore kernel"
	if line := endLine(r); !strings.HasPrefix(line, "--- CAPPED explore kernel") || !strings.Contains(line, "searches 2 complete, 1 CAPPED") {
		t.Errorf("phase line %q", line)
	}
	var sum strings.Builder
	writeSummary(&sum, []result{r}, time.Minute, overall([]result{r}))
	for _, want := range []string{"CAPPED", "2 complete, 1 CAPPED", "capped in explore kernel: TestKernelModels/B (the time cap, 17 executions)",
		"check: PASS (1 phase, 1 capped, explorer searches: 2 complete, 1 CAPPED, total 1m0s)"} {
		if !strings.Contains(sum.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum.String())
		}
	}
}

func TestAPhaseOfSeveralRunsAddsUpTheirTalliesAndFailsIfOneFails(t *testing.T) {
	search := func(test, verdict string, n int) []event {
		out := fmt.Sprintf("    kernel_test.go:264: explore: %s: %d executions (0 pruned), preemption bound 1\n", verdict, n)
		return []event{{Action: "output", Package: "p", Test: test, Output: out}, {Action: "pass", Package: "p", Test: test}}
	}
	rc11 := tallyOf(t, events(append(search("TestKernelModelsRC11", "CAPPED by the executions cap", 30), event{Action: "pass", Package: "p"})...))
	rest := tallyOf(t, events(append(append(search("TestGroupModels", "complete", 12), search("TestRunqScenarios", "complete", 8)...),
		event{Action: "output", Package: "p", Test: "TestLitmus", Output: "    litmus_test.go:9: wrong outcome\n"},
		event{Action: "fail", Package: "p", Test: "TestLitmus"}, event{Action: "fail", Package: "p"})...))
	sum := addUp([]*tally{rc11, rest})
	if sum.passed != 3 || sum.failed != 1 || sum.executions != 50 || sum.complete != 2 ||
		!slices.Equal(sum.capped, []string{"TestKernelModelsRC11 (the executions cap, 30 executions)"}) {
		t.Fatalf("passed %d, failed %d, executions %d, complete %d, capped %q", sum.passed, sum.failed, sum.executions, sum.complete, sum.capped)
	}
	r := sum.judge(errors.Join(nil, errors.New("exit status 1")))
	if r.verdict != fail || !strings.Contains(failureTitled(t, r.failures, "TestLitmus in p").output, "wrong outcome") {
		t.Errorf("verdict %v, failures %q", r.verdict, r.failures)
	}
	if r := addUp([]*tally{rc11, tallyOf(t, events(search("TestGroupModels", "complete", 12)...))}).judge(nil); r.verdict != capped || r.complete != 1 {
		t.Errorf("without the failure: verdict %v, %d complete", r.verdict, r.complete)
	}
}

func TestRunJSONTakesALastLineWithoutANewline(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to print the stream")
	}
	stream := strings.TrimSuffix(events(event{Action: "pass", Package: "p", Test: "TestA"}, event{Action: "pass", Package: "p"}), "\n")
	tl := newTally()
	if err := runJSON(context.Background(), exec.Command(sh, "-c", `printf '%s' "$0"`, stream), new(sync.Mutex), tl, nil); err != nil {
		t.Fatal(err)
	}
	if tl.passed != 1 {
		t.Errorf("passed %d, want 1 (the last line, which has no newline)", tl.passed)
	}
}

// runTwo runs a phase of two go tests in the stand-in module at root.
func runTwo(t *testing.T, root string, first, second []string) result {
	t.Helper()
	c := &checker{root: root, prog: newProgress(io.Discard)}
	return c.runPhase(context.Background(), "two", phase{args: first, more: [][]string{second}})
}

func TestAPhaseOfTwoRunsKeepsTheExplanationOfEach(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	root := standInCheckModule(t, false)
	// One run fails around its tests (the go command rejects a flag's
	// value, on stderr only), the other has a failing test: the phase
	// fails and shows both.
	r := runTwo(t, root, []string{"-timeout", "soon", "./spec"}, []string{"./runq"})
	if r.verdict != fail || len(r.failures) != 2 {
		t.Fatalf("verdict %v, failures %q", r.verdict, r.failures)
	}
	if f := failureTitled(t, r.failures, "go test"); !strings.Contains(f.output, `invalid value "soon"`) {
		t.Errorf("the rejected run's failure does not say why: %q", f.output)
	}
	failureTitled(t, r.failures, "TestRunq in "+modulePath+"/runq")
	// The run that fails around its tests is the second and the first
	// passes: the phase still fails.
	if r := runTwo(t, root, []string{"./spec"}, []string{"-timeout", "soon", "./spec"}); r.verdict != fail || !strings.Contains(failureTitled(t, r.failures, "go test").output, `invalid value "soon"`) {
		t.Errorf("verdict %v, failures %q", r.verdict, r.failures)
	}
}

func TestAPhaseOfTwoRunsCountsAPackageBothBuiltOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	root := standInCheckModule(t, true)
	if err := os.WriteFile(filepath.Join(root, "steal", "broken_test.go"), []byte("package steal\n\nfunc broken() { undefined() }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runTwo(t, root, []string{"-run", "^TestSteal$", "./steal"}, []string{"-skip", "^TestSteal$", "./steal", "./spec"})
	if r.verdict != fail || !strings.Contains(r.summary, "; 1 package error") || len(r.failures) != 1 {
		t.Fatalf("verdict %v, summary %q, failures %q", r.verdict, r.summary, r.failures)
	}
	if f := failureTitled(t, r.failures, modulePath+"/steal [build failed]"); !strings.Contains(f.output, "undefined") {
		t.Errorf("the build failure does not show the error: %q", f.output)
	}
}

func TestSummaryTable(t *testing.T) {
	results := []result{
		{phase: "properties", verdict: pass, summary: "41 passed, 0 failed, 2 skipped", dur: 3140 * time.Millisecond},
		{phase: "fuzz seeds", verdict: skip, summary: "no tests"},
		{phase: "fuzz FuzzPut", verdict: fail, summary: "0 passed, 1 failed, 0 skipped; 1,234,567 fuzz execs", dur: 62 * time.Second},
	}
	var b bytes.Buffer
	writeSummary(&b, results, 65*time.Second+400*time.Millisecond, overall(results))
	want := "" +
		"PHASE         VERDICT  TESTS (TOP-LEVEL) / EXECS                            SEARCHES  DURATION\n" +
		"properties    PASS     41 passed, 0 failed, 2 skipped                       -         3.1s\n" +
		"fuzz seeds    SKIP     no tests                                             -         0s\n" +
		"fuzz FuzzPut  FAIL     0 passed, 1 failed, 0 skipped; 1,234,567 fuzz execs  -         1m2s\n" +
		"check: FAIL (3 phases, 1 failed, 1 skipped, total 1m5s)\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
	stopped := []result{{verdict: fail}, {verdict: interrupted}}
	b.Reset()
	writeSummary(&b, stopped, 3*time.Second, overall(stopped))
	if !strings.HasSuffix(b.String(), "check: INTERRUPTED (2 phases, 1 failed, total 3s)\n") {
		t.Errorf("interrupted summary:\n%s", b.String())
	}
}

func TestWriteFailuresPrintsOnlyFailedPhases(t *testing.T) {
	results := []result{
		{phase: "properties", verdict: fail, failures: []failure{{"TestX in p", "--- FAIL: TestX (0.00s)\n\n    x_test.go:1: boom\n"}}},
		// An interrupted phase's failures are the kill's, not findings.
		{phase: "fuzz seeds", verdict: interrupted, failures: []failure{{"go test", "signal: interrupt"}}},
	}
	var b bytes.Buffer
	writeFailures(&b, results)
	if want := "\n=== FAIL properties: TestX in p\n    --- FAIL: TestX (0.00s)\n\n        x_test.go:1: boom\n\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestPlainProgressWritesWholeLinesOnly(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out)
	p.begin("fuzz FuzzPut")
	p.status("12 execs") // only a terminal shows live counts
	p.line("a note")
	p.end(result{phase: "fuzz FuzzPut", verdict: pass, summary: "12 execs", dur: 1500 * time.Millisecond})
	p.close()
	p.line("after close")
	if want := "=== fuzz FuzzPut\na note\n--- PASS fuzz FuzzPut: 12 execs (1.5s)\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestLineWriterHandsOverWholeLines(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(s string) { got = append(got, s) }}
	for _, chunk := range []string{"fir", "st\nsec", "ond\r\n\nthi", "rd"} {
		w.Write([]byte(chunk))
	}
	if want := []string{"first", "second", ""}; !slices.Equal(got, want) {
		t.Errorf("before flush: %q, want %q", got, want)
	}
	w.flush()
	if want := []string{"first", "second", "", "third"}; !slices.Equal(got, want) {
		t.Errorf("after flush: %q, want %q", got, want)
	}
}

func TestFuzzersShareAQuarterOfTheBudget(t *testing.T) {
	c := &checker{duration: 2 * time.Minute}
	if p := c.fuzz("FuzzA", 2); p.budget != 15*time.Second || !slices.Contains(p.args, "15s") {
		t.Errorf("first of two targets: %v %q, want 15s", p.budget, p.args)
	}
	if p := c.fuzz("FuzzB", 1); p.budget != 15*time.Second {
		t.Errorf("last of two targets: %v, want the 15s left of the quarter", p.budget)
	}
	c = &checker{duration: 2 * time.Second}
	if p := c.fuzz("FuzzA", 3); p.budget != time.Second {
		t.Errorf("a tiny budget: %v, want the 1s floor", p.budget)
	}
	c.fuzztime = "500x"
	if p := c.fuzz("FuzzA", 3); !slices.Contains(p.args, "500x") || p.budget != 0 {
		t.Errorf("with -fuzztime: %q, budget %v", p.args, p.budget)
	}
}

func TestValidTimeOrCount(t *testing.T) {
	for s, ok := range map[string]bool{
		"10s": true, "5m": true, "1000x": true, "1x": true,
		"0s": false, "-1s": false, "0x": false, "x": false, "ten": false, "": false,
	} {
		if err := validTimeOrCount("-fuzztime", s); (err == nil) != ok {
			t.Errorf("validTimeOrCount(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestModuleRootHonoursTheOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(rootEnv, dir)
	if _, err := moduleRoot(context.Background()); err == nil {
		t.Errorf("accepted %s=%s without a go.mod", rootEnv, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/standin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := moduleRoot(context.Background()); err != nil || got != dir {
		t.Errorf("moduleRoot = %q, %v; want %q", got, err, dir)
	}
}

func TestModuleRootRefusesAnotherModule(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv(rootEnv, "")
	if _, err := moduleRoot(context.Background()); err == nil || !strings.Contains(err.Error(), "git clone") {
		t.Errorf("moduleRoot in example.com/other: %v, want an error that says to clone", err)
	}
}

func TestRunRejectsAnUnknownCommandAndHelpListsTheFlags(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mutate"}, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), `unknown command "mutate"`) {
		t.Errorf("mutate: exit %d, stderr:\n%s", code, stderr.String())
	}
	if code := run(context.Background(), nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("no command: exit %d, want %d", code, exitUsage)
	}
	for cmd, flags := range map[string][]string{
		"":        {"check", "mutants", "bench"},
		"check":   {"usage: vsched check", "-duration", "-report", "-seed", "-fuzztime", "-run", "-v"},
		"mutants": {"usage: vsched mutants", "-run", "-fast", "-all", "-markdown", "-v"},
		"bench":   {"usage: vsched bench", "-bench", "-count", "-benchtime", "-pkg", "-o", "-v", "-col /impl"},
	} {
		stdout.Reset()
		args := []string{"help"}
		if cmd != "" {
			args = append(args, cmd)
		}
		if code := run(context.Background(), args, &stdout, &stderr); code != exitPass {
			t.Errorf("help %s: exit %d", cmd, code)
		}
		for _, flag := range flags {
			if !strings.Contains(stdout.String(), flag) {
				t.Errorf("help %s does not mention %s:\n%s", cmd, flag, stdout.String())
			}
		}
	}
}

func TestCheckRejectsBadFlagsBeforeRunningAnything(t *testing.T) {
	t.Setenv(rootEnv, "/nonexistent-so-a-lookup-would-fail")
	for _, args := range [][]string{{"-fuzztime", "soon"}, {"-duration", "0s"}, {"-duration", "-1m"}, {"-seed", "many"}, {"-run", "("}, {"extra"}} {
		var stdout, stderr bytes.Buffer
		if code := runCheck(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("check %q: exit %d, want %d; stderr:\n%s", args, code, exitUsage, stderr.String())
		}
	}
}

// standInCheckModule writes a module with vsched's packages, each with a
// test or two: a failing one in runq (unless pass), a fuzz target, a kernel
// model test that logs a complete search, or a capped one at bound 2, and a
// linearizability stress test that logs its operations and the budget and
// seed the campaign gave it.
func standInCheckModule(t *testing.T, pass bool) string {
	t.Helper()
	root := t.TempDir()
	test := func(pkg, body string) string {
		return "package " + pkg + "\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nvar _ = os.Getenv\n\n" + body
	}
	runq := "func TestRunq(t *testing.T) { t.Log(\"runq ok\") }\n"
	if !pass {
		runq = "func TestRunq(t *testing.T) {\n\tt.Run(\"inner\", func(t *testing.T) { t.Fatal(\"runq broke\") })\n}\n"
	}
	files := map[string]string{
		"go.mod":               "module " + modulePath + "\n\ngo 1.25\n",
		"internal/x/x_test.go": test("x", "func TestX(t *testing.T) {}\n"),
		"spec/s_test.go":       test("spec", "func TestSpec(t *testing.T) {}\n"),
		"runq/r_test.go":       test("runq", runq),
		"steal/s_test.go":      test("steal", "func TestSteal(t *testing.T) {}\n"),
		"netpoll/n_test.go":    test("netpoll", "func TestNetpoll(t *testing.T) {}\n"),
		"kernel/k_test.go":     test("kernel", "func TestKernel(t *testing.T) {}\n"),
		"proptest/p_test.go":   test("proptest", "func TestProp(t *testing.T) {}\n\nfunc TestKnownBadIsLeftToMutants(t *testing.T) { t.Fatal(\"ran\") }\n"),
		"fuzz/f_test.go":       test("fuzz", "func FuzzRev(f *testing.F) {\n\tf.Add(1)\n\tf.Fuzz(func(t *testing.T, n int) {})\n}\n"),
		// The explore phase runs the model at its default bound, the
		// explore kernel phase at bound 2, where the time cap stops it.
		"explore/e_test.go": "package explore\n\nimport (\n\t\"flag\"\n\t\"testing\"\n)\n\n" +
			"var bound = flag.Int(\"vsched.kernel-bound\", 0, \"\")\nvar _ = flag.Int(\"vsched.kernel-executions\", 0, \"\")\nvar _ = flag.Duration(\"vsched.kernel-time\", 0, \"\")\n\n" +
			"func TestKernelModels(t *testing.T) {\n\tif *bound == 2 {\n\t\tt.Log(\"explore: CAPPED by the time cap: 17 executions (0 pruned), preemption bound 2\")\n\t} else {\n" +
			"\t\tt.Log(\"explore: complete: 5 executions (0 pruned), preemption bound 1\")\n\t}\n}\n\n" +
			"func TestKernelModelsRC11(t *testing.T) {\n\tt.Log(\"explore: complete: 7 executions (0 pruned), preemption bound 1\")\n}\n",
		"linearizability/l_test.go": test("linearizability", "func TestQueueHistories(t *testing.T) {\n"+
			"\tt.Log(\"1200 operations checked for \" + os.Getenv(\"VSCHED_LIN_DURATION\") + \" seed \" + os.Getenv(\"VSCHED_LIN_SEED\"))\n}\n"),
	}
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestCheckRunsEveryPhaseAndReportsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	t.Setenv(rootEnv, standInCheckModule(t, false))
	report := filepath.Join(t.TempDir(), "r.html")
	var stdout, stderr bytes.Buffer
	code := runCheck(context.Background(), []string{"-duration", "1s", "-fuzztime", "20x", "-seed", "7", "-report", report, "-v"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitFail {
		t.Fatalf("exit %d, want %d (runq fails):\n%s\n%s", code, exitFail, out, stderr.String())
	}
	for _, re := range []string{
		`(?m)^properties +FAIL +6 passed, 1 failed, 0 skipped `,
		`(?m)^fuzz seeds +PASS +1 passed`,
		// The explore phase adds up its two go tests: the RC11 kernel
		// models in one, the rest in the other.
		`(?m)^explore +PASS +3 passed, 0 failed, 0 skipped; 12 executions explored +2 complete `,
		`\$ RAPID_SEED=7 go test -count=1 -json -tags vsched_explore -run '\^TestKernelModelsRC11\$' \./explore\n`,
		`\$ RAPID_SEED=7 go test -count=1 -json -tags vsched_explore -skip '\^\(TestKnownBad\|TestKernelModelsRC11\$\)' \./explore \./netpoll\n`,
		`(?m)^explore kernel +CAPPED +1 passed, 0 failed, 0 skipped; 17 executions explored +0 complete, 1 CAPPED `,
		`(?m)^fuzz FuzzRev +PASS +1 passed`,
		`(?m)^linearizability +PASS +1 passed, 0 failed, 0 skipped; 1,200 operations checked `,
		`=== FAIL properties: TestRunq in github.com/vsched/vsched/runq\n.*runq broke`,
		// -v shows the commands and streams the output; a 1s budget gives
		// the kernel models the 1s floor and the stress test the 5s one.
		`-vsched\.kernel-bound=2 -vsched\.kernel-executions=200000 -vsched\.kernel-time=1s`,
		`1200 operations checked for 5s seed 7`,
		`check: FAIL \(6 phases, 1 failed, 1 capped, explorer searches: 2 complete, 1 CAPPED, total `,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %q:\n%s", re, out)
		}
	}
	html, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vsched check: <span class=\"FAIL\">FAIL</span>", "6 phases, 1 failed", "-seed 7", "runq broke", "VSCHED_LIN_DURATION=5s VSCHED_LIN_SEED=7"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("report lacks %q", want)
		}
	}

	// -run picks phases by name; a -run that matches none is a usage error.
	t.Setenv(rootEnv, standInCheckModule(t, true))
	stdout.Reset()
	if code := runCheck(context.Background(), []string{"-run", "^(fuzz seeds|properties)$", "-report", ""}, &stdout, &stderr); code != exitPass ||
		!strings.Contains(stdout.String(), "check: PASS (2 phases, total") {
		t.Errorf("-run: exit %d:\n%s", code, stdout.String())
	}
	if code := runCheck(context.Background(), []string{"-run", "nothing", "-report", ""}, &stdout, &stderr); code != exitUsage {
		t.Errorf("-run nothing: exit %d, want %d", code, exitUsage)
	}
}
