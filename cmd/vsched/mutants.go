package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vsched/vsched/internal/mutant"
)

// campaignVerifier is one verifier of the mutation campaign: a go test run
// in the mutated copy of the module. A mutant is killed by a verifier whose
// run fails (a failed test, a panic, an invariant's throw, a timeout) after
// the mutant built.
type campaignVerifier struct {
	name string
	tags string
	pkgs []string // package patterns; nil means the mutated package itself
	args []string // more go test flags, before the packages
	post []string // test binary flags, after -args
	env  []string
	// slow verifiers run on real cores for a fixed time or explore a
	// large bound; -fast leaves them out.
	slow bool
}

// mutantVerifiers is the verification suite each mutant faces, cheapest
// first: the fast layers of the pyramid, then the mutated package's own
// tests, then the slow verifiers, which run on real cores for a fixed time
// or explore a large bound. The explore package is split in three
// verifiers: its quicker tests (the litmus tests, the engine's own and the
// runq scenarios under SC and RC11), the kernel models under SC and the
// kernel models under RC11, so that a runq mutant does not wait for the
// models to pass before the scenarios that kill it run. The fast one
// leaves out the unbounded run of the tokio port (half a minute), whose
// bounded runs it keeps.
func mutantVerifiers() []campaignVerifier {
	const explore = "vsched_explore"
	return []campaignVerifier{
		{name: "proptest", pkgs: []string{"./proptest"}, args: []string{"-skip", "^TestKnownBad"}},
		{name: "fuzz seeds", pkgs: []string{"./fuzz"}, args: []string{"-run", "^Fuzz"}},
		{name: "explore", tags: explore, pkgs: []string{"./explore"}, args: []string{"-skip", "^(TestKnownBad|TestKernelModels(RC11)?$|TestTokioLoomQueueUnbounded$)"}},
		{name: "explore slots", tags: explore, pkgs: []string{"./netpoll"}, args: []string{"-run", "^TestWaitSlotModels(RC11)?$"}},
		{name: "explore models", tags: explore, pkgs: []string{"./explore"}, args: []string{"-run", "^TestKernelModels$"}},
		{name: "explore models rc11", tags: explore, pkgs: []string{"./explore"}, args: []string{"-run", "^TestKernelModelsRC11$"}},
		{name: "tests", args: []string{"-skip", "^TestKnownBad"}},
		{name: "stress", pkgs: []string{"./runq"}, slow: true,
			args: []string{"-run", "^(TestConcurrentStealsConsumeEveryItemExactlyOnce|TestEmptyNeverFalselyTrue)$", "-count", "5"}},
		{name: "explore kernel", tags: explore, pkgs: []string{"./explore"}, slow: true,
			args: []string{"-run", "^TestKernelModels$"}, post: []string{"-vsched.kernel-bound=2", "-vsched.kernel-executions=200000", "-vsched.kernel-time=2m"}},
		{name: "linearizability", tags: explore, pkgs: []string{"./linearizability"}, slow: true,
			args: []string{"-run", "^TestQueueHistoriesAreLinearizable$", "-count", "3"}, env: []string{"VSCHED_LIN_DURATION=20s"}},
	}
}

// verifierTimeout bounds one verifier run; a mutant that makes a test hang
// is killed by the timeout.
const verifierTimeout = "3m"

type mutantsFlags struct {
	fs       *flag.FlagSet
	run      string
	fast     bool
	all      bool
	markdown bool
	verbose  bool
}

