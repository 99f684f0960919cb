package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/vsched/vsched/internal/campaign"
	"github.com/vsched/vsched/internal/mutant"
)

// mutantVerifier is one verifier of the mutation campaign: a go test in the
// module root with the mutant substituted through -overlay. It kills a
// mutant that builds when it fails (a test, a panic, a throw, a timeout).
type mutantVerifier struct {
	name string
	tags string
	pkgs []string // package patterns; nil means the mutated package itself
	args []string // go test flags, before the packages
	post []string // test binary flags, after -args
	env  []string
	slow bool // runs on real cores for a fixed time or explores a large bound; -fast leaves it out
	// knownBad marks the known-bad tests of a verifier: they check that
	// it reports seeded bugs (of the library, and for the explorer's
	// reduction of the explorer), each in a go test of its own. They
	// face only a mutant of the verification code (see
	// [mutantCampaign.verification]), which those runs build under
	// ([mutant.EnvOverlay]): such a mutant is killed when the mutated
	// verifier stops reporting a bug it must report. Their runs wait for
	// each other on a machine-wide lock, so a timeout of theirs says
	// nothing about the mutant: it is no kill, and the mutant's verdict
	// is BROKEN unless another verifier kills it.
	knownBad bool
	// timeout is go test's -timeout: 0 means 3 minutes, 6 when slow.
	// The kernel model suites get longer: their length is set by their
	// execution caps, not by a hang (the explorer reports a deadlock or a
	// livelock itself), and the RC11 suite alone takes about two and a
	// half minutes on 2 cores, so that on a loaded machine 3 minutes
	// would kill an unmodified or an equivalent run; so does explore,
	// whose group models take more than a minute. The known-bad suites
	// get room for every seeded bug's run to go its whole length when the
	// mutated verifier reports none, and for waiting on another mutant's.
	timeout time.Duration
	// baselineFirst orders the baseline's runs: the suites whose whole
	// run takes minutes (the model searches) have it set, higher for
	// longer, and start first, so that on few CPUs the short suites run
	// beside them rather than one long suite alone at the end.
	baselineFirst int
}

// mutantVerifiers is the suite each mutant faces, cheapest first. explore
// is split so that a runq mutant does not wait for the kernel models; its
// fast part leaves out the tokio port's unbounded run (half a minute).
func mutantVerifiers() []mutantVerifier {
	const explore = "vsched_explore"
	return []mutantVerifier{
		{name: "proptest", pkgs: []string{"./proptest"}, args: []string{"-skip", "^TestKnownBad"}},
		{name: "fuzz seeds", pkgs: []string{"./fuzz"}, args: []string{"-run", "^Fuzz"}},
		{name: "explore", tags: explore, pkgs: []string{"./explore"}, args: []string{"-skip", "^(TestKnownBad|TestKernelModels(RC11)?$|TestTokioLoomQueueUnbounded$)"}, timeout: 10 * time.Minute, baselineFirst: 2},
		{name: "explore slots", tags: explore, pkgs: []string{"./netpoll"}, args: []string{"-run", "^TestWaitSlotModels(RC11)?$"}},
		{name: "explore models", tags: explore, pkgs: []string{"./explore"}, args: []string{"-run", "^TestKernelModels$"}, timeout: 10 * time.Minute, baselineFirst: 1},
		{name: "explore models rc11", tags: explore, pkgs: []string{"./explore"}, args: []string{"-run", "^TestKernelModelsRC11$"}, timeout: 10 * time.Minute, baselineFirst: 3},
		{name: "tests", args: []string{"-skip", "^TestKnownBad"}},
		{name: "known-bad proptest", knownBad: true, pkgs: []string{"./proptest"}, args: []string{"-run", "^TestKnownBad"}, timeout: 10 * time.Minute},
		{name: "known-bad linearizability", knownBad: true, tags: explore, pkgs: []string{"./linearizability"}, args: []string{"-run", "^TestKnownBad"}, timeout: 10 * time.Minute},
		{name: "known-bad explore", knownBad: true, tags: explore, pkgs: []string{"./explore"}, args: []string{"-run", "^TestKnownBad"}, timeout: 20 * time.Minute},
		// The mutated package's stress and concurrency tests under the
		// race detector, three times: a write or read the explorer cannot
		// see (it switches threads only at synchronizing operations)
		// shows there as a race, whenever the other access is on another
		// goroutine.
		{name: "race", slow: true, args: []string{"-race", "-run", "^(TestStress|TestConcurrent)", "-skip", "^TestKnownBad", "-count", "3"}},
		{name: "stress", pkgs: []string{"./runq"}, slow: true,
			args: []string{"-run", "^(TestConcurrentStealsConsumeEveryItemExactlyOnce|TestEmptyNeverFalselyTrue)$", "-count", "5"}},
		{name: "explore kernel", tags: explore, pkgs: []string{"./explore"}, slow: true, args: []string{"-run", "^TestKernelModels$"},
			post: []string{"-" + campaign.FlagKernelBound + "=2", "-" + campaign.FlagKernelExecutions + "=200000", "-" + campaign.FlagKernelTime + "=2m"}},
		{name: "linearizability", tags: explore, pkgs: []string{"./linearizability"}, slow: true,
			args: []string{"-run", "^TestQueueHistoriesAreLinearizable$", "-count", "3"}, env: []string{campaign.EnvLinDuration + "=20s"}},
	}
}

