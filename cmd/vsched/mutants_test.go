//go:build !vsched_explore

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vsched/vsched/internal/mutant"
)

// standInMutantsModule writes a module with a package p, part of the
// library (package kernel imports it), whose test checks Add, a package
// proptest whose test calls Add and passes whatever it returns, and whose
// Check of an add function its known-bad test shows to reject a bad one,
// the packages of the other verifiers, which do not import p, and eight
// patches: one the test kills, one it cannot see, one that says why it is
// equivalent, one that does not compile, one the test kills although its
// patch expects proptest to, one whose patch expects a verifier that does
// not test p, one whose patch names a test that passes with it (the tests
// of p kill it then), and one of Check, which only the known-bad test
// sees. The module has vsched's path, which the campaign uses to tell
// which verifiers test the mutated package.
func standInMutantsModule(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module " + modulePath + "\n\ngo 1.25\n",
		"proptest/proptest_test.go": "package proptest\n\nimport (\n\t\"testing\"\n\n\t\"" + modulePath + "/p\"\n)\n\n" +
			"func TestAddReturns(t *testing.T) { _ = p.Add(2, 3) }\n",
		"p/p.go":            "package p\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n\n// Unused is never called.\nfunc Unused() int {\n\treturn 1\n}\n",
		"p/p_test.go":       "package p\n\nimport \"testing\"\n\nfunc TestAddAdds(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
		"kernel/kernel.go":  "package kernel\n\nimport \"" + modulePath + "/p\"\n\nvar _ = p.Add\n",
		"proptest/check.go": "package proptest\n\n// Check reports whether add adds.\nfunc Check(add func(a, b int) int) bool {\n\treturn add(2, 3) == 5\n}\n",
		"proptest/knownbad_test.go": "package proptest\n\nimport \"testing\"\n\nfunc TestKnownBadAddIsReported(t *testing.T) {\n" +
			"\tif Check(func(a, b int) int { return a - b }) {\n\t\tt.Fatal(\"Check passed a subtraction\")\n\t}\n}\n",
	}
	patch := func(name, header, old, new string) string {
		return name + ": " + header + "\n\n--- a/p/p.go\n+++ b/p/p.go\n@@ -4,3 +4,3 @@\n" + old + new
	}
	addHunk := " func Add(a, b int) int {\n-\treturn a + b\n"
	unusedHunk := "@@ -9,3 +9,3 @@\n func Unused() int {\n-\treturn 1\n+\treturn 2\n }\n"
	files[mutant.PatchDir+"/add-subtracts.patch"] = patch("add-subtracts", "subtracts.\n\nExpect: tests\nTest: TestAddAdds", addHunk, "+\treturn a - b\n }\n")
	files[mutant.PatchDir+"/add-multiplies.patch"] = patch("add-multiplies", "multiplies.\n\nExpect: proptest", addHunk, "+\treturn a * b\n }\n")
	files[mutant.PatchDir+"/add-divides.patch"] = patch("add-divides", "divides.\n\nExpect: explore slots", addHunk, "+\treturn a / b\n }\n")
	files[mutant.PatchDir+"/add-negates.patch"] = patch("add-negates", "negates.\n\nExpect: tests\nTest: TestNothingOfAdd", addHunk, "+\treturn -a - b\n }\n")
	files[mutant.PatchDir+"/unused-changed.patch"] = "unused-changed: changes what nothing calls.\n\n--- a/p/p.go\n+++ b/p/p.go\n" + unusedHunk
	files[mutant.PatchDir+"/unused-equivalent.patch"] = "unused-equivalent: changes what nothing calls.\n\nEquivalent: nothing calls Unused.\n\n--- a/p/p.go\n+++ b/p/p.go\n" + unusedHunk
	files[mutant.PatchDir+"/does-not-compile.patch"] = patch("does-not-compile", "is not Go.", addHunk, "+\treturn a +\n }\n")
	files[mutant.PatchDir+"/check-passes-all.patch"] = "check-passes-all: passes every function.\n\n--- a/proptest/check.go\n+++ b/proptest/check.go\n" +
		"@@ -4,3 +4,3 @@\n func Check(add func(a, b int) int) bool {\n-\treturn add(2, 3) == 5\n+\treturn add(2, 3) == add(2, 3)\n }\n"
	// The other verifiers' packages, whose tests do not import p.
	for _, pkg := range []string{"fuzz", "explore", "netpoll", "runq", "linearizability"} {
		files[pkg+"/x_test.go"] = "package " + pkg + "\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n"
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

func TestMutantsTableSaysWhatKilledEachMutantAndFailsOnASurvivor(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	root := standInMutantsModule(t)
	t.Setenv(rootEnv, root)
	var stdout, stderr bytes.Buffer
	code := runMutants(context.Background(), nil, &stdout, &stderr)
	out := stdout.String()
	if code != exitFail {
		t.Fatalf("exit %d, want %d (a survivor and a broken patch):\n%s\n%s", code, exitFail, out, stderr.String())
	}
	for _, row := range []string{
		`add-subtracts\s+p\s+killed\s+tests \(fast\)\s+\S+\s+TestAddAdds`,
		`unused-changed\s+p\s+SURVIVED\s+-`,
		`unused-equivalent\s+p\s+equivalent\s+-\s+-\s+nothing calls Unused`,
		`does-not-compile\s+p\s+BROKEN\s+-\s+-\s+does not build`,
		`add-multiplies\s+p\s+BROKEN\s+tests \(fast\)\s+\S+\s+its patch expects proptest, which did not kill it; TestAddAdds`,
		`add-divides\s+p\s+BROKEN\s+-\s+-\s+its patch expects explore slots, which does not test package p`,
		`add-negates\s+p\s+killed\s+tests \(fast\)\s+\S+\s+TestAddAdds\n`,
		`check-passes-all\s+proptest\s+killed\s+known-bad proptest \(fast\)\s+\S+\s+TestKnownBadAddIsReported`,
		`baseline: the named tests of 1 verifier pass on the unmutated code: tests \(\S+\) \(\S+\)`,
		`baseline of whole suites, each run when a mutant first reached it: .*known-bad proptest passes \(\S+\), proptest passes \(\S+\), race of ./p passes \(\S+\), .*tests of ./p passes \(\S+\)`,
		`mutants: FAIL \(8 mutants: 3 killed, `,
	} {
		if !regexp.MustCompile(row).MatchString(out) {
			t.Errorf("output lacks a row matching %q:\n%s", row, out)
		}
	}
	// The mutants were substituted through -overlay: the module is as it was.
	src, err := os.ReadFile(filepath.Join(root, "p", "p.go"))
	if err != nil || !strings.Contains(string(src), "return a + b") || !strings.Contains(string(src), "return 1") {
		t.Errorf("the stand-in module was changed: %s %v", src, err)
	}

	// add-subtracts expects TestAddAdds of the tests of p, which kills
	// it, so only that test runs on it, and proptest, cheaper and first
	// without the Expect: line, does not (it runs once in the baseline,
	// on the unmutated copy). With -all every verifier runs whole.
	for _, all := range []bool{false, true} {
		args := []string{"-run", "^add-subtracts$", "-v"}
		if all {
			args = append(args, "-all")
		}
		stdout.Reset()
		if code := runMutants(context.Background(), args, &stdout, &stderr); code != exitPass {
			t.Errorf("%q: exit %d, want 0:\n%s", args, code, stdout.String())
		}
		_, onMutant, _ := strings.Cut(stdout.String(), "=== add-subtracts")
		named := strings.Contains(onMutant, "-run '^TestAddAdds$' ./p")
		if !strings.Contains(onMutant, "./p") || strings.Contains(onMutant, "./proptest") != all || named == all {
			t.Errorf("%q: want a go test of ./p, of TestAddAdds alone unless -all, and of ./proptest only with -all:\n%s", args, stdout.String())
		}
		// A mutant of the library never faces the known-bad tests.
		if strings.Contains(onMutant, "-run '^TestKnownBad'") || strings.Contains(onMutant, mutant.EnvOverlay) {
			t.Errorf("%q: the known-bad tests ran on a mutant of the library:\n%s", args, stdout.String())
		}
	}

	// A survivor alone fails the campaign.
	stdout.Reset()
	if code := runMutants(context.Background(), []string{"-run", "^unused-changed$"}, &stdout, &stderr); code != exitFail ||
		!strings.Contains(stdout.String(), "mutants: FAIL (1 mutant: 1 survived") {
		t.Errorf("-run unused-changed: exit %d, want %d and a FAIL:\n%s", code, exitFail, stdout.String())
	}

	// -fast builds an equivalent mutant and runs no verifier on it.
	stdout.Reset()
	if code := runMutants(context.Background(), []string{"-run", "^unused-equivalent$", "-fast", "-v"}, &stdout, &stderr); code != exitPass {
		t.Errorf("-fast -run unused-equivalent: exit %d, want 0:\n%s", code, stdout.String())
	}
	_, onEquivalent, _ := strings.Cut(stdout.String(), "=== unused-equivalent")
	if !strings.Contains(onEquivalent, "built; -fast runs no verifier on it") || strings.Contains(onEquivalent, "go test") {
		t.Errorf("-fast on an equivalent mutant: want it built and no go test run on it:\n%s", stdout.String())
	}

	stdout.Reset()
	if code := runMutants(context.Background(), []string{"-run", "add-subtracts|equivalent", "-markdown"}, &stdout, &stderr); code != exitPass {
		t.Errorf("-run add-subtracts|equivalent: exit %d, want 0:\n%s", code, stdout.String())
	}
	if !strings.Contains(stdout.String(), "| `add-subtracts` | p | subtracts. | killed | tests (fast) |") {
		t.Errorf("-markdown table:\n%s", stdout.String())
	}

	// The module reached through a symbolic link, which PWD names as a
	// shell started there would: the mutant of Check is still known to
	// be one of the verification code, and killed.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootEnv, link)
	t.Setenv("PWD", link)
	stdout.Reset()
	if code := runMutants(context.Background(), []string{"-run", "^check-passes-all$"}, &stdout, &stderr); code != exitPass ||
		!regexp.MustCompile(`check-passes-all\s+proptest\s+killed\s+known-bad proptest`).MatchString(stdout.String()) {
		t.Errorf("through a symbolic link: exit %d, want check-passes-all killed by known-bad proptest:\n%s", code, stdout.String())
	}
}

// The library is what package kernel builds; the verifiers' builds hold
// test files too, which the known-bad tests build.
func TestTheLibraryAndTheBuildsAreTheFilesGoListNames(t *testing.T) {
	mc := &mutantCampaign{root: standInMutantsModule(t)}
	if err := mc.findDeps(context.Background()); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]bool{"p/p.go": true, "kernel/kernel.go": true, "p/p_test.go": false, "proptest/check.go": false} {
		if mc.library[f] != want {
			t.Errorf("library[%s] = %v, want %v (library %v)", f, mc.library[f], want, mc.library)
		}
	}
	for _, f := range []string{"p/p.go", "proptest/check.go", "proptest/knownbad_test.go", "p/p_test.go"} {
		if !mc.built[""][f] {
			t.Errorf("the default build lacks %s: %v", f, mc.built[""])
		}
	}
	for dir, want := range map[string]bool{"p": true, "kernel": true, "proptest": false} {
		if got := mc.libraryPkg(dir); got != want {
			t.Errorf("libraryPkg(%s) = %v, want %v", dir, got, want)
		}
	}
	// A patch is of the verification code only if none of its files is
	// the library's, whichever comes first: one that also changes the
	// library never faces the known-bad suites.
	for files, want := range map[[2]string]bool{{"proptest/check.go", ""}: true, {"proptest/check.go", "p/p.go"}: false, {"p/p.go", "proptest/check.go"}: false} {
		m := mutant.Mutant{Files: slices.DeleteFunc(slices.Clone(files[:]), func(f string) bool { return f == "" })}
		if got := mc.verification(m); got != want {
			t.Errorf("verification of a patch of %q = %v, want %v", m.Files, got, want)
		}
	}
	// A blind patch faces its own tests first only outside the library
	// and where the default build compiles what it patches.
	for f, want := range map[string]bool{"proptest/check.go": true, "p/p.go": false, "proptest/explore_only.go": false} {
		if got := mc.ownTestsFirst(mutant.Mutant{Files: []string{f}}); got != want {
			t.Errorf("ownTestsFirst of a patch of %s = %v, want %v", f, got, want)
		}
	}
}

