package proptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// mutant is a seeded bug: one exact edit of the real source, applied at
// build time through go build's -overlay, so the verifiers are shown to catch
// bugs in the code they check and not in a look-alike.
type mutant struct {
	name     string
	file     string // relative to the module root
	old, new string // old must occur exactly once in file
}

// knownBadQueues are the queue bugs that the property tests and the fuzz
// seeds must both report.
var knownBadQueues = []mutant{
	{
		name: "steal-floor-half",
		file: "runq/ring.go",
		old:  "n -= n / 2",
		new:  "n /= 2 // mutant: steals floor(L/2)",
	},
	{
		name: "kicked-runnext-lost",
		file: "runq/ring.go",
		old:  "\t\t// Kick the old runnext out to the regular ring.\n\t\tg = old\n",
		new:  "\t\treturn nil // mutant: the kicked runnext is dropped\n",
	},
}

// verifiers are the go test invocations that must fail on every mutant, with
// the line their failure must print.
var verifiers = []struct {
	name, pkg, run, mustPrint string
}{
	{"proptest", "./proptest", "^TestQueueMatchesSpec$", "--- FAIL: TestQueueMatchesSpec"},
	{"fuzz", "./fuzz", "^FuzzQueue$", "--- FAIL: FuzzQueue/"},
}

func TestKnownBadQueuesAreReported(t *testing.T) {
	root := moduleRoot(t)
	for _, m := range knownBadQueues {
		overlay := writeOverlay(t, root, m)
		for _, v := range verifiers {
			t.Run(m.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command(goTool(), "test", "-overlay", overlay, "-count=1", "-timeout=5m",
					"-run", v.run, v.pkg, "-args", "-rapid.nofailfile")
				cmd.Dir = root
				out, err := cmd.CombinedOutput()
				text := string(out)
				if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
					t.Fatalf("mutant %s does not build:\n%s", m.name, text)
				}
				if err == nil {
					t.Fatalf("%s did not report mutant %s:\n%s", v.name, m.name, text)
				}
				if !strings.Contains(text, v.mustPrint) || !strings.Contains(text, "spec mismatch") && !strings.Contains(text, "spec: invariant") {
					t.Fatalf("%s failed on mutant %s without a spec verdict:\n%s", v.name, m.name, text)
				}
			})
		}
	}
}

// writeOverlay writes the mutated file and the overlay that substitutes it,
// and returns the overlay's path.
func writeOverlay(t *testing.T, root string, m mutant) string {
	t.Helper()
	path := filepath.Join(root, m.file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), m.old); n != 1 {
		t.Fatalf("mutant %s: %q occurs %d times in %s, want exactly once; update the mutant with the code", m.name, m.old, n, m.file)
	}
	dir := t.TempDir()
	mutated := filepath.Join(dir, filepath.Base(m.file))
	if err := os.WriteFile(mutated, []byte(strings.Replace(string(src), m.old, m.new, 1)), 0o644); err != nil {
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

func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(goTool(), "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside the module")
	}
	return filepath.Dir(gomod)
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(runtime.GOROOT(), "bin", "go")
}