const mutantsDoc = `usage: vsched mutants [-run regexp] [-fast] [-all] [-shard k/n] [-markdown] [-v]

mutants substitutes each seeded bug of ` + mutant.PatchDir + ` for the
real file (go build -overlay) and runs the verifiers, which must all pass
without it, until one fails: first the one its patch names in an Expect:
line (its Test: alone first, unless -all), then the others cheapest first;
a patch without Expect: of a package outside the library faces that
package's own tests first. GOMAXPROCS mutants at once. A mutant of the
verification code (the specification, the property tests, the explorer,
the linearizability checker) also faces the verifiers' known-bad tests,
whose runs build it under each of their own seeded bugs. -shard k/n runs
a part of the mutants: in name order, the k-th and every n-th after it,
so that n runs with k from 1 to n run each mutant once. It prints which
verifier killed each mutant, and exits 1 if a mutant survived (unless its
patch says it is equivalent), was killed but not as its patch expects, or
does not build.
`

// mutantOutcome is what the campaign found for one mutant.
type mutantOutcome struct {
	m         mutant.Mutant
	verdict   string // killed, SURVIVED, equivalent, BROKEN, skipped, interrupted
	killers   []string
	noVerdict []string      // known-bad verifiers that timed out
	killIn    time.Duration // the first killing verifier's run
	detail    string        // the failing test, or why the mutant is broken or skipped
	dur       time.Duration // the mutant's whole run
}

// result is o's line in the campaign's progress.
func (o mutantOutcome) result() result {
	r := result{phase: o.m.Name, verdict: pass, summary: o.verdict, dur: o.dur}
	if !o.ok() {
		r.verdict = fail
	}
	if len(o.killers) > 0 {
		r.summary += " by " + strings.Join(o.killers, ", ") + " in " + formatDuration(o.killIn)
	}
	if o.detail != "" {
		r.summary += ": " + o.detail
	}
	return r
}

func (o mutantOutcome) ok() bool {
	return o.verdict == "killed" || o.verdict == "equivalent" || o.verdict == "skipped"
}

func runMutants(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("mutants", mutantsDoc, stderr)
	runRE := fs.String("run", "", "run only the mutants whose name matches `regexp`")
	fast := fs.Bool("fast", false, "leave out the slow verifiers (race, stress, explore kernel, linearizability) and the mutants expected to need them, and only build an equivalent mutant")
	all := fs.Bool("all", false, "run every verifier, its whole suite, on every mutant instead of stopping at the first kill")
	markdown := fs.Bool("markdown", false, "print the kill table as Markdown (for docs/VERIFICATION.md)")
	verbose := fs.Bool("v", false, "print each go command and the output of each verifier that kills")
	shardFlag := fs.String("shard", "", "run only the k-th of n shards of the mutants (`k/n`): in name order, every n-th from the k-th")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	filter, err := regexp.Compile(*runRE)
	if err != nil {
		return complain(stderr, exitUsage, "vsched mutants: invalid -run: %v", err)
	}
	sh, err := parseShard(*shardFlag)
	if err != nil {
		return complain(stderr, exitUsage, "vsched mutants: %v", err)
	}
	root, err := moduleRoot(ctx)
	if err == nil {
		// One name for every file: the campaign's go commands run in the
		// real directory (see goCommand), and the overlays and go list's
		// output name files by it.
		root, err = filepath.EvalSymlinks(root)
	}
	var mutants []mutant.Mutant
	if err == nil {
		mutants, err = loadMutants(root)
	}
	tmp := "" // the overlays and the verifiers' artifacts
	if err == nil {
		tmp, err = os.MkdirTemp("", "vsched-mutants-")
		defer os.RemoveAll(tmp)
	}
	if err != nil {
		return complain(stderr, exitFail, "vsched mutants: %v", err)
	}
	total := len(mutants)
	mutants = sh.of(mutants)
	mutants = slices.DeleteFunc(mutants, func(m mutant.Mutant) bool { return !filter.MatchString(m.Name) })
	if len(mutants) == 0 {
		return complain(stderr, exitUsage, "vsched mutants: -run %q matches no mutant of %s in %s", *runRE, sh, mutant.PatchDir)
	}

	start := time.Now()
	mc := &mutantCampaign{root: root, tmp: tmp, fast: *fast, all: *all, verbose: *verbose, prog: newProgress(stdout)}
	defer mc.prog.close() // no status line is left after a phase ends; the kill table closes it first
	if err := mc.findDeps(ctx); err != nil {
		return complain(stderr, exitFail, "vsched mutants: %v", err)
	}
	passed, failed := mc.baseline(ctx, mutants)
	baseLine := fmt.Sprintf("baseline: the named tests of %s pass on the unmutated code: %s (%s)", plural(len(passed), "verifier"), strings.Join(passed, ", "), formatDuration(time.Since(start)))
	if ctx.Err() != nil {
		return interruptedStatus(ctx)
	}
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "\nbaseline: FAIL: the named tests of %s fail on the unmutated code\n", strings.Join(slices.Sorted(maps.Keys(failed)), ", "))
		for _, name := range slices.Sorted(maps.Keys(failed)) {
			fmt.Fprintf(stdout, "\n=== %s fails on the unmutated code: %s\n", name, failed[name])
		}
		fmt.Fprintln(stdout, "mutants: FAIL (no kills counted: a verifier that fails without a mutant cannot tell that a mutant made it fail)")
		return exitFail
	}
	var outcomes []mutantOutcome
	inOrder(ctx, len(mutants), runtime.GOMAXPROCS(0), func(i int) mutantOutcome { return mc.runMutant(ctx, mutants[i]) },
		func(i int) { mc.prog.begin(mutants[i].Name) },
		func(i int, o mutantOutcome) {
			mc.prog.end(o.result())
			outcomes = append(outcomes, o)
		})
	mc.prog.close()
	writeKillTable(stdout, outcomes, *markdown)
	fmt.Fprintln(stdout, baseLine)
	if l := mc.wholeBaselineLine(); l != "" {
		fmt.Fprintln(stdout, l)
	}
	if sh.n > 1 {
		fmt.Fprintf(stdout, "shard %s: %d of the %d mutants ran (the others are in the other shards)\n", sh, len(outcomes), total)
	}
	fmt.Fprintln(stdout, killVerdictLine(outcomes, time.Since(start)))
	switch {
	case ctx.Err() != nil:
		return interruptedStatus(ctx)
	case slices.ContainsFunc(outcomes, func(o mutantOutcome) bool { return !o.ok() }):
		return exitFail
	}
	return exitPass
}

