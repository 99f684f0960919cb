// Package mutant holds the seeded bugs of the module, as patches under
// testdata/mutants, and runs verifiers against them. A verifier is trusted
// only once it has been shown to catch a bug in the code it checks, so every
// mutant is a patch to a real file, substituted at build time through go
// build's -overlay, never a look-alike copy of the code. The verifiers'
// known-bad tests call [Report]; "vsched mutants" writes the overlay with
// [Mutant.WriteOverlay] and runs its suite of verifiers with it.
package mutant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// TB is the part of testing.TB that [Report] uses. An interface rather
// than the testing package itself, so that importing mutant does not put
// the testing package (and its flags) into vsched's binary.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}

// Verifier is a go test invocation that must fail on a mutant, printing
// every string of MustPrint.
type Verifier struct {
	Name string
	Pkg  string // package pattern, relative to the module root
	Run  string // -run pattern
	Tags string // -tags value, if any
	// Count is the number of runs (default 1); the verifier must report
	// the mutant in one of them. Verifiers that rely on real parallelism
	// take more than one, since a busy machine can hide a race for a run.
	Count int
	// Env is added to the environment of the go command.
	Env       []string
	MustPrint []string
}

// Report runs v against m and fails t unless v fails on m and prints every
// string of v.MustPrint. It runs "go" from PATH, where go test puts its own
// GOROOT/bin first. It returns the verifier's output.
//
// When [EnvOverlay] names the overlay of a mutated verifier, Report builds
// m over it. It skips t when m changes a package that overlay changes too:
// m's package is then the code under test, and a failure or a pass of two
// bugs in it says nothing about the verifier. (The explorer is both: the
// verifier of the kernel's seeded bugs and the code under test of its own,
// the reduction's.) A verifier whose check lives in the package it checks
// cannot be tested this way.
//
// Mutant runs take a machine-wide lock and so run one at a time, across
// packages too; the mutant is built before the lock is taken. A run is
// built with v.Tags whatever the build of the test that calls Report, so
// the known-bad test files of the kernel, netpoll and proptest say
// !vsched_explore: in the explorer's build they would repeat the default
// build's runs.
func Report(t TB, m Mutant, v Verifier) string {
	t.Helper()
	root, err := ModuleRoot()
	if err == nil {
		// One name for every file, the one a campaign's overlay uses:
		// the go commands below run in the real directory, PWD too.
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		t.Fatalf("%v", err)
	}
	under, err := readOverlay(os.Getenv(EnvOverlay))
	if err != nil {
		t.Fatalf("%s: %v", EnvOverlay, err)
	}
	if pkg, ok := sharedPackage(root, m, under); ok {
		if _, err := m.Apply(root); err != nil {
			t.Fatalf("%v", err)
		}
		t.Skipf("mutant %s and the mutated verifier of %s both change %s: two seeded bugs in the code under test say nothing about its verifier", m.Name, EnvOverlay, pkg)
	}
	overlay, err := m.writeOverlay(root, t.TempDir(), under)
	if err != nil {
		t.Fatalf("%v", err)
	}
	build := exec.Command("go", buildArgs(overlay, v)...)
	build.Dir = root
	build.Env = append(os.Environ(), "PWD="+root)
	if out, err := build.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("exec format error")) {
			// This test runs emulated (go test -exec qemu-aarch64): the
			// go command builds the verifier for the same GOARCH, and
			// the host cannot run that binary without binfmt_misc.
			t.Skipf("mutant %s: the verifier's test binary cannot run on this host:\n%s", m.Name, out)
		}
		t.Fatalf("mutant %s does not build:\n%s", m.Name, out)
	}
	lockMachine(t)
	count := max(v.Count, 1)
	// -failfast: with Count > 1, stop at the first run that reports.
	args := []string{"test", "-overlay", overlay, "-count", strconv.Itoa(count), "-failfast", "-vet=off", "-timeout=5m", "-run", v.Run}
	if v.Tags != "" {
		args = append(args, "-tags", v.Tags)
	}
	args = append(args, v.Pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	// A failing rapid check would write a fail file into the source tree;
	// the mutant's failure is expected.
	cmd.Env = append(append(os.Environ(), "RAPID_NOFAILFILE=true", "PWD="+root), v.Env...)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
		t.Fatalf("mutant %s does not build:\n%s", m.Name, text)
	}
	if err == nil {
		t.Fatalf("%s did not report mutant %s:\n%s", v.Name, m.Name, text)
	}
	for _, want := range v.MustPrint {
		if !strings.Contains(text, want) {
			t.Fatalf("%s failed on mutant %s without printing %q:\n%s", v.Name, m.Name, want, text)
		}
	}
	return text
}