func newMutantsFlags(out io.Writer) *mutantsFlags {
	f := &mutantsFlags{fs: flag.NewFlagSet("mutants", flag.ContinueOnError)}
	f.fs.SetOutput(out)
	f.fs.StringVar(&f.run, "run", "", "run only the mutants whose name matches `regexp`")
	f.fs.BoolVar(&f.fast, "fast", false, "leave out the slow verifiers (stress, explore kernel, linearizability) and the mutants expected to need them")
	f.fs.BoolVar(&f.all, "all", false, "run every verifier on every mutant instead of stopping at the first kill")
	f.fs.BoolVar(&f.markdown, "markdown", false, "print the kill table as Markdown (for docs/VERIFICATION.md)")
	f.fs.BoolVar(&f.verbose, "v", false, "print each go command and the output of each verifier that kills")
	f.fs.Usage = func() {
		fmt.Fprint(out, "usage: vsched mutants [-run regexp] [-fast] [-all] [-markdown] [-v]\n\n"+
			"mutants applies each seeded bug of "+mutant.PatchDir+" to a temporary copy\n"+
			"of the module and runs the verification suite against it until one verifier\n"+
			"fails: first the one its patch names in an Expect: line, then the others\n"+
			"cheapest first. It prints which verifier killed each mutant and how long that\n"+
			"took. It exits 1 if a mutant survived (unless its patch says why it is\n"+
			"equivalent to the original), was killed but not by the verifier its patch\n"+
			"expects, or its patch no longer applies or builds.\n\n")
		f.fs.PrintDefaults()
	}
	return f
}

// mutantOutcome is what the campaign found for one mutant.
type mutantOutcome struct {
	m       mutant.Mutant
	verdict string // killed, SURVIVED, equivalent, BROKEN, skipped, interrupted
	killers []string
	killIn  time.Duration // the first killing verifier's run
	total   time.Duration // every verifier run on the mutant
	tried   int
	detail  string // the failing test, or why the mutant is broken or skipped
}

func (o mutantOutcome) ok() bool {
	switch o.verdict {
	case "killed", "equivalent", "skipped":
		return true
	}
	return false
}