func TestTheBaselineRunsEveryNamedTestOncePerVerifierAndPackages(t *testing.T) {
	mc := &mutantCampaign{root: standInMutantsModule(t)}
	if err := mc.findDeps(context.Background()); err != nil {
		t.Fatal(err)
	}
	p := []string{"p/p.go"}
	runs := mc.namedRuns([]mutant.Mutant{
		{Files: p, Expect: "tests", Test: "TestA"},
		{Files: p, Expect: "proptest", Test: "TestC"},
		{Files: p, Expect: "tests", Test: "TestB"},
		{Files: p, Expect: "tests", Test: "TestA"},
		{Files: p, Expect: "tests"}, // names no test: no run of its own
	})
	var got []string
	for _, r := range runs {
		got = append(got, r.v.name+" "+strings.Join(r.pkgs, ",")+": "+strings.Join(r.tests, ","))
	}
	want := []string{"tests ./p: TestA,TestB", "proptest ./proptest: TestC"}
	if !slices.Equal(got, want) {
		t.Errorf("namedRuns = %q, want %q", got, want)
	}
}

func TestTheShardsOfTheMutantsPartitionThem(t *testing.T) {
	all := mutant.All()
	for n := 1; n <= 4; n++ {
		seen := map[string]int{}
		for k := 1; k <= n; k++ {
			sh, err := parseShard(fmt.Sprintf("%d/%d", k, n))
			if err != nil {
				t.Fatal(err)
			}
			in := sh.of(all)
			if len(in) < len(all)/n || len(in) > len(all)/n+1 {
				t.Errorf("shard %v holds %d of %d mutants, want %d or %d", sh, len(in), len(all), len(all)/n, len(all)/n+1)
			}
			for _, m := range in {
				seen[m.Name]++
			}
		}
		for _, m := range all {
			if seen[m.Name] != 1 {
				t.Errorf("%d shards: %s is in %d of them, want 1", n, m.Name, seen[m.Name])
			}
		}
	}
	if sh, err := parseShard(""); err != nil || len(sh.of(all)) != len(all) {
		t.Errorf("no -shard: %v, %v; want every mutant", sh, err)
	}
	for _, bad := range []string{"0/3", "4/3", "1/0", "2", "1/3x", "-1/3", " 1/3"} {
		if _, err := parseShard(bad); err == nil {
			t.Errorf("-shard %q was accepted", bad)
		}
	}
}

