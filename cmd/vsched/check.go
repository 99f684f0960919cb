package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vsched/vsched/linearizability"
)

// modulePath is the module check verifies; it refuses to run elsewhere, so
// that "vsched check" in the wrong directory cannot report a PASS for some
// other module's tests.
const modulePath = "github.com/vsched/vsched"

// rootEnv overrides the module root lookup (see the package doc).
const rootEnv = "VSCHED_ROOT"

// fuzzDir is the directory, relative to the module root, of the package
// holding the fuzz targets and their seed corpora.
const fuzzDir = "fuzz"

// propertyPatterns are the packages whose tests check the scheduler: the
// synchronization primitives, the data structures, the specification, the
// netpoller and the kernel (their unit and stress tests) and the rapid
// property tests, as go test patterns relative to the module root.
func propertyPatterns() []string {
	return []string{"./internal/...", "./spec/...", "./runq/...", "./steal/...", "./netpoll/...", "./kernel/...", "./proptest/..."}
}

// verdict is a phase's outcome.
type verdict int

const (
	pass verdict = iota
	fail
	skip        // nothing to run yet (missing package, no tests)
	interrupted // cancelled by a signal before it finished
	// capped: nothing failed, but a cap stopped some of the explorer's
	// searches before they covered every schedule within their bounds.
	// It does not fail a campaign; it is never shown as a plain PASS.
	capped
)

func (v verdict) String() string {
	switch v {
	case pass:
		return "PASS"
	case fail:
		return "FAIL"
	case skip:
		return "SKIP"
	case interrupted:
		return "INTERRUPTED"
	case capped:
		return "CAPPED"
	}
	return "verdict(" + strconv.Itoa(int(v)) + ")"
}

// result is what one phase found.
type result struct {
	phase   string
	verdict verdict
	summary string // test counts, executions, or why the phase was skipped
	// complete counts the explorer's searches that covered every
	// schedule within their bounds; cappedIn names those a cap stopped.
	complete int
	cappedIn []string
	dur      time.Duration
	failures []failure // printed after the campaign when verdict is fail
	// command is the go command the phase ran, as a shell would take it;
	// budget is the time the campaign gave it, if it set one.
	command string
	budget  time.Duration
}

type checkFlags struct {
	fs       *flag.FlagSet
	duration time.Duration
	report   string
	seed     uint64
	fuzztime string
	run      string
	verbose  bool
}

func newCheckFlags(out io.Writer) *checkFlags {
	f := &checkFlags{fs: flag.NewFlagSet("check", flag.ContinueOnError)}
	f.fs.SetOutput(out)
	f.fs.DurationVar(&f.duration, "duration", 3*time.Minute, "the campaign's time `budget`: the fixed phases run first, each fuzz target gets a share, linearizability the rest")
	f.fs.StringVar(&f.report, "report", "vsched-report.html", "write the HTML report to `file` (\"\" for none)")
	f.fs.Uint64Var(&f.seed, "seed", 0, "seed of the property tests (rapid) and the linearizability stress `N` (0: a random one, printed)")
	f.fs.StringVar(&f.fuzztime, "fuzztime", "", "fuzz each target for `d`, a duration (10s) or an iteration count (1000x), instead of its share of -duration")
	f.fs.StringVar(&f.run, "run", "", "run only the phases whose name matches `regexp` (properties, fuzz seeds, explore, explore kernel, linearizability, fuzz <Target>)")
	f.fs.BoolVar(&f.verbose, "v", false, "print each go command and stream go test's output while it runs")
	f.fs.Usage = func() {
		fmt.Fprint(out, "usage: vsched check [-duration d] [-report file] [-seed N] [-fuzztime d] [-run regexp] [-v]\n\n"+
			"check runs the verification campaign in phases: properties (the property\n"+
			"tests), fuzz seeds (the committed seed corpora), explore (the model checker's\n"+
			"litmus tests, runq scenarios, kernel models and netpoll wait slots), explore\n"+
			"kernel (the kernel models at preemption bound 2, for a quarter of -duration),\n"+
			"fuzz <Target> (a quarter of -duration shared by the targets) and\n"+
			"linearizability (porcupine on histories from real cores, for the rest), then\n"+
			"prints a summary and writes an HTML report. It exits 1 if a phase failed.\n\n")
		f.fs.PrintDefaults()
	}
	return f
}