func runMutants(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newMutantsFlags(stderr)
	if code, done := parseFlags(f.fs, args, stderr); done {
		return code
	}
	filter, err := regexp.Compile(f.run)
	if err != nil {
		fmt.Fprintf(stderr, "vsched mutants: invalid -run: %v\n", err)
		return exitUsage
	}
	goBin := goBinary()
	root, cleanup, err := sourceRoot(ctx, goBin, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	defer cleanup()
	mutants, err := loadMutants(root)
	if err != nil {
		fmt.Fprintf(stderr, "vsched mutants: %v\n", err)
		return exitFail
	}
	mutants = slices.DeleteFunc(mutants, func(m mutant.Mutant) bool { return !filter.MatchString(m.Name) })
	if len(mutants) == 0 {
		fmt.Fprintf(stderr, "vsched mutants: -run %q matches no mutant in %s\n", f.run, mutant.PatchDir)
		return exitUsage
	}
	copyDir, err := os.MkdirTemp("", "vsched-mutants-")
	if err != nil {
		fmt.Fprintf(stderr, "vsched mutants: %v\n", err)
		return exitFail
	}
	defer os.RemoveAll(copyDir)
	if err := copyModule(root, copyDir); err != nil {
		fmt.Fprintf(stderr, "vsched mutants: copying the module: %v\n", err)
		return exitFail
	}

	prog := newProgress(stdout, isTerminal(stdout))
	mc := &mutantCampaign{goBin: goBin, dir: copyDir, fast: f.fast, all: f.all, verbose: f.verbose, prog: prog,
		artifacts: filepath.Join(copyDir, ".artifacts")}
	start := time.Now()
	var outcomes []mutantOutcome
	if err := mc.findDeps(ctx); err != nil {
		prog.close()
		fmt.Fprintf(stderr, "vsched mutants: %v\n", err)
		return exitFail
	}
	base := mc.baseline(ctx, mutants)
	if ctx.Err() != nil {
		prog.close()
		return interruptedStatus(ctx)
	}
	if len(base.failed) > 0 {
		prog.close()
		fmt.Fprintf(stdout, "\n%s\n", base.line())
		for _, f := range base.failed {
			fmt.Fprintf(stdout, "\n=== %s fails on the unmutated code: %s\n%s\n", f.verifier, f.how, indentText(f.out))
		}
		fmt.Fprintln(stdout, "mutants: FAIL (no kills counted: a verifier that fails without a mutant cannot tell that a mutant made it fail)")
		return exitFail
	}
	for _, m := range mutants {
		if ctx.Err() != nil {
			break
		}
		outcomes = append(outcomes, mc.runMutant(ctx, m))
	}
	prog.close()
	if f.markdown {
		writeKillMarkdown(stdout, outcomes)
	} else {
		writeKillTable(stdout, outcomes)
	}
	fmt.Fprintln(stdout, base.line())
	fmt.Fprintln(stdout, killVerdictLine(outcomes, time.Since(start)))
	switch {
	case ctx.Err() != nil:
		return interruptedStatus(ctx)
	case slices.ContainsFunc(outcomes, func(o mutantOutcome) bool { return !o.ok() }):
		return exitFail
	}
	return exitPass
}

// loadMutants reads the patches of the module at root, not the ones built
// into vsched, so that an installed vsched measures the clone it runs in.
func loadMutants(root string) ([]mutant.Mutant, error) {
	dir := filepath.Join(root, filepath.FromSlash(mutant.PatchDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var all []mutant.Mutant
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".patch")
		if !ok {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		m, err := mutant.Parse(name, text)
		if err != nil {
			return nil, err
		}
		if _, ok := verifierNamed(m.Expect); m.Expect != "" && !ok {
			return nil, fmt.Errorf("mutant %s: Expect: %q is not a verifier of the campaign", m.Name, m.Expect)
		}
		all = append(all, m)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("no patches in %s", dir)
	}
	return all, nil
}

// copyModule copies the module at root into dst: every file except the
// version control directory and nested modules (bench/ has its own go.mod).
func copyModule(root, dst string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if rel != "." && (d.Name() == ".git" || isFile(filepath.Join(p, "go.mod"))) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		// Owner-writable: the module cache's copies are read-only, and a
		// mutant is written over its file.
		return os.WriteFile(filepath.Join(dst, rel), data, info.Mode().Perm()|0o200)
	})
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// mutantCampaign runs the suite against mutants, one at a time, in one copy
// of the module: each mutant's files are written before its run and
// restored after it, so the build cache keeps everything the mutant did not
// touch.
type mutantCampaign struct {
	goBin     string
	dir       string
	fast      bool
	all       bool
	verbose   bool
	prog      *progress
	artifacts string
	// deps maps a verifier's name to the packages its test binaries
	// import, directly or not.
	deps map[string]map[string]bool
}

// findDeps lists, per verifier, the packages its tests depend on: a
// verifier whose tests do not import the mutated package cannot kill the
// mutant, and is not run.
func (mc *mutantCampaign) findDeps(ctx context.Context) error {
	mc.deps = map[string]map[string]bool{}
	for _, v := range mutantVerifiers() {
		if v.pkgs == nil || !slices.ContainsFunc(v.pkgs, func(p string) bool { return isDir(filepath.Join(mc.dir, p)) }) {
			continue // the mutated package's own tests, or a verifier this module lacks
		}
		args := []string{"list", "-deps", "-test"}
		if v.tags != "" {
			args = append(args, "-tags", v.tags)
		}
		cmd := exec.CommandContext(ctx, mc.goBin, append(args, v.pkgs...)...)
		cmd.Dir = mc.dir
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("go list -deps for %s: %v: %s", v.name, err, strings.TrimSpace(errOut.String()))
		}
		set := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			set[p] = true
		}
		mc.deps[v.name] = set
	}
	return nil
}

func (mc *mutantCampaign) relevant(v campaignVerifier, m mutant.Mutant) bool {
	if v.slow && mc.fast {
		return false
	}
	if v.pkgs == nil {
		return true
	}
	return mc.deps[v.name][path.Join(modulePath, m.Pkg())]
}