// A shard is the part of the mutants that -shard k/n selects: in name
// order (the order loadMutants gives), the k-th, and every n-th after it.
// 1/1 is every mutant.
type shard struct{ k, n int }

// parseShard reads -shard's k/n; "" is every mutant.
func parseShard(s string) (shard, error) {
	if s == "" {
		return shard{1, 1}, nil
	}
	var sh shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.k, &sh.n); err != nil || sh.n < 1 || sh.k < 1 || sh.k > sh.n || fmt.Sprint(sh) != s {
		return shard{}, fmt.Errorf("invalid -shard %q: want k/n with 1 <= k <= n", s)
	}
	return sh, nil
}

// of returns the mutants of the shard, out of all of them in name order.
func (sh shard) of(mutants []mutant.Mutant) []mutant.Mutant {
	var in []mutant.Mutant
	for i, m := range mutants {
		if i%sh.n == sh.k-1 {
			in = append(in, m)
		}
	}
	return in
}

// String returns the shard as -shard takes it.
func (sh shard) String() string { return fmt.Sprintf("%d/%d", sh.k, sh.n) }

// loadMutants reads the patches of the module at root (not the ones built
// into vsched), and checks that each Expect: names a verifier.
func loadMutants(root string) ([]mutant.Mutant, error) {
	all, err := mutant.Load(os.DirFS(root), mutant.PatchDir)
	for _, m := range all {
		if _, ok := verifierNamed(m.Expect); m.Expect != "" && !ok {
			return nil, fmt.Errorf("mutant %s: Expect: %q is not a verifier of the campaign", m.Name, m.Expect)
		}
	}
	return all, err
}

func verifierNamed(name string) (mutantVerifier, bool) {
	vs := mutantVerifiers()
	if i := slices.IndexFunc(vs, func(v mutantVerifier) bool { return v.name == name }); i >= 0 {
		return vs[i], true
	}
	return mutantVerifier{}, false
}

// verifierOrder is the order in which m faces the verifiers: the one its
// patch expects to kill it first (which spares the campaign the cheaper
// verifiers that pass, most of its time), then the others cheapest first.
// A patch that expects none (a blind review's) whose package is no part of
// the library (ownFirst: the checker, the explorer, the specification)
// faces that package's own tests first: they are its nearest check and
// take seconds, where the explorer's suites, which import the checker and
// the specification, take minutes.
func verifierOrder(m mutant.Mutant, ownFirst bool) []mutantVerifier {
	vs := mutantVerifiers()
	first := m.Expect
	if first == "" && ownFirst {
		first = "tests"
	}
	if i := slices.IndexFunc(vs, func(v mutantVerifier) bool { return v.name == first }); i > 0 {
		expected := vs[i]
		vs = append([]mutantVerifier{expected}, slices.Delete(vs, i, i+1)...)
	}
	return vs
}

// libraryPkg reports whether dir, relative to the root, holds a file of
// the library.
func (mc *mutantCampaign) libraryPkg(dir string) bool {
	for f := range mc.library {
		if path.Dir(f) == dir {
			return true
		}
	}
	return false
}

// ownTestsFirst reports whether a patch without Expect faces its own
// package's tests first (verifierOrder): where that package is no part of
// the library and the default build compiles a file it patches. Not for a
// package of the explorer's build alone, whose default-build test run
// would find no file and pass.
func (mc *mutantCampaign) ownTestsFirst(m mutant.Mutant) bool {
	return !mc.libraryPkg(m.Pkg()) && slices.ContainsFunc(m.Files, func(f string) bool { return mc.built[""][f] })
}

