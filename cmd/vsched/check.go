package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/vsched/vsched/internal/campaign"
)

// verdict is a phase's outcome.
type verdict int

// A phase is capped when nothing failed but a cap stopped some of the
// explorer's searches before they covered every schedule within their
// bounds: it does not fail a campaign, and it is never shown as a PASS.
const (
	pass verdict = iota
	fail
	skip        // nothing to run (no test matched)
	interrupted // cancelled by a signal before it finished
	capped
)

func (v verdict) String() string {
	return [...]string{"PASS", "FAIL", "SKIP", "INTERRUPTED", "CAPPED"}[v]
}

// result is what one phase (or, for mutants and bench, one step) found.
type result struct {
	phase    string
	verdict  verdict
	summary  string   // counts, or why the phase was skipped
	complete int      // the explorer's complete searches
	cappedIn []string // the explorer's capped searches, by test
	failures []failure
	command  string        // the go command, as a shell takes it
	dur      time.Duration // how long it ran
	budget   time.Duration // the time the campaign gave it, if any
}

// Shares of the budget: the kernel models at bound 2 get a quarter, the
// fuzz targets share a quarter, the linearizability stress (which finds
// more the longer it runs) gets the rest, at least minStress per test.
const (
	exploreKernelShare = 4
	fuzzShare          = 4
	minStress          = 5 * time.Second
	testTimeoutSlack   = 5 * time.Minute // go test's -timeout beyond a budget: building, the tests not budgeted
	// fuzzMinimizeTime bounds the minimization of each input the fuzzer
	// keeps: the fuzz targets' inputs are rapid bitstreams of kilobytes,
	// and with go test's default of 60s minimizing stalls the workers.
	fuzzMinimizeTime = "100x"
)

const checkDoc = `usage: vsched check [-duration d] [-report file] [-seed N] [-fuzztime d] [-run regexp] [-v]

check runs the verification campaign in phases, each a go test -json:
properties, fuzz seeds, explore (two go tests at once), explore kernel
(the kernel models at preemption bound 2, for a quarter of -duration),
fuzz <Target> (another quarter, shared) and linearizability (porcupine,
for the rest). It prints the failures and a summary, writes an HTML
report, and exits 1 if a phase failed.
`

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", checkDoc, stderr)
	duration := fs.Duration("duration", 3*time.Minute, "the time `budget` of the explore kernel, fuzz and linearizability phases; the others take what they take (4 to 7 minutes on 2 cores)")
	reportPath := fs.String("report", "vsched-report.html", "write the HTML report to `file` (\"\" for none)")
	seed := fs.Uint64("seed", 0, "seed `N` of the rapid checks and the linearizability stress (0: a random one, printed)")
	fuzztime := fs.String("fuzztime", "", "fuzz each target for `d`, a duration (10s) or a count (1000x), instead of its share of -duration")
	runRE := fs.String("run", "", "run only the phases whose name matches `regexp` (properties, fuzz seeds, explore, explore kernel, fuzz <Target>, linearizability)")
	verbose := fs.Bool("v", false, "print each go command and stream go test's output")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	filter, err := regexp.Compile(*runRE)
	switch {
	case err != nil:
		err = fmt.Errorf("invalid -run: %v", err)
	case *duration <= 0:
		err = fmt.Errorf("invalid -duration %v: want a positive duration", *duration)
	case *fuzztime != "":
		err = validTimeOrCount("-fuzztime", *fuzztime)
	}
	if err != nil {
		return complain(stderr, exitUsage, "vsched check: %v", err)
	}
	if *seed == 0 {
		*seed = rand.Uint64N(1<<53-1) + 1 // exact in JSON and in a shell
	}
	if *reportPath != "" {
		*reportPath, _ = filepath.Abs(*reportPath)
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return complain(stderr, exitFail, "vsched check: %v", err)
	}

	start := time.Now()
	c := &checker{root: root, seed: *seed, duration: *duration, deadline: start.Add(*duration),
		fuzztime: *fuzztime, filter: filter, verbose: *verbose, prog: newProgress(stdout)}
	c.prog.deadline = c.deadline
	c.prog.line(fmt.Sprintf("vsched check: seed %d, budget %s, %d CPUs; replay with -seed %d", c.seed, c.duration, runtime.NumCPU(), c.seed))
	stopNote := context.AfterFunc(ctx, func() { c.prog.line("vsched check: interrupted; stopping go test") })
	results := c.run(ctx)
	total := time.Since(start)
	stopNote()
	c.prog.close()
	if len(results) == 0 && ctx.Err() == nil {
		return complain(stderr, exitUsage, "vsched check: -run %q matches no phase (see vsched help check)", *runRE)
	}
	v := overall(results)
	if ctx.Err() != nil {
		v = interrupted
	}
	writeFailures(stdout, results)
	writeSummary(stdout, results, total, v)
	if *reportPath != "" {
		// After an interrupt the report still wants the machine's facts.
		rep := newReport(context.WithoutCancel(ctx), c, results, start, total, v)
		if err := writeReport(*reportPath, rep); err != nil {
			fmt.Fprintf(stderr, "vsched check: writing the report: %v\n", err)
			v = cmp.Or(v, fail) // a PASS without its report fails
		} else {
			fmt.Fprintf(stdout, "report: %s\n", *reportPath)
		}
	}
	return exitCode(ctx, v)
}

