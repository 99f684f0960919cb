package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The files in testdata are real output, recorded from go 1.26 on a small
// stand-in module: properties.jsonl has a passing package (spec), a failed
// subtest (runq), a panic in TestMain (steal) and a compile error
// (proptest); fuzz_seeds.jsonl replays a committed crasher; fuzz_crash.txt
// and fuzz_pass.txt are plain go test -fuzz runs.

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func tallyOf(t *testing.T, stream string) *tally {
	t.Helper()
	tl := newTally()
	w := &lineWriter{fn: func(line string) { tl.addLine(line) }}
	w.Write([]byte(stream))
	w.flush()
	return tl
}

func failureTitled(t *testing.T, fs []failure, title string) failure {
	t.Helper()
	for _, f := range fs {
		if f.title == title {
			return f
		}
	}
	var titles []string
	for _, f := range fs {
		titles = append(titles, f.title)
	}
	t.Fatalf("no failure titled %q; have %q", title, titles)
	return failure{}
}

func TestTallyCountsTopLevelTestsOnly(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "properties.jsonl"))
	// spec: TestPass, TestSub (its three subtests not counted), TestSkip;
	// runq: TestMaybeFail fails, TestOK passes; steal and proptest run no test.
	want := testCounts{passed: 3, failed: 1, skipped: 1, brokenPkgs: 2}
	if !reflect.DeepEqual(tl.counts, want) {
		t.Errorf("counts = %+v, want %+v", tl.counts, want)
	}
	if tl.started != 4 {
		t.Errorf("started = %d packages, want 4", tl.started)
	}
	if got := tl.counts.String(); got != "3 passed, 1 failed, 1 skipped; 2 package errors" {
		t.Errorf("counts.String() = %q", got)
	}
}

func TestTallyShowsFailedTestLikeGoTestWithoutV(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "properties.jsonl"))
	f := failureTitled(t, tl.failures, "TestMaybeFail in github.com/vsched/vsched/runq")
	want := []string{
		"--- FAIL: TestMaybeFail (0.00s)",
		"    --- FAIL: TestMaybeFail/inner (0.00s)",
		"        runq_test.go:10: inner broke: want 1, got 2",
	}
	if !reflect.DeepEqual(f.output, want) {
		t.Errorf("output:\n%s\nwant:\n%s", strings.Join(f.output, "\n"), strings.Join(want, "\n"))
	}
}

func TestTallyReportsCompileErrorOfPackage(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "properties.jsonl"))
	f := failureTitled(t, tl.failures, "github.com/vsched/vsched/proptest [build failed]")
	want := []string{
		"# github.com/vsched/vsched/proptest [github.com/vsched/vsched/proptest.test]",
		"proptest/p_test.go:5:32: declared and not used: x",
	}
	if !reflect.DeepEqual(f.output, want) {
		t.Errorf("output = %q, want %q", f.output, want)
	}
}

func TestTallyReportsPanicOutsideTests(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "properties.jsonl"))
	f := failureTitled(t, tl.failures, "github.com/vsched/vsched/steal")
	if len(f.output) == 0 || f.output[0] != "panic: boom in main" {
		t.Fatalf("output = %q, want it to start with the panic", f.output)
	}
	for _, l := range f.output {
		if strings.HasPrefix(l, "FAIL\t") {
			t.Errorf("output keeps the verdict line %q", l)
		}
	}
}

func TestTallyDoesNotReportPackageWhoseTestsExplainIt(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "properties.jsonl"))
	for _, f := range tl.failures {
		if f.title == "github.com/vsched/vsched/runq" {
			t.Errorf("runq reported as a package failure too: %q", f.output)
		}
	}
	if len(tl.failures) != 3 {
		t.Errorf("%d failures, want 3 (runq test, steal panic, proptest build)", len(tl.failures))
	}
}