// mutantCampaign runs the suite against the mutants.
type mutantCampaign struct {
	root, tmp          string // tmp holds the overlays and the verifiers' artifacts
	fast, all, verbose bool
	prog               *progress
	// deps maps a verifier's name to the packages its tests import, directly
	// or not: one whose tests do not import the mutated package is not run.
	deps map[string]map[string]bool
	// library holds the files of the library, which a program that imports
	// package kernel builds, and built the files, test files too, that each
	// build (by its tags) compiles: paths relative to root, with slashes.
	library map[string]bool
	built   map[string]map[string]bool
	// named holds the first runs of mutants that the baseline covered:
	// a verifier, the packages it tests and a test a Test: line names
	// (namedKey). Written before the mutants run.
	named map[string]bool
	// whole holds the runs of whole suites on the unmutated code, each
	// made when a mutant first reaches that suite (see wholeBaseline).
	whole sync.Map // verifier name and packages -> *wholeBaseline
}

// wholeBaseline is a verifier's whole suite run on the unmutated code,
// made once, when the first mutant reaches it: most mutants are killed by
// the test their patch names, and the explorer's suites take minutes. No
// kill of the suite counts before it has passed.
type wholeBaseline struct {
	once sync.Once
	how  string // how it failed (its output is printed once); "" if it passed
	dur  time.Duration
}

// wholeBaselineOf returns the baseline of v's whole suite on the packages
// it tests (own, for a verifier of the mutated package itself), running
// it the first time.
func (mc *mutantCampaign) wholeBaselineOf(ctx context.Context, v mutantVerifier, own []string) *wholeBaseline {
	b, _ := mc.whole.LoadOrStore(suiteName(v, own), &wholeBaseline{})
	wb := b.(*wholeBaseline)
	wb.once.Do(func() {
		start := time.Now()
		killed, how, out := mc.goTest(ctx, v, own, "")
		switch {
		case ctx.Err() != nil:
			wb.how = "interrupted"
		case killed || how != "":
			wb.how = how
			mc.prog.line("=== " + suiteName(v, own) + " fails on the unmutated code: " + how + "\n    " + strings.ReplaceAll(strings.TrimRight(out, "\n"), "\n", "\n    "))
		}
		wb.dur = time.Since(start)
	})
	return wb
}

// suiteName is the name of v's suite on own: v's name, followed by the
// packages when v tests the mutated package itself.
func suiteName(v mutantVerifier, own []string) string {
	if v.pkgs != nil {
		return v.name
	}
	return v.name + " of " + strings.Join(own, " ")
}

// wholeBaselineLine says which whole suites ran on the unmutated code,
// and how long each took, or "" if none did.
func (mc *mutantCampaign) wholeBaselineLine() string {
	var parts []string
	mc.whole.Range(func(name, b any) bool {
		wb := b.(*wholeBaseline)
		verdict := "passes"
		if wb.how != "" {
			verdict = "FAILS"
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s)", name, verdict, formatDuration(wb.dur)))
		return true
	})
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	return "baseline of whole suites, each run when a mutant first reached it: " + strings.Join(parts, ", ")
}

func (mc *mutantCampaign) findDeps(ctx context.Context) error {
	var err error
	if mc.library, err = mc.goFiles(ctx, "", false, "-deps", "./kernel"); err != nil {
		return err
	}
	if len(mc.library) == 0 {
		return fmt.Errorf("go list -deps ./kernel names no file under %s", mc.root)
	}
	mc.built = map[string]map[string]bool{}
	for _, v := range mutantVerifiers() {
		if mc.built[v.tags] == nil {
			if mc.built[v.tags], err = mc.goFiles(ctx, v.tags, true, "./..."); err != nil {
				return err
			}
		}
	}
	mc.deps = map[string]map[string]bool{}
	for _, v := range mutantVerifiers() {
		if v.pkgs == nil {
			continue
		}
		out, err := goCommand(ctx, mc.root, nil, append([]string{"list", "-deps", "-test", "-tags", v.tags}, v.pkgs...)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("go list -deps for %s: %v: %s", v.name, err, out)
		}
		mc.deps[v.name] = map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			mc.deps[v.name][p] = true
		}
	}
	return nil
}

// goFiles returns the Go files (with tests, their test files too) of the
// module's packages that go list gives for args in the build of tags,
// relative to the module root.
func (mc *mutantCampaign) goFiles(ctx context.Context, tags string, tests bool, args ...string) (map[string]bool, error) {
	format := "{{.Dir}}{{range .GoFiles}}\t{{.}}{{end}}"
	if tests {
		format += "{{range .TestGoFiles}}\t{{.}}{{end}}{{range .XTestGoFiles}}\t{{.}}{{end}}"
	}
	out, err := goCommand(ctx, mc.root, nil, append([]string{"list", "-tags", tags, "-f", format}, args...)...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list %s: %v", strings.Join(args, " "), err)
	}
	files := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, "\t")
		dir, err := filepath.Rel(mc.root, f[0])
		if err != nil || !filepath.IsLocal(dir) && dir != "." {
			continue // outside the module
		}
		for _, name := range f[1:] {
			files[path.Join(filepath.ToSlash(dir), name)] = true
		}
	}
	return files, nil
}

func (mc *mutantCampaign) relevant(v mutantVerifier, m mutant.Mutant) bool {
	if v.knownBad && !(mc.verification(m) && slices.ContainsFunc(m.Files, func(f string) bool { return mc.built[v.tags][f] })) {
		return false
	}
	return !(v.slow && mc.fast) && (v.pkgs == nil || mc.deps[v.name][path.Join(modulePath, m.Pkg())])
}