// checker runs the phases of one check campaign.
type checker struct {
	root      string // the module root; every go test runs there
	seed      uint64
	duration  time.Duration // the budget
	deadline  time.Time
	fuzztime  string // "" gives each target its share of the budget
	filter    *regexp.Regexp
	verbose   bool
	prog      *progress
	fuzzGiven time.Duration // what the fuzz targets were given so far
}

// phase is what a phase runs: go test -count=1 -json with args, and env;
// with more, one more such go test for each of its argument lists, all at
// the same time, whose results the phase adds up.
type phase struct {
	args, env []string
	more      [][]string
	budget    time.Duration
	target    string // the fuzz target, for a fuzzing phase
}

// run runs the selected phases in order, up to one cancelled by ctx.
func (c *checker) run(ctx context.Context) []result {
	var results []result
	step := func(name string, plan func() phase) bool {
		if c.filter.MatchString(name) {
			results = append(results, c.runPhase(ctx, name, plan()))
		}
		return ctx.Err() == nil
	}
	fixed := func(args ...string) func() phase { return func() phase { return phase{args: args} } }
	if !step("properties", fixed("-skip", "^TestKnownBad", "./internal/...", "./spec/...", "./runq/...", "./steal/...", "./netpoll/...", "./kernel/...", "./proptest/...")) ||
		!step("fuzz seeds", fixed("-run", "^Fuzz", "./fuzz")) ||
		!step("explore", explore) ||
		!step("explore kernel", c.exploreKernel) {
		return results
	}
	targets, err := c.list(ctx, "^Fuzz", "./fuzz")
	if err != nil && ctx.Err() == nil {
		// Not a phase of its own, unless it fails: then no target can be fuzzed.
		r := result{phase: "fuzz targets", verdict: fail, summary: "go test -list failed", failures: []failure{{"listing the fuzz targets", err.Error()}}}
		c.prog.end(r)
		results = append(results, r)
	}
	for i, target := range targets {
		if !step("fuzz "+target, func() phase { return c.fuzz(target, len(targets)-i) }) {
			return results
		}
	}
	step("linearizability", func() phase { return c.linearizability(ctx) })
	return results
}

// explore runs the explorer build's tests of explore and netpoll but the
// seeded bugs (left to vsched mutants) as two go tests at once, the RC11
// kernel models in one and the rest in the other, which take about as
// long: a process runs one search at a time (the explorer's scheduler is
// the process's), so one go test leaves the second core idle.
func explore() phase {
	return phase{
		args: []string{"-tags", "vsched_explore", "-run", "^" + rc11KernelModels + "$", "./explore"},
		more: [][]string{{"-tags", "vsched_explore", "-skip", "^(TestKnownBad|" + rc11KernelModels + "$)", "./explore", "./netpoll"}},
	}
}

// rc11KernelModels is the test of the kernel models under RC11, almost
// half of the explore phase's time.
const rc11KernelModels = "TestKernelModelsRC11"