func TestTallyKeepsOutputOfTestThatNeverEnded(t *testing.T) {
	// A test calling os.Exit: no verdict for the test, a failed package.
	stream := `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestExit"}
{"Action":"output","Package":"p","Test":"TestExit","Output":"=== RUN   TestExit\n"}
{"Action":"output","Package":"p","Test":"TestExit","Output":"    x_test.go:3: about to exit\n"}
{"Action":"output","Package":"p","Output":"FAIL\tp\t0.002s\n"}
{"Action":"fail","Package":"p","Elapsed":0.002}
`
	tl := tallyOf(t, stream)
	f := failureTitled(t, tl.failures, "p")
	want := []string{"--- UNFINISHED: TestExit", "    x_test.go:3: about to exit"}
	if !reflect.DeepEqual(f.output, want) {
		t.Errorf("output = %q, want %q", f.output, want)
	}
	if tl.counts.brokenPkgs != 1 {
		t.Errorf("brokenPkgs = %d, want 1", tl.counts.brokenPkgs)
	}
}

func TestTallyKeepsNonJSONLinesAsStray(t *testing.T) {
	tl := tallyOf(t, "not json\n{\"Action\":\"start\",\"Package\":\"p\"}\n")
	if !reflect.DeepEqual(tl.stray, []string{"not json"}) || tl.started != 1 {
		t.Errorf("stray = %q, started = %d", tl.stray, tl.started)
	}
}

func TestSeedPhaseReportsCommittedCrasher(t *testing.T) {
	tl := tallyOf(t, readTestdata(t, "fuzz_seeds.jsonl"))
	r := judgeTests(tl, nil, errors.New("exit status 1"), "no fuzz targets")
	if r.verdict != fail || r.summary != "1 passed, 1 failed, 0 skipped" {
		t.Fatalf("result = %v %q", r.verdict, r.summary)
	}
	f := failureTitled(t, r.failures, "FuzzCrash in github.com/vsched/vsched/fuzz")
	want := []string{
		"--- FAIL: FuzzCrash (0.00s)",
		"    --- FAIL: FuzzCrash/e9e3ffbe3b3a072c (0.00s)",
		`        fuzz_test.go:20: found A in "A"`,
	}
	if !reflect.DeepEqual(f.output, want) {
		t.Errorf("output = %q, want %q", f.output, want)
	}
}

func TestJudgeTests(t *testing.T) {
	passing := `{"Action":"start","Package":"p"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p"}
`
	noTests := `{"Action":"start","Package":"p"}
{"Action":"output","Package":"p","Output":"testing: warning: no tests to run\n"}
{"Action":"pass","Package":"p"}
`
	exitErr := errors.New("exit status 1")
	for _, tc := range []struct {
		name    string
		stream  string
		stderr  []string
		err     error
		verdict verdict
		summary string
	}{
		{"all pass", passing, nil, nil, pass, "1 passed, 0 failed, 0 skipped"},
		{"no tests is a skip", noTests, nil, nil, skip, "no tests"},
		{"no packages is a skip", "", []string{`go: warning: "./steal/..." matched no packages`, "no packages to test"}, exitErr, skip, "no packages"},
		{"go test fails before any package", "", []string{"go: bad flag"}, exitErr, fail, "go test failed"},
		{"exit status alone fails the phase", passing, nil, exitErr, fail, "1 passed, 0 failed, 0 skipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := judgeTests(tallyOf(t, tc.stream), tc.stderr, tc.err, "no tests")
			if r.verdict != tc.verdict || r.summary != tc.summary {
				t.Errorf("got %v %q, want %v %q", r.verdict, r.summary, tc.verdict, tc.summary)
			}
			if r.verdict == fail && len(r.failures) == 0 {
				t.Errorf("a failed phase kept no output to explain it")
			}
		})
	}
}

func TestJudgeTestsExplainsFailureWithStderr(t *testing.T) {
	r := judgeTests(newTally(), []string{"go: updates to go.mod needed"}, errors.New("exit status 1"), "")
	f := failureTitled(t, r.failures, "go test")
	want := []string{"go: updates to go.mod needed", "go test: exit status 1"}
	if !reflect.DeepEqual(f.output, want) {
		t.Errorf("output = %q, want %q", f.output, want)
	}
}