// verification reports whether m changes only code that verifies the
// library and is no part of it: the specification, the property tests,
// the explorer, the linearizability checker, and the library's files of
// other builds (the explorer's, the race detector's; no known-bad suite
// builds a file of the race build alone). The known-bad tests face such a
// mutant and no other. They would report a mutant of the library in
// another way: a known-bad run builds its seeded bug over it, and two bugs
// at once fail as neither alone does.
func (mc *mutantCampaign) verification(m mutant.Mutant) bool {
	return !slices.ContainsFunc(m.Files, func(f string) bool { return mc.library[f] })
}

// A namedRun is a run of the baseline: the tests of verifier v on pkgs
// that the mutants' Test: lines name for their first run (see killers).
type namedRun struct {
	v     mutantVerifier
	pkgs  []string
	tests []string
}

// namedKey says that m's first run, of its Test: alone with v on pkgs,
// is covered by a run of the baseline.
func namedKey(v mutantVerifier, pkgs []string, test string) string {
	return v.name + "\x00" + strings.Join(pkgs, " ") + "\x00" + test
}

// firstRun returns the verifier that runs m's named test alone first (see
// killers), with the packages it tests, and false when there is none: m
// names no test, -all ignores it, or m faces no verifier (runMutant).
func (mc *mutantCampaign) firstRun(m mutant.Mutant) (mutantVerifier, []string, bool) {
	v, ok := verifierNamed(m.Expect)
	if m.Test == "" || mc.all || !ok || v.slow && mc.fast || m.Equivalent != "" && mc.fast || !mc.relevant(v, m) {
		return mutantVerifier{}, nil, false
	}
	if v.pkgs != nil {
		return v, v.pkgs, true
	}
	return v, []string{"./" + m.Pkg()}, true
}

// namedRuns gathers the runs of the baseline: per verifier and packages,
// the named tests of the mutants' first runs.
func (mc *mutantCampaign) namedRuns(mutants []mutant.Mutant) []namedRun {
	var runs []namedRun
	for _, m := range mutants {
		v, pkgs, ok := mc.firstRun(m)
		if !ok {
			continue
		}
		i := slices.IndexFunc(runs, func(r namedRun) bool { return r.v.name == v.name && slices.Equal(r.pkgs, pkgs) })
		if i < 0 {
			runs, i = append(runs, namedRun{v: v, pkgs: pkgs}), len(runs)
		}
		if !slices.Contains(runs[i].tests, m.Test) {
			runs[i].tests = append(runs[i].tests, m.Test)
		}
	}
	return runs
}

// testsPattern returns a go test -run pattern that matches every test
// named in names (as go test names them, a subtest after a slash), and
// may match others: level by level, the names' elements at that level,
// down to the shallowest name's depth, below which every subtest runs.
func testsPattern(names []string) string {
	depth := 0
	for i, n := range names {
		if d := strings.Count(n, "/") + 1; i == 0 || d < depth {
			depth = d
		}
	}
	levels := make([]string, depth)
	for l := range levels {
		var alts []string
		for _, n := range names {
			if q := regexp.QuoteMeta(strings.Split(n, "/")[l]); !slices.Contains(alts, q) {
				alts = append(alts, q)
			}
		}
		slices.Sort(alts)
		levels[l] = "^(" + strings.Join(alts, "|") + ")$"
	}
	return strings.Join(levels, "/")
}

// baseline runs on the unmutated code each test that a mutant's Test: line
// names, with that mutant's first verifier (see killers): a kill by that
// test counts only if it passes without the mutant. The tests of one
// verifier on one set of packages run as one go test. A mutant's runs of
// whole suites have baselines of their own (wholeBaselineOf). The suites
// that take minutes start first, longest first (baselineFirst). It returns
// the names of the verifiers whose tests passed, each with how long they
// took, and the symptom and output of those that failed.
func (mc *mutantCampaign) baseline(ctx context.Context, mutants []mutant.Mutant) (passed []string, failed map[string]string) {
	start := time.Now()
	mc.prog.begin("baseline")
	failed = map[string]string{}
	byVerifier := map[string][]namedRun{}
	var vs []mutantVerifier
	for _, r := range mc.namedRuns(mutants) {
		if byVerifier[r.v.name] == nil {
			vs = append(vs, r.v)
		}
		byVerifier[r.v.name] = append(byVerifier[r.v.name], r)
	}
	slices.SortStableFunc(vs, func(a, b mutantVerifier) int { return cmp.Compare(b.baselineFirst, a.baselineFirst) })
	// run is how a verifier failed ("" if it passed) and how long it took.
	type run struct {
		how string
		dur time.Duration
	}
	took := map[string]time.Duration{} // of those that passed
	mc.named = map[string]bool{}
	inOrder(ctx, len(vs), runtime.GOMAXPROCS(0), func(i int) run {
		start := time.Now()
		for _, r := range byVerifier[vs[i].name] {
			v := r.v
			v.args = append(slices.Clip(v.args), "-run", testsPattern(r.tests))
			if killed, how, out := mc.goTest(ctx, v, r.pkgs, ""); ctx.Err() == nil && (killed || how != "") {
				return run{how + "\n    " + strings.ReplaceAll(strings.TrimRight(out, "\n"), "\n", "\n    "), time.Since(start)}
			}
		}
		return run{"", time.Since(start)}
	}, func(i int) { mc.prog.status(vs[i].name) }, func(i int, r run) {
		if r.how != "" {
			failed[vs[i].name] = r.how
			return
		}
		took[vs[i].name] = r.dur
		for _, nr := range byVerifier[vs[i].name] {
			for _, test := range nr.tests {
				mc.named[namedKey(nr.v, nr.pkgs, test)] = true
			}
		}
	})
	for _, v := range mutantVerifiers() { // in the suite's order, whatever order they ran in
		if d, ok := took[v.name]; ok {
			passed = append(passed, v.name+" ("+formatDuration(d)+")")
		}
	}
	if ctx.Err() != nil {
		return passed, failed
	}
	r := result{phase: "baseline", verdict: pass, summary: "the named tests of " + plural(len(passed), "verifier") + " pass", dur: time.Since(start)}
	if len(failed) > 0 {
		r.verdict, r.summary = fail, fmt.Sprintf("the named tests of %d of %d verifiers fail", len(failed), len(failed)+len(passed))
	}
	mc.prog.end(r)
	return passed, failed
}