// exploreKernel runs the kernel models again at preemption bound 2 (the
// explore phase runs them at their default bound), each capped at 200,000
// executions, a quarter of the budget for all of them.
func (c *checker) exploreKernel() phase {
	budget := max(c.duration/exploreKernelShare, time.Second).Round(time.Second)
	return phase{budget: budget, args: []string{"-timeout", (budget + testTimeoutSlack).String(), "-tags", "vsched_explore",
		"-run", "^TestKernelModels$", "./explore", "-args", "-" + campaign.FlagKernelBound + "=2",
		"-" + campaign.FlagKernelExecutions + "=200000", "-" + campaign.FlagKernelTime + "=" + budget.String()}}
}

// fuzz fuzzes target when left targets (this one included) are still to
// run: for -fuzztime, or an even part of what is left of the fuzzers'
// share of the budget.
func (c *checker) fuzz(target string, left int) phase {
	p := phase{target: target}
	fuzztime := c.fuzztime
	if fuzztime == "" {
		p.budget = max((c.duration/fuzzShare-c.fuzzGiven)/time.Duration(max(left, 1)), time.Second).Round(time.Second)
		c.fuzzGiven += p.budget
		fuzztime = p.budget.String()
	}
	p.args = []string{"-run", "^$", "-fuzz", "^" + target + "$", "-fuzztime", fuzztime, "-fuzzminimizetime", fuzzMinimizeTime, "./fuzz"}
	return p
}

// linearizability runs the stress tests whose histories porcupine checks
// for the rest of the budget, shared evenly.
func (c *checker) linearizability(ctx context.Context) phase {
	tests, _ := c.list(ctx, "Histories", "./linearizability") // if listing fails, so does the phase, saying why
	n := time.Duration(max(len(tests), 1))
	each := max(time.Until(c.deadline)/n, minStress).Round(time.Second)
	return phase{budget: each * n, args: []string{"-timeout", (each*n + testTimeoutSlack).String(), "-skip", "^TestKnownBad", "./linearizability"},
		env: []string{campaign.EnvLinDuration + "=" + each.String(), campaign.EnvLinSeed + "=" + strconv.FormatUint(c.seed, 10)}}
}

// list returns the tests of pkg that match pattern.
func (c *checker) list(ctx context.Context, pattern, pkg string) ([]string, error) {
	out, err := goCommand(ctx, c.root, nil, "test", "-list", pattern, pkg).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s%v", out, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Fuzz") {
			names = append(names, l)
		}
	}
	return names, nil
}

// failingInput matches the line in which go test -fuzz names the input it
// wrote, relative to the fuzzed package.
var failingInput = regexp.MustCompile(`Failing input written to (testdata/fuzz/\S+)`)

func (c *checker) runPhase(ctx context.Context, name string, p phase) result {
	c.prog.begin(name)
	start := time.Now()
	// Every rapid check of the campaign draws from the campaign's seed.
	env := append([]string{"RAPID_SEED=" + strconv.FormatUint(c.seed, 10)}, p.env...)
	runs := append([][]string{p.args}, p.more...)
	tallies := make([]*tally, len(runs))
	errs := make([]error, len(runs))
	commands := make([]string, len(runs))
	cmds := make([]*exec.Cmd, len(runs))
	for i, run := range runs {
		args := append([]string{"test", "-count=1", "-json"}, run...)
		commands[i] = commandLine(env, args)
		if c.verbose {
			c.prog.line("$ " + commands[i])
		}
		tallies[i] = newTally()
		cmds[i] = goCommand(ctx, c.root, env, args...)
	}
	var mu sync.Mutex // held while a run's event is handled
	// With -v each run's output goes through its own lineWriter, so that
	// a line of one is never joined to a line of the other.
	shows := make([]*lineWriter, len(runs))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		shows[i] = &lineWriter{fn: c.prog.line}
		wg.Go(func() {
			errs[i] = runJSON(ctx, cmd, &mu, tallies[i], func(ev event) {
				c.prog.status(addUp(tallies).live())
				if c.verbose {
					shows[i].Write([]byte(ev.Output))
				}
			})
		})
	}
	wg.Wait()
	for _, show := range shows {
		show.flush()
	}
	r := addUp(tallies).judge(errors.Join(errs...))
	if p.target != "" {
		r = c.judgeFuzz(ctx, p.target, r)
	}
	r.phase, r.command, r.budget, r.dur = name, strings.Join(commands, "\n"), p.budget, time.Since(start)
	if ctx.Err() != nil && r.verdict == fail {
		// The failure is the kill's, not a finding.
		r.verdict, r.failures = interrupted, nil
	}
	c.prog.end(r)
	return r
}