func fuzzOutcomeOf(text string) *fuzzOutcome {
	o := newFuzzOutcome()
	w := &lineWriter{fn: o.addLine}
	w.Write([]byte(text))
	w.flush()
	return o
}

func TestFuzzExecsComeFromLastProgressLine(t *testing.T) {
	o := fuzzOutcomeOf(readTestdata(t, "fuzz_pass.txt"))
	if o.execs != 547246 {
		t.Errorf("execs = %d, want 547246 (the last progress line)", o.execs)
	}
	if got := judgeFuzz("FuzzRev", o, nil); got.verdict != pass || got.summary != "547,246 execs" {
		t.Errorf("judgeFuzz = %v %q", got.verdict, got.summary)
	}
}

func TestParseFuzzExecsIgnoresBaselineLines(t *testing.T) {
	for _, tc := range []struct {
		line string
		n    int64
		ok   bool
	}{
		{"fuzz: elapsed: 3s, execs: 228185 (76044/sec), new interesting: 0 (total: 1)", 228185, true},
		{"fuzz: elapsed: 1m0s, execs: 12 (0/sec), new interesting: 2 (total: 7)", 12, true},
		{"fuzz: elapsed: 0s, gathering baseline coverage: 0/1 completed", 0, false},
		{"fuzz: minimizing 28-byte failing input file", 0, false},
		{"ok  \tgithub.com/vsched/vsched/fuzz\t7.091s", 0, false},
	} {
		n, ok := parseFuzzExecs(tc.line)
		if n != tc.n || ok != tc.ok {
			t.Errorf("parseFuzzExecs(%q) = %d, %v; want %d, %v", tc.line, n, ok, tc.n, tc.ok)
		}
	}
}

func TestFuzzFailureNamesFailingInputFromModuleRoot(t *testing.T) {
	o := fuzzOutcomeOf(readTestdata(t, "fuzz_crash.txt"))
	if o.execs != -1 || o.summary() != "execs unknown" {
		t.Errorf("execs = %d (%q); the run printed no progress line", o.execs, o.summary())
	}
	want := filepath.Join("fuzz", "testdata", "fuzz", "FuzzCrash", "e9e3ffbe3b3a072c")
	if got := o.crasherFromRoot(fuzzDir); got != want {
		t.Errorf("crasherFromRoot = %q, want %q", got, want)
	}
	r := judgeFuzz("FuzzCrash", o, errors.New("exit status 1"))
	if r.verdict != fail {
		t.Fatalf("verdict = %v, want FAIL", r.verdict)
	}
	f := failureTitled(t, r.failures, "failing input "+want)
	text := strings.Join(f.output, "\n")
	for _, s := range []string{`found A in "A"`, "go test -run=FuzzCrash/e9e3ffbe3b3a072c ./fuzz"} {
		if !strings.Contains(text, s) {
			t.Errorf("failure output lacks %q:\n%s", s, text)
		}
	}
	for _, l := range f.output {
		if strings.HasPrefix(l, "fuzz: elapsed:") || l == "exit status 1" || strings.HasPrefix(l, "FAIL\t") {
			t.Errorf("failure output keeps chatter line %q", l)
		}
	}
}

// deadlineRaceRun is the output of a real run that ended in the fuzzing
// coordinator's deadline race (golang/go#75804), from .ci/run on go1.26.8.
const deadlineRaceRun = `fuzz: elapsed: 0s, gathering baseline coverage: 0/127 completed
fuzz: elapsed: 0s, gathering baseline coverage: 127/127 completed, now fuzzing with 2 workers
fuzz: elapsed: 9s, execs: 46980 (5737/sec), new interesting: 30 (total: 157)
fuzz: elapsed: 10s, execs: 53140 (5938/sec), new interesting: 30 (total: 157)
--- FAIL: FuzzQueue (10.07s)
    context deadline exceeded
FAIL
exit status 1
FAIL	github.com/vsched/vsched/fuzz	10.078s
`

