// Package mutant applies seeded bugs to the real source of the module and
// asserts that a verifier reports them. It is test support: a verifier is
// trusted only once it has been shown to catch a bug in the code it checks,
// so every mutant is one exact edit of a real file, substituted at build time
// through go build's -overlay, never a look-alike copy of the code.
package mutant

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Mutant is a seeded bug: Old must occur exactly once in File, and New
// replaces it.
type Mutant struct {
	Name     string
	File     string // relative to the module root
	Old, New string
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
// Mutant runs take a machine-wide lock and so run one at a time, across
// packages too; the mutant is built before the lock is taken.
func Report(t *testing.T, m Mutant, v Verifier) string {
	t.Helper()
	root := ModuleRoot(t)
	overlay := Overlay(t, root, m)
	build := exec.Command("go", buildArgs(overlay, v)...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("mutant %s does not build:\n%s", m.Name, out)
	}
	lockMachine(t)
	count := max(v.Count, 1)
	// -failfast: with Count > 1, stop at the first run that reports.
	args := []string{"test", "-overlay", overlay, "-count", strconv.Itoa(count), "-failfast", "-timeout=5m", "-run", v.Run}
	if v.Tags != "" {
		args = append(args, "-tags", v.Tags)
	}
	args = append(args, v.Pkg)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	// A failing rapid check would write a fail file into the source tree;
	// the mutant's failure is expected.
	cmd.Env = append(append(os.Environ(), "RAPID_NOFAILFILE=true"), v.Env...)
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
// build cache) without running it.
func buildArgs(overlay string, v Verifier) []string {
	args := []string{"test", "-overlay", overlay, "-run", "^$", "-count=1"}
	if v.Tags != "" {
		args = append(args, "-tags", v.Tags)
	}
	return append(args, v.Pkg)
}

// Overlay writes the mutated file and the overlay that substitutes it for
// the original, and returns the overlay's path.
func Overlay(t testing.TB, root string, m Mutant) string {
	t.Helper()
	path := filepath.Join(root, m.File)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), m.Old); n != 1 {
		t.Fatalf("mutant %s: %q occurs %d times in %s, want exactly once; update the mutant with the code", m.Name, m.Old, n, m.File)
	}
	dir := t.TempDir()
	mutated := filepath.Join(dir, filepath.Base(m.File))
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), m.Old, m.New, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	overlay, err := json.Marshal(map[string]map[string]string{"Replace": {path: mutated}})
	if err != nil {
		t.Fatal(err)
	}
	overlayPath := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlayPath, overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	return overlayPath
}

// ModuleRoot returns the directory of the main module's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside the module")
	}
	return filepath.Dir(gomod)
}