// validFuzztime accepts what go test -fuzztime accepts, so that a typo is
// reported before the first phase rather than after the property tests.
func validFuzztime(s string) error { return validTimeOrCount("-fuzztime", s, "10s", "1000x") }

// runCheck is the check command.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newCheckFlags(stderr)
	if code, done := parseFlags(f.fs, args, stderr); done {
		return code
	}
	if f.fuzztime != "" {
		if err := validFuzztime(f.fuzztime); err != nil {
			fmt.Fprintf(stderr, "vsched check: %v\n", err)
			return exitUsage
		}
	}
	if f.duration <= 0 {
		fmt.Fprintf(stderr, "vsched check: invalid -duration %v: want a positive duration\n", f.duration)
		return exitUsage
	}
	if f.seed == 0 {
		f.seed = rand.Uint64N(1<<53-1) + 1 // exact in JSON and in a shell
	}
	var filter *regexp.Regexp
	if f.run != "" {
		var err error
		if filter, err = regexp.Compile(f.run); err != nil {
			fmt.Fprintf(stderr, "vsched check: invalid -run: %v\n", err)
			return exitUsage
		}
	}
	goBin := goBinary()
	root, cleanup, err := sourceRoot(ctx, goBin, stderr)
	if err != nil {
		// The error says where to run vsched instead.
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	defer cleanup()
	reportPath := f.report
	if reportPath != "" {
		if reportPath, err = filepath.Abs(reportPath); err != nil {
			fmt.Fprintf(stderr, "vsched check: -report: %v\n", err)
			return exitUsage
		}
	}

	start := time.Now()
	prog := newProgress(stdout, isTerminal(stdout))
	prog.deadline = start.Add(f.duration)
	prog.line(fmt.Sprintf("vsched check: seed %d, budget %s, %d CPUs; replay with -seed %d", f.seed, f.duration, runtime.NumCPU(), f.seed))
	// Say at once that the interrupt was seen: stopping go test can take a
	// few seconds while a fuzzer winds down.
	stopNote := context.AfterFunc(ctx, func() {
		prog.line("vsched check: interrupted; stopping go test")
	})
	c := &checker{root: root, goBin: goBin, fuzztime: f.fuzztime, filter: filter, verbose: f.verbose, prog: prog,
		duration: f.duration, deadline: start.Add(f.duration), seed: f.seed}
	results := c.run(ctx)
	total := time.Since(start)
	stopNote()
	prog.close()

	if len(results) == 0 && ctx.Err() == nil {
		fmt.Fprintf(stderr, "vsched check: -run %q matches no phase; the phases are: %s\n", f.run, strings.Join(c.names, ", "))
		return exitUsage
	}
	v := overall(results)
	if ctx.Err() != nil {
		v = interrupted
	}
	writeFailures(stdout, results)
	writeSummary(stdout, results, total, v)
	if reportPath != "" {
		// After an interrupt ctx is done, but the report still wants the
		// machine's facts.
		rep := newReport(context.WithoutCancel(ctx), goBin, c, results, start, total, v)
		if err := writeReport(reportPath, rep); err != nil {
			fmt.Fprintf(stderr, "vsched check: writing the report: %v\n", err)
			if v == pass {
				return exitFail
			}
		} else {
			fmt.Fprintf(stdout, "report: %s\n", reportPath)
		}
	}
	switch v {
	case pass:
		return exitPass
	case interrupted:
		return interruptedStatus(ctx)
	default:
		return exitFail
	}
}

// checker runs the phases of one check campaign.
type checker struct {
	root     string // module root; every go test runs there
	goBin    string
	fuzztime string         // "" gives each target its share of duration
	duration time.Duration  // the campaign's budget
	deadline time.Time      // when the budget runs out
	seed     uint64         // for rapid and the linearizability stress
	filter   *regexp.Regexp // nil runs every phase
	verbose  bool
	prog     *progress
	names    []string // every phase met, selected or not, for the -run error
	lastCmd  string   // the last go command run, for the phase's result
	budget   time.Duration
	// fuzzGiven is the time the fuzz targets have been given so far.
	fuzzGiven time.Duration
}