func TestAMutantIsBuiltWhereItsFirstVerifierRunDoesNotCompileIt(t *testing.T) {
	mc := &mutantCampaign{root: standInMutantsModule(t)}
	if err := mc.findDeps(context.Background()); err != nil {
		t.Fatal(err)
	}
	p, both := []string{"p/p.go"}, []string{"", "vsched_explore"}
	for _, c := range []struct {
		name string
		fast bool
		m    mutant.Mutant
		want []string
	}{
		{"its tests first", false, mutant.Mutant{Files: p, Expect: "tests"}, []string{"vsched_explore"}},
		{"proptest first", false, mutant.Mutant{Files: p, Expect: "proptest"}, []string{"vsched_explore"}},
		{"the explorer build's verifier first", false, mutant.Mutant{Files: []string{"explore/x_test.go"}, Expect: "explore"}, []string{""}},
		{"the race detector's build first", false, mutant.Mutant{Files: p, Expect: "race"}, both},
		{"no verifier under -fast", true, mutant.Mutant{Files: p, Equivalent: "nothing calls it"}, both},
	} {
		mc.fast = c.fast
		if got := mc.untested(c.m); !slices.Equal(got, c.want) {
			t.Errorf("%s: untested = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestJudgeTestTellsAKillFromNoVerdict(t *testing.T) {
	exit := errors.New("exit status 1")
	for _, c := range []struct {
		name     string
		knownBad bool
		err      error
		out      string
		killed   bool
		how      string
	}{
		{"passed", false, nil, "ok  \tp\t0.1s\n", false, ""},
		{"explorer build only", false, exit, "# m/x\npackage m/x: build constraints exclude all Go files in /m/x\nFAIL\tm/x [setup failed]\n", false, ""},
		{"does not build", true, exit, "FAIL\tp [build failed]\n", false, "BROKEN"},
		{"setup failed", false, exit, "FAIL\tp [setup failed]\n", false, "BROKEN"},
		{"a failed test", false, exit, "--- FAIL: TestAdd (0.00s)\nFAIL\n", true, "TestAdd"},
		// A nested build failure, quoted indented in a test's failure, is
		// that test's kill.
		{"a nested run's build failure", false, exit, "--- FAIL: TestX (1.00s)\n    x_test.go:1: FAIL\tp [build failed]\nFAIL\n", true, "TestX"},
		{"a nested run's package of no file", false, exit, "--- FAIL: TestX (1.00s)\n    x_test.go:1: package p: build constraints exclude all Go files in /m/p\nFAIL\n", true, "TestX"},
		// A known-bad test's nested run of its seeded bug over the mutant
		// that does not build says nothing of the mutant.
		{"a known-bad run's nested build failure", true, exit, "--- FAIL: TestKnownBadX (1.00s)\n    FAIL\tp [build failed]\nFAIL\n", false, "BROKEN"},
		{"a verifier's timeout is the mutant's hang", false, exit, "panic: test timed out after 3m0s\n", true, "panic: test timed out after 3m0s"},
		{"a known-bad suite's timeout is no verdict", true, exit, "panic: test timed out after 6m0s\n", false, timedOut},
		// A nested run's timeout, quoted indented in the known-bad test's
		// failure, is that test's kill.
		{"a nested run's timeout", true, exit, "--- FAIL: TestKnownBadX (1.00s)\n    panic: test timed out after 5m0s\nFAIL\n", true, "TestKnownBadX"},
	} {
		if killed, how := judgeTest(c.knownBad, c.err, c.out); killed != c.killed || how != c.how {
			t.Errorf("%s: judgeTest = %v, %q; want %v, %q", c.name, killed, how, c.killed, c.how)
		}
	}
}

func TestAMutantsVerdictPutsEquivalenceAndTimeoutsBeforeKills(t *testing.T) {
	eq := mutant.Mutant{Name: "m", Equivalent: "nothing calls it"}
	for _, c := range []struct {
		name        string
		o           mutantOutcome
		err         error
		interrupted bool
		fast        bool
		verdict     string
		detail      string
	}{
		{"killed", mutantOutcome{killers: []string{"tests"}}, nil, false, false, "killed", ""},
		{"killed, but equivalent", mutantOutcome{m: eq, killers: []string{"tests"}}, nil, false, false, "BROKEN", "killed, but its patch says it is equivalent"},
		{"timed out, and equivalent", mutantOutcome{m: eq, noVerdict: []string{"known-bad proptest"}}, nil, false, false, "BROKEN", "no verdict: known-bad proptest timed out"},
		{"timed out", mutantOutcome{noVerdict: []string{"known-bad explore"}}, nil, false, false, "BROKEN", "no verdict"},
		{"killed by another than expected", mutantOutcome{m: mutant.Mutant{Expect: "proptest"}, killers: []string{"tests"}}, nil, false, false, "BROKEN", "its patch expects proptest"},
		{"killed by the expected one too", mutantOutcome{m: mutant.Mutant{Expect: "proptest"}, killers: []string{"tests", "proptest"}}, nil, false, false, "killed", ""},
		{"equivalent", mutantOutcome{m: eq}, nil, false, false, "equivalent", "nothing calls it"},
		{"equivalent, -fast", mutantOutcome{m: eq}, nil, false, true, "equivalent", "built; -fast runs no verifier on it"},
		{"survived", mutantOutcome{}, nil, false, false, "SURVIVED", ""},
		{"does not build", mutantOutcome{}, errors.New("does not build: x"), false, false, "BROKEN", "does not build"},
		{"skipped stands", mutantOutcome{verdict: "skipped"}, nil, false, true, "skipped", ""},
		{"interrupted", mutantOutcome{killers: []string{"tests"}}, nil, true, false, "interrupted", ""},
	} {
		o := c.o
		o.decide(c.err, c.interrupted, c.fast)
		if o.verdict != c.verdict || !strings.HasPrefix(o.detail, c.detail) {
			t.Errorf("%s: %s (%q), want %s (%q...)", c.name, o.verdict, o.detail, c.verdict, c.detail)
		}
		if want := c.verdict == "killed" || c.verdict == "equivalent" || c.verdict == "skipped"; o.ok() != want {
			t.Errorf("%s: ok() = %v for %s, want %v", c.name, o.ok(), o.verdict, want)
		}
	}
}

func TestMutantsCountNoKillsWhenAVerifierDoesNotBuildOnTheUnmutatedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	// The tests of p, which hold add-subtracts's named test, do not build:
	// the baseline fails.
	root := standInMutantsModule(t)
	writeFile(t, root, "p/broken_test.go", "package p\n\nfunc broken() { undefined() }\n")
	t.Setenv(rootEnv, root)
	var stdout, stderr bytes.Buffer
	code := runMutants(context.Background(), []string{"-run", "^add-subtracts$"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitFail || !strings.Contains(out, "baseline: FAIL: the named tests of tests fail") || !strings.Contains(out, "mutants: FAIL (no kills counted") {
		t.Fatalf("exit %d, want %d, the baseline failing on tests and no kills counted:\n%s\n%s", code, exitFail, out, stderr.String())
	}
	if strings.Contains(out, "=== add-subtracts") {
		t.Errorf("a mutant ran after the baseline failed:\n%s", out)
	}

	// proptest, which add-multiplies faces whole, does not build: its
	// suite's baseline fails, and the mutant is broken.
	root = standInMutantsModule(t)
	writeFile(t, root, "proptest/broken_test.go", "package proptest\n\nfunc broken() { undefined() }\n")
	t.Setenv(rootEnv, root)
	stdout.Reset()
	code = runMutants(context.Background(), []string{"-run", "^add-multiplies$"}, &stdout, &stderr)
	out = stdout.String()
	for _, want := range []string{`add-multiplies\s+p\s+BROKEN\s+-\s+-\s+proptest fails on the unmutated code, so it cannot kill: BROKEN`,
		`baseline of whole suites, each run when a mutant first reached it: proptest FAILS`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
}

// writeFile writes text to the file name, a slash-separated path under root.
func writeFile(t *testing.T, root, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// addFailingTest adds to the stand-in module's proptest package a test
// named name that fails on the unmutated code.
func addFailingTest(t *testing.T, root, name string) {
	t.Helper()
	broken := "package proptest\n\nimport \"testing\"\n\nfunc " + name + "(t *testing.T) { t.Fatal(\"broken without any mutant\") }\n"
	if err := os.WriteFile(filepath.Join(root, "proptest", "broken_test.go"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMutantsCountNoKillsWhenAVerifierFailsOnTheUnmutatedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	// A test of proptest fails without any mutant: add-multiplies, which
	// faces proptest's whole suite, and check-passes-all, which faces the
	// tests of package proptest, are broken; add-subtracts, killed by a
	// test that passes on the unmutated code, is killed.
	root := standInMutantsModule(t)
	addFailingTest(t, root, "TestAlwaysFails")
	t.Setenv(rootEnv, root)
	var stdout, stderr bytes.Buffer
	code := runMutants(context.Background(), nil, &stdout, &stderr)
	out := stdout.String()
	if code != exitFail {
		t.Fatalf("exit %d, want %d:\n%s\n%s", code, exitFail, out, stderr.String())
	}
	for _, want := range []string{`=== proptest fails on the unmutated code: TestAlwaysFails`, `broken without any mutant`,
		`add-multiplies\s+p\s+BROKEN\s+-\s+-\s+proptest fails on the unmutated code, so it cannot kill: TestAlwaysFails`,
		`check-passes-all\s+proptest\s+BROKEN\s+-\s+-\s+tests of ./proptest fails on the unmutated code, so it cannot kill: TestAlwaysFails`,
		`add-subtracts\s+p\s+killed\s+tests \(fast\)\s+\S+\s+TestAddAdds`,
		`baseline of whole suites, each run when a mutant first reached it: .*proptest FAILS`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// The named test itself fails without any mutant: the baseline fails,
	// and no mutant runs.
	root = standInMutantsModule(t)
	writeFile(t, root, "p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestAddAdds(t *testing.T) { t.Fatal(\"broken without any mutant\") }\n")
	t.Setenv(rootEnv, root)
	stdout.Reset()
	code = runMutants(context.Background(), nil, &stdout, &stderr)
	out = stdout.String()
	for _, want := range []string{"baseline: FAIL: the named tests of tests fail on the unmutated code", "=== tests fails on the unmutated code: TestAddAdds",
		"broken without any mutant", "mutants: FAIL (no kills counted"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if code != exitFail || strings.Contains(out, "=== add-subtracts") || strings.Contains(out, "killed") {
		t.Errorf("exit %d, want %d and no mutant run after the baseline failed:\n%s", code, exitFail, out)
	}
}

// A known-bad suite runs whole on the unmutated code when a mutant first
// faces it whole; failing there, it kills nothing, and the mutant is
// broken. A mutant whose named test kills it needs only that test to
// pass on the unmutated code.
func TestMutantsCountNoKillOfAKnownBadSuiteThatFailsOnTheUnmutatedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a stand-in module")
	}
	for _, named := range []bool{false, true} {
		root := standInMutantsModule(t)
		addFailingTest(t, root, "TestKnownBadAlwaysFails")
		header := "\n\nExpect: known-bad proptest\n\n"
		if named {
			header = "\n\nExpect: known-bad proptest\nTest: TestKnownBadAddIsReported\n\n"
		}
		patch := filepath.Join(root, filepath.FromSlash(mutant.PatchDir), "check-passes-all.patch")
		text, err := os.ReadFile(patch)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(patch, bytes.Replace(text, []byte("\n\n"), []byte(header), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Setenv(rootEnv, root)
		var stdout, stderr bytes.Buffer
		code := runMutants(context.Background(), []string{"-run", "^check-passes-all$"}, &stdout, &stderr)
		out := stdout.String()
		wants := []string{`=== known-bad proptest fails on the unmutated code: TestKnownBadAlwaysFails`, `broken without any mutant`,
			`check-passes-all\s+proptest\s+BROKEN\s+-\s+-\s+known-bad proptest fails on the unmutated code, so it cannot kill: TestKnownBadAlwaysFails`,
			`baseline of whole suites, each run when a mutant first reached it: known-bad proptest FAILS`}
		wantCode := exitFail
		if named {
			wants = []string{`check-passes-all\s+proptest\s+killed\s+known-bad proptest \(fast\)\s+\S+\s+TestKnownBadAddIsReported`,
				`baseline: the named tests of 1 verifier pass on the unmutated code: known-bad proptest`}
			wantCode = exitPass
			if strings.Contains(out, "baseline of whole suites") {
				t.Errorf("named: a whole suite ran on the unmutated code:\n%s", out)
			}
		}
		if code != wantCode {
			t.Errorf("named %v: exit %d, want %d:\n%s\n%s", named, code, wantCode, out, stderr.String())
		}
		for _, want := range wants {
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("named %v: output lacks %q:\n%s", named, want, out)
			}
		}
	}
}

// The baseline's pattern runs every named test whole, whatever other
// names share its go test.
func TestTestsPatternMatchesEveryNamedTestWhole(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{[]string{"TestA"}, "^(TestA)$"},
		{[]string{"TestA/x", "TestA/y.z"}, `^(TestA)$/^(x|y\.z)$`},
		{[]string{"TestB/x", "TestA/y"}, "^(TestA|TestB)$/^(x|y)$"},
		{[]string{"TestA/x/1", "TestB"}, "^(TestA|TestB)$"},
		{[]string{"TestA/x/1", "TestA/y/2"}, "^(TestA)$/^(x|y)$/^(1|2)$"},
	} {
		if got := testsPattern(c.names); got != c.want {
			t.Errorf("testsPattern(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestMutantsRejectsBadFlagsAndAFilterThatMatchesNothing(t *testing.T) {
	t.Setenv(rootEnv, standInMutantsModule(t))
	for _, args := range [][]string{{"-run", "("}, {"extra"}, {"-run", "no-such-mutant"}} {
		var stdout, stderr bytes.Buffer
		if code := runMutants(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("mutants %q: exit %d, want %d; stderr:\n%s", args, code, exitUsage, stderr.String())
		}
	}
}

// A known-bad suite's own timeout is told from a nested run's, which a
// failure it reports quotes, indented.
func TestTestTimeoutIsTheRunsOwn(t *testing.T) {
	own := "=== RUN   TestKnownBadKernelsAreReported\npanic: test timed out after 10m0s\n\trunning tests:\n"
	nested := "--- FAIL: TestKnownBadKernelsAreReported/x (300.1s)\n    mutant.go:90: explore failed on mutant x without printing \"VSCHED_REPLAY=\":\n        panic: test timed out after 5m0s\nFAIL\n"
	if !testTimeout.MatchString(own) || testTimeout.MatchString(nested) {
		t.Errorf("testTimeout matches the run's own timeout: %v (want true); a quoted nested one: %v (want false)",
			testTimeout.MatchString(own), testTimeout.MatchString(nested))
	}
}

func TestKillSymptomNamesTheFailedTestOrThePanic(t *testing.T) {
	for out, want := range map[string]string{
		"=== RUN TestX\n--- FAIL: TestKernelModels/SpawnVsIdle (0.31s)\nFAIL\n":                               "TestKernelModels/SpawnVsIdle",
		"--- FAIL: TestKernelModels (0.40s)\n    --- FAIL: TestKernelModels/SpawnVsDroppingP (0.31s)\nFAIL\n": "TestKernelModels/SpawnVsDroppingP",
		"panic: test timed out after 3m0s\n\trunning tests:\n":                                                "panic: test timed out after 3m0s",
		"fatal error: x\n--- FAIL: TestKernelModels (0.40s)\n":                                                "TestKernelModels",
		"fatal error: findRunnable: negative nmspinning\n":                                                    "fatal error: findRunnable: negative nmspinning",
		"exit status 2\n": "go test failed",
	} {
		if got := killSymptom(out); got != want {
			t.Errorf("killSymptom(%q) = %q, want %q", out, got, want)
		}
	}
}

func TestTheExpectedVerifierRunsFirstAndTheRestCheapestFirst(t *testing.T) {
	names := func(vs []mutantVerifier) []string {
		var out []string
		for _, v := range vs {
			out = append(out, v.name)
		}
		return out
	}
	all := names(mutantVerifiers())
	if got := names(verifierOrder(mutant.Mutant{}, false)); !slices.Equal(got, all) {
		t.Errorf("without Expect: %q, want the suite's order %q", got, all)
	}
	for _, ownFirst := range []bool{false, true} {
		for _, want := range all {
			got := names(verifierOrder(mutant.Mutant{Expect: want}, ownFirst))
			rest := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == want })
			if got[0] != want || !slices.Equal(got[1:], rest) {
				t.Errorf("Expect: %s (ownFirst %v) gives %q, want %s first, then %q", want, ownFirst, got, want, rest)
			}
		}
	}
	got := names(verifierOrder(mutant.Mutant{}, true))
	rest := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return n == "tests" })
	if got[0] != "tests" || !slices.Equal(got[1:], rest) {
		t.Errorf("without Expect, outside the library: %q, want tests first, then %q", got, rest)
	}
}

// TestInOrderReportsInIndexOrderWhateverOrderTheRunsEnd: run i waits until
// run i+1 has ended, so that the runs end in reverse order; done must
// still see 0, 1, 2, 3, each with its own result.
func TestInOrderReportsInIndexOrderWhateverOrderTheRunsEnd(t *testing.T) {
	const n = 4
	ended := make([]chan struct{}, n+1)
	for i := range ended {
		ended[i] = make(chan struct{})
	}
	close(ended[n])
	var order []int
	inOrder(context.Background(), n, n, func(i int) int {
		<-ended[i+1]
		close(ended[i])
		return 10 * i
	}, func(int) {}, func(i, r int) {
		if r != 10*i {
			t.Errorf("result %d: got %d, want %d", i, r, 10*i)
		}
		order = append(order, i)
	})
	if !slices.Equal(order, []int{0, 1, 2, 3}) {
		t.Errorf("done saw %v, want [0 1 2 3]", order)
	}
}

// TestInOrderStartsTheRunsInOrderJobsAtATime: with one job the runs start
// in index order; with two, never more than two are under way.
func TestInOrderStartsTheRunsInOrderJobsAtATime(t *testing.T) {
	for _, jobs := range []int{1, 2} {
		var mu sync.Mutex
		var starts []int
		running, most := 0, 0
		inOrder(context.Background(), 20, jobs, func(i int) int {
			mu.Lock()
			starts = append(starts, i)
			running++
			most = max(most, running)
			mu.Unlock()
			runtime.Gosched()
			mu.Lock()
			running--
			mu.Unlock()
			return i
		}, func(int) {}, func(int, int) {})
		if len(starts) != 20 || jobs == 1 && !slices.IsSorted(starts) {
			t.Errorf("-j %d: runs started in the order %v, want 0 to 19 (in order for one job)", jobs, starts)
		}
		if most > jobs {
			t.Errorf("-j %d: %d runs at once", jobs, most)
		}
	}
}

// TestInOrderStartsNothingLiveOnceCancelledAndWaitsForWhatItStarted: with
// two jobs, run 1 cancels the context and then lets run 0 end. A run that
// starts after that must see the context done, done sees runs 0 and 1
// first, and no run is still under way when inOrder returns.
func TestInOrderStartsNothingLiveOnceCancelledAndWaitsForWhatItStarted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var seen []int
	running, live := 0, 0
	cancelled := make(chan struct{})
	inOrder(ctx, 5, 2, func(i int) int {
		mu.Lock()
		running++
		if i > 1 && ctx.Err() == nil {
			live++
		}
		mu.Unlock()
		switch i {
		case 0:
			<-cancelled
		case 1:
			cancel()
			close(cancelled)
		}
		mu.Lock()
		running--
		mu.Unlock()
		return i
	}, func(int) {}, func(i, _ int) { seen = append(seen, i) })
	mu.Lock()
	defer mu.Unlock()
	if live > 0 || running != 0 || len(seen) < 2 || len(seen) > 3 || !slices.IsSorted(seen) || seen[0] != 0 {
		t.Errorf("done saw %v; %d runs started with the context live after the cancel, %d still running", seen, live, running)
	}
}