func TestFuzzDeadlineRaceWithoutFailingInputPasses(t *testing.T) {
	r := judgeFuzz("FuzzQueue", fuzzOutcomeOf(deadlineRaceRun), errors.New("exit status 1"))
	if r.verdict != pass || !strings.Contains(r.summary, "golang/go#75804") {
		t.Fatalf("judgeFuzz = %v %q, want PASS naming golang/go#75804", r.verdict, r.summary)
	}
}

func TestFuzzDeadlineMessageWithMoreOutputFails(t *testing.T) {
	for name, run := range map[string]string{
		"a property failure too": strings.Replace(deadlineRaceRun, "    context deadline exceeded\n",
			"    context deadline exceeded\n    queue.go:216: spec mismatch: Grab\n", 1),
		"another target failed": strings.Replace(deadlineRaceRun, "--- FAIL: FuzzQueue", "--- FAIL: FuzzOther", 1),
		"a failing input":       deadlineRaceRun + "    Failing input written to testdata/fuzz/FuzzQueue/0123abcd\n",
	} {
		if r := judgeFuzz("FuzzQueue", fuzzOutcomeOf(run), errors.New("exit status 1")); r.verdict != fail {
			t.Errorf("%s: judgeFuzz = %v, want FAIL", name, r.verdict)
		}
	}
}

func TestJudgeFuzzShowsErrorsThatAreNotExitStatus(t *testing.T) {
	r := judgeFuzz("FuzzX", newFuzzOutcome(), errors.New(`exec: "go": executable file not found in $PATH`))
	f := failureTitled(t, r.failures, "go test -fuzz")
	if !strings.Contains(strings.Join(f.output, "\n"), "executable file not found") {
		t.Errorf("output = %q", f.output)
	}
}

func TestParseFuzzListKeepsOnlyTargetNames(t *testing.T) {
	out := "FuzzPut\nFuzzSteal\nok  \tgithub.com/vsched/vsched/fuzz\t0.002s\n"
	if got, want := parseFuzzList(out), []string{"FuzzPut", "FuzzSteal"}; !reflect.DeepEqual(got, want) {
		t.Errorf("parseFuzzList = %q, want %q", got, want)
	}
}