func (c *checker) selected(name string) bool {
	return c.filter == nil || c.filter.MatchString(name)
}

// run runs the selected phases in order and returns their results. It stops
// after the phase during which ctx was cancelled.
func (c *checker) run(ctx context.Context) []result {
	var results []result
	// step runs one phase if -run selects it and reports whether to go on.
	step := func(name string, fn func(context.Context) result) bool {
		c.names = append(c.names, name)
		if c.selected(name) {
			results = append(results, c.runPhase(ctx, name, fn))
		}
		return ctx.Err() == nil
	}
	if !step("properties", c.properties) || !step("fuzz seeds", c.fuzzSeeds) ||
		!step("explore", c.explore) || !step("explore kernel", c.exploreKernel) {
		return results
	}
	targets, listing := c.fuzzTargets(ctx)
	if listing != nil {
		results = append(results, *listing)
	}
	for i, t := range targets {
		fuzz := func(ctx context.Context) result { return c.fuzzTarget(ctx, t, len(targets)-i) }
		if !step("fuzz "+t, fuzz) {
			return results
		}
	}
	step("linearizability", c.linearizability)
	return results
}

// Shares of the campaign's budget. The fixed phases (properties, fuzz
// seeds, explore at bound 1) take what they take, about half a minute on
// two cores; the kernel models at bound 2 and the fuzzers each get a
// quarter of the budget, and the linearizability stress, which finds more
// the longer it runs, gets whatever is left.
const (
	exploreKernelShare = 4 // 1/4 of -duration
	fuzzShare          = 4 // 1/4 of -duration, split among the targets
	// minStress is the least a linearizability stress test runs, even
	// when the phases before used up the budget.
	minStress = 5 * time.Second
	// testTimeoutSlack is what go test's -timeout allows beyond a phase's
	// budget: building, and the tests of the package that are not
	// budgeted.
	testTimeoutSlack = 5 * time.Minute
)

// remaining is the budget left.
func (c *checker) remaining() time.Duration { return time.Until(c.deadline) }

func (c *checker) runPhase(ctx context.Context, name string, fn func(context.Context) result) result {
	c.prog.begin(name)
	c.lastCmd, c.budget = "", 0
	start := time.Now()
	r := fn(ctx)
	r.phase, r.dur, r.command, r.budget = name, time.Since(start), c.lastCmd, c.budget
	if ctx.Err() != nil && r.verdict == fail {
		// The failure is the kill, not a finding; its output is noise.
		r.verdict, r.failures = interrupted, nil
	}
	c.prog.end(r)
	return r
}

// properties runs the property tests of every package pattern whose
// directory exists.
func (c *checker) properties(ctx context.Context) result {
	var pkgs []string
	for _, p := range propertyPatterns() {
		dir := strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/...")
		if isDir(filepath.Join(c.root, dir)) {
			pkgs = append(pkgs, p)
			continue
		}
		c.prog.line(fmt.Sprintf("properties: skipping %s: no directory %s/ yet", p, dir))
	}
	if len(pkgs) == 0 {
		return result{verdict: skip, summary: "no property-test packages yet"}
	}
	// The seeded bugs are the mutation campaign's (vsched mutants).
	return c.testJSON(ctx, append([]string{"test", "-count=1", "-json", "-skip", "^TestKnownBad"}, pkgs...), "no tests")
}

// explore runs the explorer's litmus tests, the runq scenarios, the kernel
// models and the netpoll wait-slot models in the explorer build. The seeded
// bugs are left to the mutation campaign.
func (c *checker) explore(ctx context.Context) result {
	if !isDir(filepath.Join(c.root, "explore")) {
		return result{verdict: skip, summary: "no ./explore package yet"}
	}
	args := []string{"test", "-count=1", "-json", "-tags", "vsched_explore", "-skip", "^TestKnownBad", "./explore"}
	if isDir(filepath.Join(c.root, "netpoll")) {
		args = append(args, "./netpoll")
	}
	return c.testJSON(ctx, args, "no tests")
}