func (mc *mutantCampaign) runMutant(ctx context.Context, m mutant.Mutant) mutantOutcome {
	o := mutantOutcome{m: m}
	mc.prog.begin(m.Name)
	defer func() {
		r := result{phase: m.Name, verdict: pass, summary: o.verdict, dur: o.total}
		if !o.ok() {
			r.verdict = fail
		}
		if len(o.killers) > 0 {
			r.summary += " by " + strings.Join(o.killers, ", ") + " in " + formatDuration(o.killIn)
		}
		if o.detail != "" {
			r.summary += ": " + o.detail
		}
		mc.prog.end(r)
	}()
	if v, ok := verifierNamed(m.Expect); ok {
		switch {
		case v.slow && mc.fast:
			o.verdict, o.detail = "skipped", "expects the slow verifier "+m.Expect
			return o
		case !mc.relevant(v, m):
			o.verdict, o.detail = "BROKEN", "its patch expects "+m.Expect+", which does not test package "+m.Pkg()
			return o
		}
	}
	restore, err := mc.apply(m)
	defer restore()
	if err != nil {
		o.verdict, o.detail = "BROKEN", err.Error()
		return o
	}
	if why := mc.build(ctx, m); why != "" {
		o.verdict, o.detail = "BROKEN", why
		return o
	}
	start := time.Now()
	for _, v := range verifierOrder(m) {
		if ctx.Err() != nil {
			o.verdict = "interrupted"
			return o
		}
		if !mc.relevant(v, m) {
			continue
		}
		o.tried++
		mc.prog.status(fmt.Sprintf("%s (verifier %d)", v.name, o.tried))
		vstart := time.Now()
		killed, how, out := mc.runVerifier(ctx, v, m)
		if ctx.Err() != nil {
			o.verdict = "interrupted"
			return o
		}
		if how == "BROKEN" {
			o.verdict, o.detail = "BROKEN", "the tests of "+v.name+" do not build with the mutant"
			mc.prog.line(out)
			return o
		}
		if !killed {
			continue
		}
		if len(o.killers) == 0 {
			o.killIn, o.detail = time.Since(vstart), how
		}
		o.killers = append(o.killers, v.name)
		if mc.verbose {
			mc.prog.line(out)
		}
		if !mc.all {
			break
		}
	}
	o.total = time.Since(start)
	switch {
	case len(o.killers) > 0 && m.Equivalent != "":
		o.verdict = "BROKEN"
		o.detail = "killed, but its patch says it is equivalent: " + m.Equivalent
	case len(o.killers) > 0 && m.Expect != "" && !slices.Contains(o.killers, m.Expect):
		o.verdict = "BROKEN"
		o.detail = "its patch expects " + m.Expect + ", which did not kill it; " + o.detail
	case len(o.killers) > 0:
		o.verdict = "killed"
	case m.Equivalent != "":
		o.verdict, o.detail = "equivalent", m.Equivalent
	default:
		o.verdict = "SURVIVED"
	}
	return o
}

// baselineResult is what the verifiers said of the unmutated copy.
type baselineResult struct {
	passed []string // the verifiers that passed
	failed []baselineFailure
	dur    time.Duration
}

type baselineFailure struct{ verifier, how, out string }

// line is the baseline's line of the campaign's output, e.g. "baseline:
// 9 verifiers pass on the unmutated code (2m3s)".
func (b baselineResult) line() string {
	if len(b.failed) > 0 {
		var names []string
		for _, f := range b.failed {
			names = append(names, f.verifier)
		}
		return fmt.Sprintf("baseline: FAIL: %s fail on the unmutated code (%s)", strings.Join(names, ", "), formatDuration(b.dur))
	}
	return fmt.Sprintf("baseline: %s pass on the unmutated code: %s (%s)", plural(len(b.passed), "verifier"), strings.Join(b.passed, ", "), formatDuration(b.dur))
}

// baseline runs, on the unmutated copy, every verifier that some of the
// mutants will face: a kill counts only if the verifier passes without
// the mutant. A verifier that tests the mutated package itself runs on
// every package the mutants touch.
func (mc *mutantCampaign) baseline(ctx context.Context, mutants []mutant.Mutant) baselineResult {
	start := time.Now()
	mc.prog.begin("baseline")
	var b baselineResult
	var own []string // the mutated packages, as go test patterns
	for _, m := range mutants {
		if p := "./" + m.Pkg(); !slices.Contains(own, p) {
			own = append(own, p)
		}
	}
	for _, v := range mutantVerifiers() {
		if !slices.ContainsFunc(mutants, func(m mutant.Mutant) bool { return mc.relevant(v, m) }) {
			continue
		}
		mc.prog.status(v.name)
		// A verifier of the mutated package runs on each package alone:
		// a package of the explorer build only makes go test refuse the
		// others too in the default build.
		runs := [][]string{nil}
		if v.pkgs == nil {
			runs = runs[:0]
			for _, p := range own {
				runs = append(runs, []string{p})
			}
		}
		var bad *baselineFailure
		for _, pkgs := range runs {
			failed, how, out := mc.runGoTest(ctx, v, pkgs)
			if ctx.Err() != nil {
				break
			}
			if failed || how != "" {
				bad = &baselineFailure{v.name, how, out}
				break
			}
		}
		switch {
		case ctx.Err() != nil:
		case bad != nil:
			b.failed = append(b.failed, *bad)
		default:
			b.passed = append(b.passed, v.name)
		}
	}
	b.dur = time.Since(start)
	r := result{phase: "baseline", verdict: pass, summary: plural(len(b.passed), "verifier") + " pass", dur: b.dur}
	if len(b.failed) > 0 {
		r.verdict, r.summary = fail, fmt.Sprintf("%d of %d verifiers fail", len(b.failed), len(b.failed)+len(b.passed))
	}
	mc.prog.end(r)
	return b
}