// runMutant runs the suite against m.
func (mc *mutantCampaign) runMutant(ctx context.Context, m mutant.Mutant) (o mutantOutcome) {
	o.m = m
	start := time.Now()
	defer func() { o.dur = time.Since(start) }()
	if v, ok := verifierNamed(m.Expect); ok && v.slow && mc.fast {
		o.verdict, o.detail = "skipped", "expects the slow verifier "+m.Expect
		return o
	} else if ok && !mc.relevant(v, m) {
		o.verdict, o.detail = "BROKEN", "its patch expects "+m.Expect+", which does not test package "+m.Pkg()
		return o
	}
	dir, err := os.MkdirTemp(mc.tmp, m.Name+"-")
	if err == nil {
		var overlay string
		if overlay, err = m.WriteOverlay(mc.root, dir); err == nil {
			// An equivalent mutant faces every verifier's whole suite,
			// the campaign's longest run, and can only confirm what its
			// patch says: -fast builds it and runs no verifier on it.
			if err = mc.build(ctx, m, overlay, mc.untested(m)); err == nil && (m.Equivalent == "" || !mc.fast) {
				mc.killers(ctx, &o, overlay)
			}
		}
	}
	o.decide(err, ctx.Err() != nil, mc.fast)
	return o
}

// decide gives o its verdict from what the verifiers found (killers,
// noVerdict, detail), err, which kept the mutant from facing them, and
// whether the campaign was interrupted or -fast. A verdict already given
// (skipped, BROKEN before any run) stands. The order is the point: a
// kill or a timeout of a mutant whose patch says it is equivalent, and a
// kill by another verifier than the one its patch expects, make it
// BROKEN; a timeout is no kill and no equivalence.
func (o *mutantOutcome) decide(err error, interrupted, fast bool) {
	m := o.m
	switch {
	case interrupted:
		o.verdict = "interrupted"
	case err != nil:
		o.verdict, o.detail = "BROKEN", err.Error()
	case o.verdict != "":
	case len(o.killers) > 0 && m.Equivalent != "":
		o.verdict, o.detail = "BROKEN", "killed, but its patch says it is equivalent: "+m.Equivalent
	case len(o.killers) > 0 && m.Expect != "" && !slices.Contains(o.killers, m.Expect):
		o.verdict, o.detail = "BROKEN", "its patch expects "+m.Expect+", which did not kill it; "+o.detail
	case len(o.killers) > 0:
		o.verdict = "killed"
	case len(o.noVerdict) > 0:
		o.verdict, o.detail = "BROKEN", "no verdict: "+strings.Join(o.noVerdict, ", ")+" timed out, which is no kill"
	case m.Equivalent != "" && fast:
		o.verdict, o.detail = "equivalent", "built; -fast runs no verifier on it. "+m.Equivalent
	case m.Equivalent != "":
		o.verdict, o.detail = "equivalent", m.Equivalent
	default:
		o.verdict = "SURVIVED"
	}
}

// build compiles the mutated package in each of builds (the tags of
// each; a package of one build only, as the explorer's engine, in that
// one): a mutant that does not compile says nothing about the verifiers.
func (mc *mutantCampaign) build(ctx context.Context, m mutant.Mutant, overlay string, builds []string) error {
	for _, tags := range builds {
		out, err := goCommand(ctx, mc.root, nil, "build", "-overlay", overlay, "-tags", tags, "./"+m.Pkg()).CombinedOutput()
		if err != nil && ctx.Err() == nil && !noGoFiles.Match(out) {
			return fmt.Errorf("does not build: %s", truncate(compileError.FindString(string(out)), 100))
		}
	}
	return nil
}

// untested returns the builds (their tags) in which the campaign must
// compile m before its verifiers run: the default and the explorer's
// builds, less the one in which the first go test that killers runs on m
// compiles it, since that run reports a mutant that does not build there
// (BROKEN, as build would). A -race run compiles another build, and an
// equivalent mutant faces no verifier under -fast: then both.
func (mc *mutantCampaign) untested(m mutant.Mutant) []string {
	builds := []string{"", "vsched_explore"}
	if m.Equivalent != "" && mc.fast {
		return builds
	}
	for _, v := range verifierOrder(m, mc.ownTestsFirst(m)) {
		if mc.relevant(v, m) {
			if slices.Contains(v.args, "-race") {
				return builds
			}
			return slices.DeleteFunc(builds, func(tags string) bool { return tags == v.tags })
		}
	}
	return builds
}