// exploreKernel runs the kernel's models again at preemption bound 2 (the
// explore phase runs them at bound 1), at most 200,000 executions each and
// a quarter of the budget for all of them.
func (c *checker) exploreKernel(ctx context.Context) result {
	if !isDir(filepath.Join(c.root, "kernel")) {
		return result{verdict: skip, summary: "no ./kernel package yet"}
	}
	c.budget = max(c.duration/exploreKernelShare, time.Second).Round(time.Second)
	return c.testJSON(ctx, []string{"test", "-count=1", "-json", "-timeout", (c.budget + testTimeoutSlack).String(),
		"-tags", "vsched_explore", "-run", "^TestKernelModels$", "./explore",
		"-args", "-vsched.kernel-bound=2", "-vsched.kernel-executions=200000", "-vsched.kernel-time=" + c.budget.String()}, "no tests")
}

// linearizability runs the stress tests whose histories porcupine checks,
// on every core, sharing the rest of the budget; a failing history's
// visualization goes to the system's temporary directory.
func (c *checker) linearizability(ctx context.Context) result {
	if !isDir(filepath.Join(c.root, "linearizability")) {
		return result{verdict: skip, summary: "no ./linearizability package yet"}
	}
	n := c.countTests(ctx, "./linearizability", "Histories")
	each := max(c.remaining()/time.Duration(max(n, 1)), minStress).Round(time.Second)
	c.budget = each * time.Duration(max(n, 1))
	return c.testJSON(ctx, []string{"test", "-count=1", "-json", "-timeout", (c.budget + testTimeoutSlack).String(), "-skip", "^TestKnownBad", "./linearizability"}, "no tests",
		linearizability.EnvDuration+"="+each.String(), linearizability.EnvSeed+"="+strconv.FormatUint(c.seed, 10))
}

// countTests counts the tests of pkg whose names match pattern; 0 if
// listing fails (the phase's own run then reports why).
func (c *checker) countTests(ctx context.Context, pkg, pattern string) int {
	out, err := c.goCommand(ctx, "test", "-list", pattern, pkg).Output()
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") {
			n++
		}
	}
	return n
}

// fuzzSeeds runs every fuzz target on its seed corpus (f.Add and
// testdata/fuzz), as plain tests: this is where committed crashers are
// replayed as regression tests.
func (c *checker) fuzzSeeds(ctx context.Context) result {
	if why := c.noFuzzPackage(); why != "" {
		return result{verdict: skip, summary: why}
	}
	return c.testJSON(ctx, []string{"test", "-count=1", "-json", "-run", "^Fuzz", "./" + fuzzDir}, "no fuzz targets")
}

// noFuzzPackage says why there is nothing to fuzz yet, or "" if there is a
// fuzz package.
func (c *checker) noFuzzPackage() string {
	entries, err := os.ReadDir(filepath.Join(c.root, fuzzDir))
	if err != nil {
		return "no ./" + fuzzDir + " package yet"
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
			return ""
		}
	}
	return "no Go files in ./" + fuzzDir + " yet"
}

// fuzzTargets lists the fuzz targets. Listing is not a phase: it appears in
// the results (as "fuzz targets") only when it fails, since then no target
// can be fuzzed. It runs whatever -run says, because which targets exist is
// only known after it.
func (c *checker) fuzzTargets(ctx context.Context) ([]string, *result) {
	if c.noFuzzPackage() != "" {
		return nil, nil
	}
	var out, errOut bytes.Buffer
	cmd := c.goCommand(ctx, "test", "-list", "^Fuzz", "./"+fuzzDir)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err := c.runCommand(ctx, cmd)
	if err == nil {
		return parseFuzzList(out.String()), nil
	}
	r := result{phase: "fuzz targets", verdict: fail, summary: "go test -list failed", dur: time.Since(start)}
	if ctx.Err() != nil {
		r.verdict, r.summary = interrupted, ""
	} else {
		lines := strings.Split(strings.TrimSpace(out.String()+errOut.String()), "\n")
		r.failures = []failure{{title: "listing the fuzz targets", output: append(lines, "go test: "+err.Error())}}
	}
	c.prog.line(endLine(r))
	return nil, &r
}

