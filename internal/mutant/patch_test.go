//go:build !vsched_explore

package mutant

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEveryPatchParsesAndAppliesToTheSource(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	all := All()
	if len(all) < 25 {
		t.Fatalf("%d mutants, want at least 25", len(all))
	}
	for _, m := range all {
		if m.Doc == "" {
			t.Errorf("%s: no description", m.Name)
		}
		if _, err := m.Apply(root); err != nil {
			t.Error(err)
		}
	}
}

const sample = `two-hunks: changes two places.

Expect: linearizability
Test: TestQueue/sub

--- a/f.go
+++ b/f.go
@@ -2,3 +2,3 @@ func f() {
 	a := 1
-	b := 2
+	b := 3
 	c := 4
@@ -8,2 +8,3 @@
 	x := a
+	y := b
 	return
`

func TestApplyFindsHunksThatMovedAndRefusesStaleOnes(t *testing.T) {
	m, err := Parse("two-hunks", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if m.Doc != "changes two places." || m.Expect != "linearizability" || m.Test != "TestQueue/sub" || len(m.Files) != 1 || m.Pkg() != "." {
		t.Fatalf("parsed %+v", m)
	}
	dir := t.TempDir()
	write := func(s string) {
		if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Two lines were inserted above both hunks since the patch was made.
	write("// new\n// new\nfunc f() {\n\ta := 1\n\tb := 2\n\tc := 4\n\t_ = c\n\t_ = b\n\t_ = a\n\tx := a\n\treturn\n}\n")
	got, err := m.Apply(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "// new\n// new\nfunc f() {\n\ta := 1\n\tb := 3\n\tc := 4\n\t_ = c\n\t_ = b\n\t_ = a\n\tx := a\n\ty := b\n\treturn\n}\n"
	if string(got["f.go"]) != want {
		t.Fatalf("applied:\n%s\nwant:\n%s", got["f.go"], want)
	}
	write(strings.Replace(want, "b := 3", "b := 5", 1))
	if _, err := m.Apply(dir); err == nil || !strings.Contains(err.Error(), "no longer applies") {
		t.Fatalf("a patch whose lines are gone applied: %v", err)
	}
}

func TestParseRejectsAMalformedHeader(t *testing.T) {
	for _, text := range []string{
		strings.Replace(sample, "two-hunks:", "other:", 1),
		strings.Replace(sample, "Expect:", "Expects:", 1),
		strings.Replace(sample, "Expect: linearizability\n", "", 1), // a Test: of no verifier
		strings.Replace(sample, "TestQueue/sub", "TestQueue sub", 1),
		"two-hunks: no diff.\n",
	} {
		if _, err := Parse("two-hunks", []byte(text)); err == nil {
			t.Errorf("parsed %q", text)
		}
	}
}

func TestWriteOverlayReplacesTheFileAndLeavesTheModuleAlone(t *testing.T) {
	m, err := Parse("two-hunks", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	root, dir := t.TempDir(), t.TempDir()
	orig := "func f() {\n\ta := 1\n\tb := 2\n\tc := 4\n\t_ = c\n\t_ = b\n\t_ = a\n\tx := a\n\treturn\n}\n"
	if err := os.WriteFile(filepath.Join(root, "f.go"), []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	path, err := m.WriteOverlay(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var overlay struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &overlay); err != nil {
		t.Fatalf("overlay %s: %v", data, err)
	}
	mutated, err := os.ReadFile(overlay.Replace[filepath.Join(root, "f.go")])
	if err != nil || !strings.Contains(string(mutated), "b := 3") || !strings.Contains(string(mutated), "y := b") {
		t.Fatalf("overlay %s replaces f.go with %q (%v), want the mutated file", data, mutated, err)
	}
	if src, _ := os.ReadFile(filepath.Join(root, "f.go")); string(src) != orig {
		t.Errorf("the module's f.go changed:\n%s", src)
	}
}

// A known-bad test of a mutated verifier builds its own mutant over the
// verifier's: the overlay keeps the verifier's files beside the mutant's,
// and refuses a mutant of a file the verifier's overlay replaces.
func TestOverlayOverAVerifiersMutantKeepsBothBugs(t *testing.T) {
	m, err := Parse("two-hunks", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	root, outer, dir := t.TempDir(), t.TempDir(), t.TempDir()
	orig := "func f() {\n\ta := 1\n\tb := 2\n\tc := 4\n\t_ = c\n\t_ = b\n\t_ = a\n\tx := a\n\treturn\n}\n"
	for _, f := range []string{"f.go", "v.go"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(orig), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	verifierBug := filepath.Join(outer, "v.go")
	if err := os.WriteFile(verifierBug, []byte("package verifier bug\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	under := map[string]string{filepath.Join(root, "v.go"): verifierBug}
	path, err := m.writeOverlay(root, dir, under)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readOverlay(path)
	if err != nil {
		t.Fatal(err)
	}
	if got[filepath.Join(root, "v.go")] != verifierBug {
		t.Errorf("overlay %v drops the verifier's v.go", got)
	}
	mutated, err := os.ReadFile(got[filepath.Join(root, "f.go")])
	if err != nil || !strings.Contains(string(mutated), "b := 3") || !strings.Contains(string(mutated), "y := b") {
		t.Fatalf("overlay %v replaces f.go with %q (%v), want the mutant's", got, mutated, err)
	}
	under[filepath.Join(root, "f.go")] = verifierBug
	if _, err := m.writeOverlay(root, t.TempDir(), under); err == nil || !strings.Contains(err.Error(), "replaces") {
		t.Errorf("built over an overlay that replaces its own file: %v", err)
	}
	if got, err := readOverlay(""); got != nil || err != nil {
		t.Errorf("readOverlay(\"\") = %v, %v; want none", got, err)
	}
}
