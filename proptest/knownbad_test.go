package proptest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// mutant is a seeded bug: one exact edit of the real source, applied at
// build time through go build's -overlay, so the verifiers are shown to catch
// bugs in the code they check and not in a look-alike.
type mutant struct {
	name      string
	file      string // relative to the module root
	old, new  string // old must occur exactly once in file
	verifiers []verifier
}

// verifier is a go test invocation that must fail on a mutant, printing
// every string of mustPrint.
type verifier struct {
	name, pkg, run string
	count          int // runs; more for verifiers that rely on real parallelism
	mustPrint      []string
}

var (
	// The sequential verifiers print a spec verdict.
	byProptest = verifier{"proptest", "./proptest", "^TestQueueMatchesSpec$", 1,
		[]string{"--- FAIL: TestQueueMatchesSpec", "spec"}}
	byFuzzSeeds = verifier{"fuzz", "./fuzz", "^FuzzQueue$", 1,
		[]string{"--- FAIL: FuzzQueue/", "spec"}}
	// The concurrent stress tests of package runq catch what only real
	// parallelism reaches; three runs make a miss on a busy machine unlikely.
	byStealStress = verifier{"steal-stress", "./runq", "^TestConcurrentStealsConsumeEveryItemExactlyOnce$", 3,
		[]string{"--- FAIL: TestConcurrentStealsConsumeEveryItemExactlyOnce", "want exactly once"}}
	byEmptyStress = verifier{"empty-stress", "./runq", "^TestEmptyNeverFalselyTrue$", 3,
		[]string{"--- FAIL: TestEmptyNeverFalselyTrue", "Empty() reported true"}}
)

// knownBadQueues are seeded bugs in runq that the verifiers named with each
// must report.
var knownBadQueues = []mutant{
	{
		name:      "steal-floor-half",
		file:      "runq/ring.go",
		old:       "n -= n / 2",
		new:       "n /= 2 // mutant: steals floor(L/2)",
		verifiers: []verifier{byProptest, byFuzzSeeds},
	},
	{
		name:      "kicked-runnext-lost",
		file:      "runq/ring.go",
		old:       "\t\t// Kick the old runnext out to the regular ring.\n\t\tg = old\n",
		new:       "\t\treturn nil // mutant: the kicked runnext is dropped\n",
		verifiers: []verifier{byProptest, byFuzzSeeds},
	},
	{
		name:      "get-store-not-cas",
		file:      "runq/ring.go",
		old:       "\t\tg := r.slots[h%Size].Load()\n\t\tif r.head.CasRel(h, h+1) { // cas-release, commits consume\n\t\t\treturn g, false\n\t\t}\n",
		new:       "\t\tg := r.slots[h%Size].Load()\n\t\tr.head.StoreRel(h + 1) // mutant: a store races the thieves' CAS\n\t\treturn g, false\n",
		verifiers: []verifier{byStealStress},
	},
	{
		name:      "drain-store-not-cas",
		file:      "runq/ring.go",
		old:       "if r.head.CasRel(h, t) {",
		new:       "if r.head.StoreRel(t); true { // mutant: a store races the thieves' CAS",
		verifiers: []verifier{byStealStress},
	},
	{
		name:      "putslow-store-not-cas",
		file:      "runq/ring.go",
		old:       "\tif !r.head.CasRel(h, h+n) { // cas-release, commits consume\n\t\treturn nil\n\t}\n",
		new:       "\tr.head.StoreRel(h + n) // mutant: a store races the thieves' CAS\n",
		verifiers: []verifier{byStealStress},
	},
	{
		name:      "empty-single-tail-read",
		file:      "runq/ring.go",
		old:       "\t\tnext := r.runnext.Load()\n\t\tif t == r.tail.Load() {\n\t\t\treturn h == t && next == nil\n",
		new:       "\t\tnext := r.runnext.Load()\n\t\tif true { // mutant: no second tail read\n\t\t\treturn h == t && next == nil\n",
		verifiers: []verifier{byEmptyStress},
	},
}

// TestKnownBadQueuesAreReported runs "go" from PATH, where go test puts its
// own GOROOT/bin first.
func TestKnownBadQueuesAreReported(t *testing.T) {
	root := moduleRoot(t)
	for _, m := range knownBadQueues {
		overlay := writeOverlay(t, root, m)
		for _, v := range m.verifiers {
			t.Run(m.name+"/"+v.name, func(t *testing.T) {
				t.Parallel()
				cmd := exec.Command("go", "test", "-overlay", overlay, "-count", strconv.Itoa(v.count),
					"-timeout=5m", "-run", v.run, v.pkg)
				cmd.Dir = root
				// A failing rapid check would write a fail file into the
				// source tree; the mutant's failure is expected.
				cmd.Env = append(os.Environ(), "RAPID_NOFAILFILE=true")
				out, err := cmd.CombinedOutput()
				text := string(out)
				if strings.Contains(text, "[build failed]") || strings.Contains(text, "[setup failed]") {
					t.Fatalf("mutant %s does not build:\n%s", m.name, text)
				}
				if err == nil {
					t.Fatalf("%s did not report mutant %s:\n%s", v.name, m.name, text)
				}
				for _, want := range v.mustPrint {
					if !strings.Contains(text, want) {
						t.Fatalf("%s failed on mutant %s without printing %q:\n%s", v.name, m.name, want, text)
					}
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