// parseFuzzList picks the target names out of go test -list's output, which
// ends with an "ok" line.
func parseFuzzList(out string) []string {
	var names []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "Fuzz") && !strings.ContainsAny(l, " \t") {
			names = append(names, l)
		}
	}
	return names
}

// fuzzMinimizeTime bounds each minimization of an input the fuzzer keeps.
// The fuzz targets' inputs are rapid bitstreams of several kilobytes; with go
// test's default of 60s, minimizing every new interesting input stalls the
// workers for the whole run (measured: 135 executions in 10s, against 31,898
// with this bound).
const fuzzMinimizeTime = "100x"

// rapidSeed is the environment setting that seeds every rapid check.
func (c *checker) rapidSeed() string { return "RAPID_SEED=" + strconv.FormatUint(c.seed, 10) }

// fuzztimeFor is how long to fuzz a target when left of the targets
// (this one included) are still to run: -fuzztime if given, else an even
// part of what is left of the fuzzers' share of the budget.
func (c *checker) fuzztimeFor(left int) string {
	if c.fuzztime != "" {
		return c.fuzztime
	}
	share := (c.duration/fuzzShare - c.fuzzGiven) / time.Duration(max(left, 1))
	c.budget = max(share, time.Second).Round(time.Second)
	c.fuzzGiven += c.budget
	return c.budget.String()
}

// fuzzTarget fuzzes one target for its time. Fuzzing output is plain text
// (go test -json does not carry the coordinator's progress any better), so
// it is read line by line.
func (c *checker) fuzzTarget(ctx context.Context, target string, left int) result {
	o := newFuzzOutcome()
	out := &lineWriter{fn: func(line string) {
		o.addLine(line)
		if o.execs >= 0 {
			c.prog.status(o.summary())
		}
		if c.verbose {
			c.prog.line(line)
		}
	}}
	cmd := c.goCommand(ctx, "test", "-run", "^$", "-fuzz", "^"+target+"$", "-fuzztime", c.fuzztimeFor(left),
		"-fuzzminimizetime", fuzzMinimizeTime, "./"+fuzzDir)
	// One writer for both streams: exec then shares one pipe, so the lines
	// arrive in the order go test wrote them.
	cmd.Stdout, cmd.Stderr = out, out
	err := c.runCommand(ctx, cmd)
	out.flush()
	r := judgeFuzz(target, o, err)
	if p := o.crasherFromRoot(fuzzDir); p != "" && ctx.Err() == nil {
		c.prog.line(fmt.Sprintf("fuzz %s: failing input written to %s", target, p))
	}
	return r
}

// judgeFuzz turns one fuzzing run into a result.
func judgeFuzz(target string, o *fuzzOutcome, runErr error) result {
	r := result{verdict: pass, summary: o.summary()}
	if runErr == nil {
		return r
	}
	if o.deadlineRace(target) {
		r.summary += " (fuzztime deadline race in go test, golang/go#75804; no failing input)"
		return r
	}
	r.verdict = fail
	title, lines := "go test -fuzz", o.kept
	if p := o.crasherFromRoot(fuzzDir); p != "" {
		title = "failing input " + p
		// go test's own re-run hint is relative to the package directory;
		// this one runs from the module root, like everything check runs.
		lines = append(lines, "", "replay from the module root: go test -run="+target+"/"+filepath.Base(p)+" ./"+fuzzDir)
	}
	var exit *exec.ExitError
	if !errors.As(runErr, &exit) {
		lines = append(lines, "go test: "+runErr.Error())
	}
	r.failures = []failure{{title: title, output: lines}}
	return r
}