// indentText indents every line of s by four spaces.
func indentText(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// verifierNamed returns the campaign's verifier called name, if there is one.
func verifierNamed(name string) (campaignVerifier, bool) {
	vs := mutantVerifiers()
	if i := slices.IndexFunc(vs, func(v campaignVerifier) bool { return v.name == name }); i >= 0 {
		return vs[i], true
	}
	return campaignVerifier{}, false
}

// verifierOrder is the order in which m faces the verifiers: the one its
// patch expects to kill it first, then the others cheapest first. Naming
// the killer in the patch spares the campaign the cheaper verifiers that
// pass, which is most of its time; a patch whose expected verifier does not
// kill it is reported, so the names stay true.
func verifierOrder(m mutant.Mutant) []campaignVerifier {
	vs := mutantVerifiers()
	if i := slices.IndexFunc(vs, func(v campaignVerifier) bool { return v.name == m.Expect }); i > 0 {
		expected := vs[i]
		vs = append([]campaignVerifier{expected}, slices.Delete(vs, i, i+1)...)
	}
	return vs
}

// apply writes m's mutated files into the copy and returns the function
// that puts the originals back.
func (mc *mutantCampaign) apply(m mutant.Mutant) (restore func(), err error) {
	originals := map[string][]byte{}
	restore = func() {
		for f, data := range originals {
			_ = os.WriteFile(filepath.Join(mc.dir, filepath.FromSlash(f)), data, 0o644)
		}
	}
	mutated, err := m.Apply(mc.dir)
	if err != nil {
		return restore, err
	}
	for f, data := range mutated {
		p := filepath.Join(mc.dir, filepath.FromSlash(f))
		orig, err := os.ReadFile(p)
		if err != nil {
			return restore, err
		}
		originals[f] = orig
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return restore, err
		}
	}
	return restore, nil
}

// build compiles the mutated package in both builds (a package that exists
// in one build only, as the explorer's engine, is compiled in that one); a
// mutant that does not compile says nothing about the verifiers.
func (mc *mutantCampaign) build(ctx context.Context, m mutant.Mutant) string {
	for _, tags := range []string{"", "vsched_explore"} {
		args := []string{"build"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		cmd := exec.CommandContext(ctx, mc.goBin, append(args, "./"+m.Pkg())...)
		cmd.Dir = mc.dir
		out, err := cmd.CombinedOutput()
		if err != nil && ctx.Err() == nil && !strings.Contains(string(out), "build constraints exclude all Go files") {
			return "does not build: " + firstLine(string(out))
		}
	}
	return ""
}

// runVerifier runs v against the mutant in the copy. It reports whether v
// killed it, how (the first failed test, or the panic), and v's output.
func (mc *mutantCampaign) runVerifier(ctx context.Context, v campaignVerifier, m mutant.Mutant) (killed bool, how, out string) {
	return mc.runGoTest(ctx, v, []string{"./" + m.Pkg()})
}

// runGoTest runs v in the copy as it stands, with own as the packages of
// a verifier that tests the mutated package itself. It reports whether v
// failed, how, and its output.
func (mc *mutantCampaign) runGoTest(ctx context.Context, v campaignVerifier, own []string) (failed bool, how, out string) {
	args := []string{"test", "-count=1", "-failfast", "-timeout", verifierTimeout}
	if v.tags != "" {
		args = append(args, "-tags", v.tags)
	}
	args = append(args, v.args...)
	if v.pkgs == nil {
		args = append(args, own...)
	} else {
		args = append(args, v.pkgs...)
	}
	if len(v.post) > 0 {
		args = append(append(args, "-args"), v.post...)
	}
	cmd := exec.CommandContext(ctx, mc.goBin, args...)
	cmd.Dir = mc.dir
	// A failing rapid check would write a fail file into the copy, and a
	// failing history its visualization; both are the mutant's, not news.
	// Nor is the shortest counterexample: shrinking stops after a second.
	cmd.Env = append(append(os.Environ(), "RAPID_NOFAILFILE=true", "RAPID_SHRINKTIME=1s", "VSCHED_ARTIFACTS="+mc.artifacts), v.env...)
	stopOnCancel(cmd)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if mc.verbose {
		mc.prog.line("$ go " + strings.Join(quoteArgs(args), " "))
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		killLeftovers(cmd)
	}
	out = buf.String()
	if err == nil {
		return false, "", out
	}
	if strings.Contains(out, "build constraints exclude all Go files") {
		return false, "", out // a package of the explorer build only: not this verifier's
	}
	if strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]") {
		return false, "BROKEN", out
	}
	return true, killSymptom(out), out
}