func TestSummaryTable(t *testing.T) {
	results := []result{
		{phase: "properties", verdict: pass, summary: "41 passed, 0 failed, 2 skipped", dur: 3140 * time.Millisecond},
		{phase: "fuzz seeds", verdict: skip, summary: "no ./fuzz package yet"},
		{phase: "fuzz FuzzPut", verdict: fail, summary: "1,234,567 execs", dur: 62 * time.Second},
	}
	var b bytes.Buffer
	writeSummary(&b, results, 65*time.Second+400*time.Millisecond, overall(results))
	want := "" +
		"PHASE         VERDICT  TESTS (TOP-LEVEL) / EXECS       SEARCHES  DURATION\n" +
		"properties    PASS     41 passed, 0 failed, 2 skipped  -         3.1s\n" +
		"fuzz seeds    SKIP     no ./fuzz package yet           -         0s\n" +
		"fuzz FuzzPut  FAIL     1,234,567 execs                 -         1m2s\n" +
		"check: FAIL (3 phases, 1 failed, 1 skipped, total 1m5s)\n"
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestVerdictLine(t *testing.T) {
	passed := []result{{verdict: pass}, {verdict: pass}}
	if got, want := verdictLine(passed, 62*time.Second, overall(passed)), "check: PASS (2 phases, total 1m2s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	stopped := []result{{verdict: fail}, {verdict: interrupted}}
	if got, want := verdictLine(stopped, 3*time.Second, overall(stopped)), "check: INTERRUPTED (2 phases, 1 failed, total 3s)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWriteFailuresPrintsOnlyFailedPhases(t *testing.T) {
	results := []result{
		{phase: "properties", verdict: fail, failures: []failure{{title: "TestX in p", output: []string{"--- FAIL: TestX (0.00s)", "", "    x_test.go:1: boom"}}}},
		// An interrupted phase's failures are the kill's, not findings.
		{phase: "fuzz seeds", verdict: interrupted, failures: []failure{{title: "go test", output: []string{"signal: interrupt"}}}},
	}
	var b bytes.Buffer
	writeFailures(&b, results)
	want := "\n=== FAIL properties: TestX in p\n    --- FAIL: TestX (0.00s)\n\n        x_test.go:1: boom\n\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// emptyChecker is a checker over a module root with no verification
// packages, so that every phase it runs decides SKIP without starting go.
func emptyChecker(t *testing.T, filter string, out *bytes.Buffer) *checker {
	root := t.TempDir()
	c := &checker{root: root, goBin: "go-must-not-run", fuzztime: "1s", prog: newProgress(out, false)}
	if filter != "" {
		c.filter = regexp.MustCompile(filter)
	}
	return c
}

func phases(rs []result) []string {
	var names []string
	for _, r := range rs {
		names = append(names, r.phase+" "+r.verdict.String())
	}
	return names
}

func TestPhaseFilter(t *testing.T) {
	for _, tc := range []struct {
		filter string
		want   []string
	}{
		{"", []string{"properties SKIP", "fuzz seeds SKIP", "explore SKIP", "explore kernel SKIP", "linearizability SKIP"}},
		{"seeds", []string{"fuzz seeds SKIP"}},
		{"^explore$", []string{"explore SKIP"}},
		{"^prop", []string{"properties SKIP"}},
		{"FuzzPut", nil},
	} {
		var out bytes.Buffer
		c := emptyChecker(t, tc.filter, &out)
		got := phases(c.run(context.Background()))
		c.prog.close()
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("-run %q ran %q, want %q", tc.filter, got, tc.want)
		}
		if want := []string{"properties", "fuzz seeds", "explore", "explore kernel", "linearizability"}; !reflect.DeepEqual(c.names, want) {
			t.Errorf("-run %q: known phases %q, want %q", tc.filter, c.names, want)
		}
	}
}

func TestSelectedMatchesPhaseNames(t *testing.T) {
	c := &checker{filter: regexp.MustCompile(`^fuzz Fuzz(Put|Steal)$`)}
	for name, want := range map[string]bool{
		"fuzz FuzzPut":   true,
		"fuzz FuzzSteal": true,
		"fuzz FuzzGrab":  false,
		"fuzz seeds":     false,
		"properties":     false,
	} {
		if got := c.selected(name); got != want {
			t.Errorf("selected(%q) = %v, want %v", name, got, want)
		}
	}
	if !(&checker{}).selected("anything") {
		t.Errorf("without -run every phase is selected")
	}
}

func TestMissingPackagesAreSkippedAndSaidSo(t *testing.T) {
	var out bytes.Buffer
	c := emptyChecker(t, "", &out)
	c.run(context.Background())
	c.prog.close()
	want := "" +
		"=== properties\n" +
		"properties: skipping ./internal/...: no directory internal/ yet\n" +
		"properties: skipping ./spec/...: no directory spec/ yet\n" +
		"properties: skipping ./runq/...: no directory runq/ yet\n" +
		"properties: skipping ./steal/...: no directory steal/ yet\n" +
		"properties: skipping ./netpoll/...: no directory netpoll/ yet\n" +
		"properties: skipping ./kernel/...: no directory kernel/ yet\n" +
		"properties: skipping ./proptest/...: no directory proptest/ yet\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("output:\n%s\nwant it to start with:\n%s", out.String(), want)
	}
}

func TestFuzzDirWithoutGoFilesIsSkipped(t *testing.T) {
	var out bytes.Buffer
	c := emptyChecker(t, "seeds", &out)
	if err := os.MkdirAll(filepath.Join(c.root, "fuzz", "testdata"), 0o755); err != nil {
		t.Fatal(err)
	}
	rs := c.run(context.Background())
	c.prog.close()
	if len(rs) != 1 || rs[0].verdict != skip || rs[0].summary != "no Go files in ./fuzz yet" {
		t.Errorf("results = %+v", rs)
	}
}