// testJSON runs go test -json with args and env added to the environment,
// and judges its event stream; none is the reason given when the packages
// hold no tests at all.
func (c *checker) testJSON(ctx context.Context, args []string, none string, env ...string) result {
	t := newTally()
	var stderr []string
	// show reassembles go test's text from the events for -v, whole lines
	// only; it is written from the stdout goroutine alone.
	show := &lineWriter{fn: c.prog.line}
	stdout := &lineWriter{fn: func(line string) {
		ev, ok := t.addLine(line)
		c.prog.status(t.counts.live())
		if !c.verbose {
			return
		}
		if ok {
			io.WriteString(show, ev.Output)
		} else {
			c.prog.line(line)
		}
	}}
	errw := &lineWriter{fn: func(line string) {
		stderr = append(stderr, line)
		// The go command's warnings (a pattern matching no packages) are
		// worth seeing even without -v.
		if c.verbose || strings.HasPrefix(line, "go: warning:") {
			c.prog.line(line)
		}
	}}
	cmd := c.goCommand(ctx, args...)
	cmd.Env = append(cmd.Environ(), env...)
	cmd.Stdout, cmd.Stderr = stdout, errw
	err := c.runCommand(ctx, cmd)
	stdout.flush()
	errw.flush()
	show.flush()
	return judgeTests(t, stderr, err, none)
}

// judgeTests turns a folded go test -json run into a result.
func judgeTests(t *tally, stderr []string, runErr error, none string) result {
	noPackages := false
	for _, l := range stderr {
		noPackages = noPackages || strings.Contains(l, "no packages to test")
	}
	failed := runErr != nil || t.counts.failed > 0 || len(t.failures) > 0
	switch {
	case t.started == 0 && (runErr == nil || noPackages):
		return result{verdict: skip, summary: "no packages"}
	case !failed && t.counts.total() == 0:
		return result{verdict: skip, summary: none}
	case !failed && t.counts.capped > 0:
		return result{verdict: capped, summary: t.counts.String(), complete: t.counts.complete, cappedIn: t.counts.cappedIn}
	case !failed:
		return result{verdict: pass, summary: t.counts.String(), complete: t.counts.complete}
	}
	r := result{verdict: fail, summary: t.counts.String(), complete: t.counts.complete, cappedIn: t.counts.cappedIn, failures: t.failures}
	if len(r.failures) == 0 {
		// go test failed around the tests rather than in them (a bad flag, a
		// module error); what it said on stderr is the explanation.
		lines := append(append([]string(nil), t.stray...), stderr...)
		if runErr != nil {
			lines = append(lines, "go test: "+runErr.Error())
		}
		r.failures = []failure{{title: "go test", output: lines}}
		if t.counts.total() == 0 {
			r.summary = "go test failed"
		}
	}
	return r
}

func (c *checker) goCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, c.goBin, args...)
	cmd.Dir = c.root
	// Every rapid check of the campaign draws from the campaign's seed.
	cmd.Env = append(os.Environ(), c.rapidSeed())
	stopOnCancel(cmd)
	return cmd
}

// runCommand runs cmd, announcing it under -v, and after a cancellation
// removes whatever the go command left running.
func (c *checker) runCommand(ctx context.Context, cmd *exec.Cmd) error {
	c.lastCmd = strings.Join(append(envPrefix(cmd), "go"), " ") + " " + strings.Join(quoteArgs(cmd.Args[1:]), " ")
	if c.verbose {
		c.prog.line("$ " + c.lastCmd)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		killLeftovers(cmd)
	}
	return err
}

// envPrefix is the environment a command adds to vsched's own, as
// NAME=value words to put before it.
func envPrefix(cmd *exec.Cmd) []string {
	if cmd.Env == nil {
		return nil
	}
	own := map[string]bool{}
	for _, kv := range os.Environ() {
		own[kv] = true
	}
	var added []string
	for _, kv := range cmd.Env {
		if !own[kv] {
			added = append(added, quoteArgs([]string{kv})[0])
		}
	}
	return added
}

// quoteArgs quotes the arguments a shell would mangle, so that a command
// shown under -v can be pasted.
func quoteArgs(args []string) []string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$^*?[]{}()|&;<>\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return q
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// goBinary finds the go command: the one on $PATH, as a person running
// check would, else the one of the toolchain that built vsched.
func goBinary() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	// runtime.GOROOT is deprecated because it may name the wrong tree, but
	// without a go on $PATH it is the only guess left.
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}