// buildArgs compiles the verifier's test binary with the mutant (into the
// build cache) without running it. Both go commands leave go vet out: the
// seeded bug must be reported by the verifier, not by vet.
func buildArgs(overlay string, v Verifier) []string {
	args := []string{"test", "-overlay", overlay, "-run", "^$", "-count=1", "-vet=off"}
	if v.Tags != "" {
		args = append(args, "-tags", v.Tags)
	}
	return append(args, v.Pkg)
}

// WriteOverlay writes m's mutated files, read from the module at root,
// into dir, with the file that go build's -overlay takes to substitute them
// for the originals, and returns that file's path. The module itself is not
// changed.
func (m Mutant) WriteOverlay(root, dir string) (string, error) {
	return m.writeOverlay(root, dir, nil)
}

// EnvOverlay names the overlay file of a seeded bug in a verifier, for
// [Report] to build under: a campaign sets it when it runs the known-bad
// tests of a mutated verifier, so that each of their runs checks the
// mutated verifier rather than the module's. Report keeps that overlay's
// replacements and adds its own mutant's, which must be of other packages
// (it skips a mutant of a package the overlay changes).
const EnvOverlay = "VSCHED_MUTANT_OVERLAY"

// readOverlay returns the replacements of the overlay file at path (go
// build's -overlay format), none for an empty path.
func readOverlay(path string) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var o struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("overlay %s: %v", path, err)
	}
	return o.Replace, nil
}

// sharedPackage returns a directory, relative to root, holding a file that
// m changes and a file that the overlay's replacements under change.
func sharedPackage(root string, m Mutant, under map[string]string) (string, bool) {
	for p := range under {
		dir, err := filepath.Rel(root, filepath.Dir(p))
		if err != nil {
			continue
		}
		for _, f := range m.Files {
			if path.Dir(f) == filepath.ToSlash(dir) {
				return path.Dir(f), true
			}
		}
	}
	return "", false
}

// writeOverlay is WriteOverlay over the replacements of another overlay,
// under, which it keeps: m may change no file that under replaces.
func (m Mutant) writeOverlay(root, dir string, under map[string]string) (string, error) {
	for _, f := range m.Files {
		if _, ok := under[filepath.Join(root, filepath.FromSlash(f))]; ok {
			return "", fmt.Errorf("mutant %s changes %s, which the overlay it is built over replaces", m.Name, f)
		}
	}
	mutated, err := m.Apply(root)
	if err != nil {
		return "", err
	}
	replace := maps.Clone(under)
	if replace == nil {
		replace = map[string]string{}
	}
	for i, f := range m.Files {
		p := filepath.Join(dir, strconv.Itoa(i)+"_"+filepath.Base(f))
		if err := os.WriteFile(p, mutated[f], 0o644); err != nil {
			return "", err
		}
		replace[filepath.Join(root, filepath.FromSlash(f))] = p
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": replace})
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, "overlay.json")
	return p, os.WriteFile(p, overlay, 0o644)
}

// ModuleRoot returns the directory of the main module's go.mod, as the go
// command run in the current directory sees it.
func ModuleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("mutant: not inside a module")
	}
	return filepath.Dir(gomod), nil
}