func TestPlainProgressWritesWholeLinesOnly(t *testing.T) {
	var out bytes.Buffer
	p := newProgress(&out, false)
	p.begin("fuzz FuzzPut")
	p.status("12 execs") // only a terminal shows live counts
	p.line("a note")
	p.end(result{phase: "fuzz FuzzPut", verdict: pass, summary: "12 execs", dur: 1500 * time.Millisecond})
	p.close()
	p.line("after close")
	want := "=== fuzz FuzzPut\na note\n--- PASS fuzz FuzzPut: 12 execs (1.5s)\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

func TestLineWriterHandsOverWholeLines(t *testing.T) {
	var got []string
	w := &lineWriter{fn: func(s string) { got = append(got, s) }}
	for _, chunk := range []string{"fir", "st\nsec", "ond\r\n\nthi", "rd"} {
		w.Write([]byte(chunk))
	}
	if want := []string{"first", "second", ""}; !reflect.DeepEqual(got, want) {
		t.Errorf("before flush: %q, want %q", got, want)
	}
	w.flush()
	if want := []string{"first", "second", "", "third"}; !reflect.DeepEqual(got, want) {
		t.Errorf("after flush: %q, want %q", got, want)
	}
}

func TestParseModulePath(t *testing.T) {
	for gomod, want := range map[string]string{
		"module github.com/vsched/vsched\n\ngo 1.25.0\n":      "github.com/vsched/vsched",
		"// a comment\nmodule \"github.com/vsched/vsched\"\n": "github.com/vsched/vsched",
		"module github.com/vsched/vsched // the scheduler\n":  "github.com/vsched/vsched",
		"modulex foo\n": "",
		"go 1.25\n":     "",
	} {
		if got := parseModulePath([]byte(gomod)); got != want {
			t.Errorf("parseModulePath(%q) = %q, want %q", gomod, got, want)
		}
	}
}

func TestModuleRootHonoursOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(rootEnv, dir)
	if _, err := moduleRoot(context.Background(), "go-must-not-run"); err == nil {
		t.Errorf("accepted %s=%s without a go.mod", rootEnv, dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/standin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := moduleRoot(context.Background(), "go-must-not-run")
	if err != nil || got != dir {
		t.Errorf("moduleRoot = %q, %v; want %q", got, err, dir)
	}
}

func TestValidFuzztime(t *testing.T) {
	for s, ok := range map[string]bool{
		"10s": true, "5m": true, "1000x": true,
		"0s": false, "-1s": false, "0x": false, "x": false, "ten": false, "": false,
	} {
		if err := validFuzztime(s); (err == nil) != ok {
			t.Errorf("validFuzztime(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

func TestGroupDigits(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestRunRejectsUnknownCommandWithUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"mutate"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if !strings.Contains(stderr.String(), `unknown command "mutate"`) || !strings.Contains(stderr.String(), "check") {
		t.Errorf("stderr does not name the command and list commands:\n%s", stderr.String())
	}
	if code := run(context.Background(), nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("no command: exit %d, want %d", code, exitUsage)
	}
}

func TestRunHelpListsCommands(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"help"}, &stdout, &stderr); code != exitPass {
		t.Errorf("exit %d, want 0", code)
	}
	for _, cmd := range []string{"check", "mutants"} {
		if !strings.Contains(stdout.String(), cmd) {
			t.Errorf("usage does not list %s:\n%s", cmd, stdout.String())
		}
	}
	for cmd, flags := range map[string][]string{
		"check":   {"-duration", "-report", "-seed", "-fuzztime", "-run", "-v"},
		"mutants": {"-run", "-fast", "-all", "-markdown", "-v"},
	} {
		stdout.Reset()
		run(context.Background(), []string{"help", cmd}, &stdout, &stderr)
		for _, flag := range flags {
			if !strings.Contains(stdout.String(), flag) {
				t.Errorf("help %s does not document %s:\n%s", cmd, flag, stdout.String())
			}
		}
	}
}

func TestFuzzersShareAQuarterOfTheBudget(t *testing.T) {
	c := &checker{duration: 2 * time.Minute}
	if got := c.fuzztimeFor(2); got != "15s" {
		t.Errorf("first of two targets: %s, want 15s", got)
	}
	if got := c.fuzztimeFor(1); got != "15s" {
		t.Errorf("last of two targets: %s, want the 15s left of the quarter", got)
	}
	c = &checker{duration: 2 * time.Second}
	if got := c.fuzztimeFor(3); got != "1s" {
		t.Errorf("a tiny budget: %s, want the 1s floor", got)
	}
	c.fuzztime = "500x"
	if got := c.fuzztimeFor(3); got != "500x" {
		t.Errorf("with -fuzztime: %s, want 500x", got)
	}
}

func TestTallyAddsUpTheWorkTheVerifiersLoggedAndCountsSearchesByCoverage(t *testing.T) {
	var b strings.Builder
	start, _ := json.Marshal(testEvent{Action: "start", Package: "p"})
	b.Write(append(start, '\n'))
	for _, line := range []struct{ test, out string }{
		{"TestKernelModels/A", "    kernel_test.go:264: explore: complete: 9983 executions (1004 pruned), preemption bound 2\n"},
		{"TestKernelModels/B", "    kernel_test.go:264: explore: CAPPED by the time cap: 17 executions (0 pruned), preemption bound 2, 2 timeouts\n"},
		{"TestKernelModels/C", "    kernel_test.go:264: explore: complete: 1000 executions (3 pruned), preemption bound 1\n"},
		{"TestX", "    stress_test.go:57: queue mode, runq.Size 256, seed 3: 12 rounds, 2400 operations checked, 0 rounds timed out\n"},
	} {
		ev, _ := json.Marshal(testEvent{Action: "output", Package: "p", Test: line.test, Output: line.out})
		b.Write(append(ev, '\n'))
	}
	for _, test := range []string{"TestKernelModels", "TestX", ""} {
		ev, _ := json.Marshal(testEvent{Action: "pass", Package: "p", Test: test})
		b.Write(append(ev, '\n'))
	}
	tl := tallyOf(t, b.String())
	if tl.counts.executions != 11000 || tl.counts.operations != 2400 {
		t.Fatalf("executions %d, operations %d; want 11000 and 2400", tl.counts.executions, tl.counts.operations)
	}
	if tl.counts.complete != 2 || !slices.Equal(tl.counts.cappedIn, []string{"TestKernelModels/B (the time cap, 17 executions)"}) {
		t.Fatalf("complete %d, capped %q; want 2 and B's", tl.counts.complete, tl.counts.cappedIn)
	}
	if got := tl.counts.live(); !strings.Contains(got, "11,000 executions explored; 2,400 operations checked; searches 2 complete, 1 CAPPED") {
		t.Errorf("live status %q", got)
	}
	// A phase whose searches were capped and nothing failed is CAPPED, not
	// PASS, in the table, the phase's line and the verdict line.
	r := judgeTests(tl, nil, nil, "no tests")
	if r.verdict != capped {
		t.Fatalf("verdict %v, want CAPPED", r.verdict)
	}
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

func TestCheckRejectsBadFlagsBeforeRunningAnything(t *testing.T) {
	t.Setenv(rootEnv, "/nonexistent-so-a-lookup-would-fail")
	for _, args := range [][]string{
		{"-fuzztime", "soon"},
		{"-duration", "0s"},
		{"-duration", "-1m"},
		{"-seed", "many"},
		{"-run", "("},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runCheck(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("check %q: exit %d, want %d; stderr:\n%s", args, code, exitUsage, stderr.String())
		}
	}
}