// inOrder starts run(0) to run(n-1) in order, jobs at a time, and hands
// the results to done in order, after begin(i) as it waits for run i; once
// ctx is done one more may start, and done stops at the first that did not.
func inOrder[T any](ctx context.Context, n, jobs int, run func(i int) T, begin func(i int), done func(i int, r T)) {
	results, slots, started := make([]chan T, n), make(chan struct{}, jobs), 0
	var wg sync.WaitGroup
	defer wg.Wait() // every run started has ended when inOrder returns
	for i := range n {
		begin(i)
		for waiting := true; waiting; {
			var free chan struct{} // nil, which no select sends on, when no run may start
			if started < n && ctx.Err() == nil {
				free = slots
			} else if started <= i {
				return
			}
			select {
			case free <- struct{}{}:
				j := started
				results[j], started = make(chan T, 1), started+1
				wg.Go(func() { results[j] <- run(j); <-slots })
			case r := <-results[i]: // nil, and never ready, until run i starts
				done(i, r)
				waiting = false
			}
		}
	}
}

// killers runs the verifiers against the mutant in order until one kills
// it (every one with -all), recording them in o; first a patch's Test
// alone, which the campaign's baseline ran on the unmutated code; before
// a verifier's whole suite runs on it, that suite's baseline.
func (mc *mutantCampaign) killers(ctx context.Context, o *mutantOutcome, overlay string) {
	vs := verifierOrder(o.m, mc.ownTestsFirst(o.m))
	own := []string{"./" + o.m.Pkg()}
	named := o.m.Test != "" && !mc.all
	if named { // vs[0] is Expect's verifier
		vs = slices.Insert(vs, 0, vs[0])
		vs[0].args = append(slices.Clip(vs[0].args), "-run", o.m.TestPattern())
	}
	for i, v := range vs {
		if ctx.Err() != nil || !mc.relevant(v, o.m) {
			continue
		}
		if named && i == 0 {
			if fv, pkgs, ok := mc.firstRun(o.m); !ok || !mc.named[namedKey(fv, pkgs, o.m.Test)] {
				o.verdict, o.detail = "BROKEN", "the baseline did not run its named test "+o.m.Test+" on the unmutated code"
				return
			}
		} else if wb := mc.wholeBaselineOf(ctx, v, own); ctx.Err() != nil {
			return
		} else if wb.how != "" {
			o.verdict, o.detail = "BROKEN", suiteName(v, own)+" fails on the unmutated code, so it cannot kill: "+wb.how
			return
		}
		start := time.Now()
		killed, how, out := mc.goTest(ctx, v, own, overlay)
		if ctx.Err() != nil {
			return
		}
		if how == "BROKEN" {
			o.verdict, o.detail = "BROKEN", "does not build with the tests of "+v.name
			if e := goCompileError.FindString(out); e != "" {
				o.detail += ": " + truncate(e, 100)
			}
			mc.prog.line(out)
			return
		}
		if how == timedOut {
			o.noVerdict = append(o.noVerdict, v.name)
		}
		if !killed {
			continue
		}
		if len(o.killers) == 0 {
			o.killIn, o.detail = time.Since(start), how
		}
		o.killers = append(o.killers, v.name)
		if mc.verbose {
			mc.prog.line(out)
		}
		if !mc.all {
			return
		}
	}
}