// killSymptom picks the line of a failed go test run that says what failed:
// the first failed subtest (the most specific name), else the first failed
// test, else the timeout or the panic.
func killSymptom(out string) string {
	lines := strings.Split(out, "\n")
	var failed []string
	for _, l := range lines {
		if name, ok := strings.CutPrefix(strings.TrimSpace(l), "--- FAIL: "); ok {
			name, _, _ = strings.Cut(name, " (")
			failed = append(failed, name)
		}
	}
	if i := slices.IndexFunc(failed, func(n string) bool { return strings.Contains(n, "/") }); i >= 0 {
		return truncate(failed[i], 72)
	}
	if len(failed) > 0 {
		return truncate(failed[0], 72)
	}
	for _, prefix := range []string{"panic: test timed out", "fatal error: ", "panic: "} {
		for _, l := range lines {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) {
				return truncate(l, 72)
			}
		}
	}
	return "go test failed"
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return truncate(l, 100)
		}
	}
	return strings.TrimSpace(s)
}

// killers names the verifiers that killed o, each with its tier: fast, or
// slow (left out by -fast).
func killers(o mutantOutcome) string {
	var out []string
	for _, k := range o.killers {
		tier := "fast"
		if v, ok := verifierNamed(k); ok && v.slow {
			tier = "slow"
		}
		out = append(out, k+" ("+tier+")")
	}
	return strings.Join(out, ", ")
}

// writeKillTable prints one row per mutant.
func writeKillTable(w io.Writer, outcomes []mutantOutcome) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "MUTANT\tPACKAGE\tVERDICT\tKILLED BY\tIN\tHOW")
	for _, o := range outcomes {
		by, in := "-", "-"
		if len(o.killers) > 0 {
			by, in = killers(o), formatDuration(o.killIn)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", o.m.Name, o.m.Pkg(), o.verdict, by, in, o.detail)
	}
	tw.Flush()
}

// writeKillMarkdown prints the kill table as a Markdown table.
func writeKillMarkdown(w io.Writer, outcomes []mutantOutcome) {
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| mutant | package | what it breaks | verdict | killed by | in | how |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, o := range outcomes {
		by, in := "—", "—"
		if len(o.killers) > 0 {
			by, in = killers(o), formatDuration(o.killIn)
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %s | %s | %s | %s |\n", o.m.Name, o.m.Pkg(), cell(o.m.Doc), o.verdict, by, in, cell(o.detail))
	}
	fmt.Fprintln(w)
}

// killVerdictLine is the campaign's last line, e.g.
// "mutants: PASS (31 mutants: 30 killed, 1 equivalent; total 6m2s)".
func killVerdictLine(outcomes []mutantOutcome, total time.Duration) string {
	counts := map[string]int{}
	var order []string
	v := "PASS"
	for _, o := range outcomes {
		if counts[o.verdict] == 0 {
			order = append(order, o.verdict)
		}
		counts[o.verdict]++
		if !o.ok() {
			v = "FAIL"
		}
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], strings.ToLower(k)))
	}
	return fmt.Sprintf("mutants: %s (%s: %s; total %s)", v, plural(len(outcomes), "mutant"), strings.Join(parts, ", "), formatDuration(total))
}