// judgeFuzz says where a failing input was written, so that it can be
// committed (the fuzz seeds phase replays it from then on), and passes a
// run that failed only through the race in go test's fuzzing coordinator at
// the end of -fuzztime (golang/go#75804, fixed in Go 1.27): the target
// "fails" with nothing but "context deadline exceeded" and no input.
func (c *checker) judgeFuzz(ctx context.Context, target string, r result) result {
	for i, f := range r.failures {
		if m := failingInput.FindStringSubmatch(f.output); m != nil && ctx.Err() == nil {
			path := filepath.Join("fuzz", m[1])
			c.prog.line(fmt.Sprintf("fuzz %s: failing input written to %s", target, path))
			r.failures[i].output += "replay from the module root: go test -run=" + target + "/" + filepath.Base(path) + " ./fuzz\n"
			return r
		}
	}
	// Such a run prints nothing but the target's FAIL line and the error.
	race := regexp.MustCompile(`^(\s*(--- FAIL: ` + target + ` \(.*\)|context deadline exceeded)?\n)*$`)
	if r.verdict == fail && len(r.failures) == 1 && strings.HasPrefix(r.failures[0].title, target+" in ") &&
		strings.Contains(r.failures[0].output, "context deadline exceeded") && race.MatchString(r.failures[0].output) {
		r.verdict, r.failures = pass, nil
		r.summary += " (fuzztime deadline race in go test, golang/go#75804; no failing input)"
	}
	return r
}

// overall folds the phases' verdicts: any interruption, else any failure,
// else pass (skipped and capped phases do not fail a campaign).
func overall(results []result) verdict {
	v := pass
	for _, r := range results {
		if r.verdict == interrupted || r.verdict == fail && v == pass {
			v = r.verdict
		}
	}
	return v
}

// writeFailures prints the output of every failed phase.
func writeFailures(w io.Writer, results []result) {
	for _, r := range results {
		if r.verdict != fail {
			continue
		}
		for _, f := range r.failures {
			fmt.Fprintf(w, "\n=== FAIL %s: %s\n", r.phase, f.title)
			for _, l := range strings.Split(strings.TrimRight(f.output, "\n"), "\n") {
				fmt.Fprintln(w, strings.TrimRight("    "+l, " "))
			}
		}
	}
	fmt.Fprintln(w)
}

// writeSummary prints the table of phases, the explorer's capped searches
// and the campaign's verdict line.
func writeSummary(w io.Writer, results []result, total time.Duration, v verdict) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PHASE\tVERDICT\tTESTS (TOP-LEVEL) / EXECS\tSEARCHES\tDURATION")
	n, complete, cappedSearches := map[verdict]int{}, 0, 0
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.phase, r.verdict, r.summary, cmp.Or(coverage(r.complete, len(r.cappedIn)), "-"), formatDuration(r.dur))
		n[r.verdict]++
		complete += r.complete
		cappedSearches += len(r.cappedIn)
	}
	tw.Flush()
	for _, r := range results {
		for _, c := range r.cappedIn {
			fmt.Fprintf(w, "capped in %s: %s\n", r.phase, c)
		}
	}
	parts := []string{plural(len(results), "phase")}
	for _, v := range []verdict{fail, skip, capped} {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], map[verdict]string{fail: "failed", skip: "skipped", capped: "capped"}[v]))
		}
	}
	if complete+cappedSearches > 0 {
		parts = append(parts, fmt.Sprintf("explorer searches: %d complete, %d CAPPED", complete, cappedSearches))
	}
	fmt.Fprintf(w, "check: %s (%s, total %s)\n", v, strings.Join(parts, ", "), formatDuration(total))
}