// goTest runs v with the overlay (none for unmodified code), own being the
// packages of a verifier that tests the mutated package itself, and reports
// whether v failed (a hang too, except a known-bad suite's, which is
// reported as not failed, how being timedOut; slow verifiers get longer),
// how (the first failed test, a panic, or BROKEN if it did not build), and
// v's output.
func (mc *mutantCampaign) goTest(ctx context.Context, v mutantVerifier, own []string, overlay string) (failed bool, how, out string) {
	timeout := v.timeout
	if timeout == 0 {
		timeout = map[bool]time.Duration{false: 3 * time.Minute, true: 6 * time.Minute}[v.slow]
	}
	// -vet=off: go vet is not one of the verifiers, and a mutant it
	// flags would be a kill no verifier made.
	args := []string{"test", "-count=1", "-failfast", "-vet=off", "-timeout", timeout.String(), "-tags", v.tags}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if v.pkgs != nil {
		own = v.pkgs
	}
	args = append(append(args, v.args...), own...)
	if len(v.post) > 0 {
		args = append(append(args, "-args"), v.post...)
	}
	// A rapid fail file (written into the source tree), a failing history's
	// picture and the shortest counterexample are the mutant's, not news.
	env := append([]string{"RAPID_NOFAILFILE=true", "RAPID_SHRINKTIME=1s", campaign.EnvArtifacts + "=" + mc.tmp}, v.env...)
	if v.knownBad && overlay != "" {
		env = append(env, mutant.EnvOverlay+"="+overlay)
	}
	if mc.verbose {
		mc.prog.line("$ " + commandLine(env, args))
	}
	cmd := goCommand(ctx, mc.root, env, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err := runCommand(ctx, cmd)
	// A test binary that timed out leaves the go tests it started running
	// (a known-bad test's nested runs), without the lock they took.
	killLeftovers(cmd)
	out = buf.String()
	failed, how = judgeTest(v.knownBad, err, out)
	return failed, how, out
}

// judgeTest reads a verifier's go test run that ended with err and
// printed out: killed, or how it failed to give a verdict ("" if it
// passed). A known-bad suite that ran out of time has no verdict
// (timedOut), which is no kill; any other verifier's timeout is a kill,
// as a hang the mutant caused.
func judgeTest(knownBad bool, err error, out string) (killed bool, how string) {
	switch {
	case err == nil, noGoFiles.MatchString(out):
		return false, "" // passed, or a package of the explorer build only: not this verifier's
	case buildFailed.MatchString(out), knownBad && strings.Contains(out, "[build failed]"):
		// The package's tests, or a known-bad test's nested run of its
		// seeded bug over the mutant, did not build: no verdict on it.
		return false, "BROKEN"
	case knownBad && testTimeout.MatchString(out):
		return false, timedOut
	}
	return true, killSymptom(out)
}

// buildFailed matches go test's report that a package's tests did not
// build, and noGoFiles its report of a package that this build compiles
// no file of. The same words quoted in a test's failure (a stand-in
// module's run, indented) do not match: that test ran, and failed.
var (
	buildFailed = regexp.MustCompile(`(?m)^FAIL\t\S+ \[(build|setup) failed\]$`)
	noGoFiles   = regexp.MustCompile(`(?m)^package \S+: build constraints exclude all Go files in `)
)

// timedOut is how goTest reports a known-bad suite that ran out of time.
const timedOut = "timed out"

// testTimeout matches go test's report of its own -timeout. A nested run's
// report, quoted in a known-bad test's failure, is indented and does not
// match: that run holds the machine lock, so no other nested run competes
// with it, and its 5 minutes are several times the longest nested run's
// length, so its timeout is the mutant's. A mutant whose nested runs all
// hang may still leave no verdict, once they outlast the suite's timeout.
var testTimeout = regexp.MustCompile(`(?m)^panic: test timed out after`)

// killSymptom picks the line of a failed go test run that says what failed:
// the first failed subtest (the most specific name), else the first failed
// test, else the first panic or throw (a timeout is a panic).
func killSymptom(out string) string {
	symptom, rank := "go test failed", 0
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		name, isTest := strings.CutPrefix(l, "--- FAIL: ")
		name, _, _ = strings.Cut(name, " (")
		r := 0
		switch {
		case isTest && strings.Contains(name, "/"):
			r = 3
		case isTest:
			r = 2
		case strings.HasPrefix(l, "panic: "), strings.HasPrefix(l, "fatal error: "):
			r, name = 1, l
		}
		if r > rank {
			symptom, rank = name, r
		}
	}
	return truncate(symptom, 72)
}

// compileError matches the first line of a build's output that is not a
// "# package" header.
var compileError = regexp.MustCompile(`(?m)^[^#\s].*`)

// goCompileError matches the compiler's report of an error in a Go file,
// as go test prints it above a package that did not build.
var goCompileError = regexp.MustCompile(`(?m)^\S+\.go:\d+:\d+: .*`)

// writeKillTable prints one row per mutant, as a table or as Markdown (the
// form docs/VERIFICATION.md has). Each killer is named with its tier: fast,
// or slow (left out by -fast).
func writeKillTable(w io.Writer, outcomes []mutantOutcome, markdown bool) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row, none := "%s\t%s\t%s\t%s\t%s\t%s\n", "-"
	if markdown {
		fmt.Fprintln(w, "| mutant | package | what it breaks | verdict | killed by | in | how |\n|---|---|---|---|---|---|---|")
		row, none = "| `%s` | %s | %s | %s | %s | %s | %s |\n", "—"
	} else {
		fmt.Fprintln(tw, "MUTANT\tPACKAGE\tVERDICT\tKILLED BY\tIN\tHOW")
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, o := range outcomes {
		by, in := none, none
		if len(o.killers) > 0 {
			var tiers []string
			for _, k := range o.killers {
				v, _ := verifierNamed(k)
				tiers = append(tiers, k+map[bool]string{false: " (fast)", true: " (slow)"}[v.slow])
			}
			by, in = strings.Join(tiers, ", "), formatDuration(o.killIn)
		}
		if markdown {
			fmt.Fprintf(w, row, o.m.Name, o.m.Pkg(), cell(o.m.Doc), o.verdict, by, in, cell(o.detail))
		} else {
			fmt.Fprintf(tw, row, o.m.Name, o.m.Pkg(), o.verdict, by, in, o.detail)
		}
	}
	tw.Flush()
	if markdown {
		fmt.Fprintln(w)
	}
}

// killVerdictLine is the campaign's last line, e.g.
// "mutants: PASS (31 mutants: 30 killed, 1 equivalent; total 6m2s)".
func killVerdictLine(outcomes []mutantOutcome, total time.Duration) string {
	counts, v := map[string]int{}, "PASS"
	for _, o := range outcomes {
		counts[o.verdict]++
		if !o.ok() {
			v = "FAIL"
		}
	}
	var parts []string
	for _, k := range []string{"killed", "equivalent", "skipped", "SURVIVED", "BROKEN", "interrupted"} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], strings.ToLower(k)))
		}
	}
	return fmt.Sprintf("mutants: %s (%s: %s; total %s)", v, plural(len(outcomes), "mutant"), strings.Join(parts, ", "), formatDuration(total))
}