// moduleRoot returns the root directory of the vsched module containing the
// current directory, or $VSCHED_ROOT when set.
func moduleRoot(ctx context.Context, goBin string) (string, error) {
	if dir := os.Getenv(rootEnv); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", fmt.Errorf("vsched: %s: %v", rootEnv, err)
		}
		if _, err := os.Stat(filepath.Join(abs, "go.mod")); err != nil {
			return "", fmt.Errorf("vsched: %s=%s is not a module root: %v", rootEnv, dir, err)
		}
		return abs, nil
	}
	const wrong = "vsched must run inside a clone of " + modulePath
	var errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, goBin, "list", "-m", "-f", "{{.Dir}}")
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s; go list -m failed: %v: %s", wrong, err, strings.TrimSpace(errOut.String()))
	}
	// In a workspace, go list -m prints one line per main module.
	var others []string
	for _, dir := range strings.Fields(string(out)) {
		path, err := readModulePath(filepath.Join(dir, "go.mod"))
		if err == nil && path == modulePath {
			return dir, nil
		}
		others = append(others, fmt.Sprintf("%s (%s)", path, dir))
	}
	if len(others) == 0 {
		return "", fmt.Errorf("%s; the current directory is not inside a Go module", wrong)
	}
	return "", fmt.Errorf("%s; the current directory is in module %s", wrong, strings.Join(others, ", "))
}

// readModulePath returns the path on the module line of a go.mod file.
func readModulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	return parseModulePath(data), nil
}

func parseModulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module")
		if !ok || rest == "" || !strings.ContainsAny(rest[:1], " \t\"`") {
			continue
		}
		rest, _, _ = strings.Cut(rest, "//")
		rest = strings.TrimSpace(rest)
		if p, err := strconv.Unquote(rest); err == nil {
			return p
		}
		return rest
	}
	return ""
}

// overall folds the phases' verdicts: any interruption, else any failure,
// else pass (skipped phases do not fail a campaign; the table shows them).
func overall(results []result) verdict {
	v := pass
	for _, r := range results {
		switch r.verdict {
		case interrupted:
			return interrupted
		case fail:
			v = fail
		}
	}
	return v
}

// writeFailures prints the kept output of every failed phase.
func writeFailures(w io.Writer, results []result) {
	for _, r := range results {
		if r.verdict != fail {
			continue
		}
		for _, f := range r.failures {
			fmt.Fprintf(w, "\n=== FAIL %s: %s\n", r.phase, f.title)
			for _, l := range f.output {
				if strings.TrimSpace(l) == "" {
					fmt.Fprintln(w)
				} else {
					fmt.Fprintln(w, "    "+l)
				}
			}
		}
	}
	fmt.Fprintln(w)
}

// writeSummary prints the table of phases, the explorer's capped searches,
// and the campaign's verdict line.
func writeSummary(w io.Writer, results []result, total time.Duration, v verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tVERDICT\tTESTS (TOP-LEVEL) / EXECS\tSEARCHES\tDURATION")
	for _, r := range results {
		cov := coverage(r.complete, len(r.cappedIn))
		if cov == "" {
			cov = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.phase, r.verdict, r.summary, cov, formatDuration(r.dur))
	}
	tw.Flush()
	for _, r := range results {
		for _, c := range r.cappedIn {
			fmt.Fprintf(w, "capped in %s: %s\n", r.phase, c)
		}
	}
	fmt.Fprintln(w, verdictLine(results, total, v))
}

// verdictLine is the campaign's last line, e.g. "check: PASS (6 phases,
// 1 capped; explorer searches: 44 complete, 15 CAPPED; total 3m2s)".
func verdictLine(results []result, total time.Duration, v verdict) string {
	var failed, skipped, cappedPhases, complete, cappedSearches int
	for _, r := range results {
		switch r.verdict {
		case fail:
			failed++
		case skip:
			skipped++
		case capped:
			cappedPhases++
		}
		complete += r.complete
		cappedSearches += len(r.cappedIn)
	}
	parts := []string{plural(len(results), "phase")}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d failed", failed))
	}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped", skipped))
	}
	if cappedPhases > 0 {
		parts = append(parts, fmt.Sprintf("%d capped", cappedPhases))
	}
	if complete+cappedSearches > 0 {
		parts = append(parts, fmt.Sprintf("explorer searches: %d complete, %d CAPPED", complete, cappedSearches))
	}
	parts = append(parts, "total "+formatDuration(total))
	return fmt.Sprintf("check: %s (%s)", v, strings.Join(parts, ", "))
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
