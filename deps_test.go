// Package vsched_test checks the module's import graph against
// ARCHITECTURE.md's layer table, stated as data in deps_test.go, as Go's
// go/build/deps_test.go does for the standard library. It is a test-only
// package: the module root holds no library code.
package vsched_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the module path; the table below names the module's packages
// relative to it.
const module = "github.com/vsched/vsched"

// pkgRule is what one package of the module may import.
type pkgRule struct {
	// imports are the module's packages (relative to the module root) and
	// the third-party packages (full paths) the package may import. The
	// standard library is free but for the two rules below.
	imports []string
	// schedState marks a package above internal/xsync that holds scheduler
	// state: it imports no sync/atomic, and no sync but in the files of
	// syncOK, so that the explorer sees every synchronizing step.
	schedState bool
	// syncOK lists the files (relative to the module root) of a
	// schedState package that may import sync, each with its reason.
	syncOK map[string]string
}

// layers is ARCHITECTURE.md's "Layers" table and its "Never:" paragraph as
// data: every package of the module (bench/ is a module of its own) with
// what its non-test files may import, whatever their build tags. A package
// that is not listed fails the check, so a new package gets its row when it
// arrives. The verifiers and tools may import anything below them; the
// implementation (runq, steal, netpoll, kernel) imports nothing of them.
var layers = map[string]pkgRule{
	// Primitives. The explorer build of xsync hands every operation to the
	// engine; testhook holds the hooks of the packages' tests.
	"internal/xsync":    {imports: []string{"internal/explorer"}},
	"internal/explorer": {imports: []string{"internal/campaign"}},
	"internal/testhook": {},
	// campaign names the environment variables and flags that cmd/vsched
	// and the verifiers share.
	"internal/campaign": {},

	// The implementation.
	"runq":  {imports: []string{"internal/xsync", "internal/testhook", "golang.org/x/sys/cpu"}, schedState: true},
	"steal": {schedState: true},
	// netpoll's explorer build (wait_explore_linux.go) asks the engine
	// whether a model runs, as xsync does, to replace a blocking
	// epoll_wait with a sleep the explorer sees.
	"netpoll": {imports: []string{"internal/xsync", "internal/explorer", "internal/pollproto", "golang.org/x/sys/unix"}, schedState: true},
	// pollproto is the netpoll-kernel wait protocol, used by those two
	// only.
	"internal/pollproto": {},
	"kernel":             {imports: []string{"internal/xsync", "internal/testhook", "internal/pollproto", "netpoll", "runq", "steal"}, schedState: true},
	// metrics is a client of kernel's public API and holds no scheduler
	// state: its sync.Mutex serializes expvar registration.
	"kernel/metrics": {imports: []string{"kernel"}},

	// The oracle imports no implementation package.
	"spec": {},

	// The verifiers.
	"proptest":        {imports: []string{"internal/testhook", "kernel", "runq", "spec", "steal", "pgregory.net/rapid"}},
	"fuzz":            {imports: []string{"proptest", "pgregory.net/rapid"}},
	"linearizability": {imports: []string{"internal/campaign", "internal/testhook", "runq", "spec", "github.com/anishathalye/porcupine", "golang.org/x/sys/cpu"}},
	"explore":         {imports: []string{"internal/explorer", "internal/xsync", "internal/testhook", "kernel", "netpoll", "runq", "spec", "steal"}},
	"internal/mutant": {},

	// The tools and the examples.
	"cmd/vsched":                        {imports: []string{"internal/campaign", "internal/mutant"}},
	"examples/internal/serve":           {imports: []string{"kernel", "netpoll"}},
	"examples/internal/serve/servetest": {imports: []string{"kernel"}},
	"examples/echo":                     {imports: []string{"examples/internal/serve", "kernel"}},
	"examples/echo/cmd/echo":            {imports: []string{"examples/echo", "examples/internal/serve"}},
	"examples/resp":                     {imports: []string{"examples/internal/serve", "kernel"}},
	"examples/resp/cmd/resp":            {imports: []string{"examples/internal/serve", "examples/resp"}},
}

// never is the "Never:" paragraph: edges that no row of layers may allow.
// TestLayerTableKeepsTheNeverRules holds the table to it, so that a row
// widened by mistake fails before any code uses the edge.
var never = map[string][]string{
	"runq":    {"spec", "proptest", "fuzz", "linearizability", "explore", "internal/mutant", "github.com/anishathalye/porcupine", "pgregory.net/rapid", "github.com/stretchr/testify"},
	"steal":   {"spec", "proptest", "fuzz", "linearizability", "explore", "internal/mutant", "github.com/anishathalye/porcupine", "pgregory.net/rapid", "github.com/stretchr/testify"},
	"netpoll": {"spec", "proptest", "fuzz", "linearizability", "explore", "internal/mutant", "github.com/anishathalye/porcupine", "pgregory.net/rapid", "github.com/stretchr/testify"},
	"kernel":  {"spec", "proptest", "fuzz", "linearizability", "explore", "internal/mutant", "github.com/anishathalye/porcupine", "pgregory.net/rapid", "github.com/stretchr/testify"},
	"spec":    {"internal/xsync", "runq", "steal", "netpoll", "kernel"},
}

// importEdge is one import of one non-test file.
type importEdge struct {
	pkg  string // importing package, relative to the module root
	file string // relative to the module root, slash-separated
	path string // the imported path as written
}

// scanImports returns the imports of every non-test .go file of the module
// rooted at root, whatever its build constraints, and the module's package
// directories. It skips testdata, directories whose names start with "."
// or "_", and nested modules.
func scanImports(root string) (edges []importEdge, pkgs []string, err error) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir // a module of its own (bench/)
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := path.Dir(rel)
		if !seen[pkg] {
			seen[pkg] = true
			pkgs = append(pkgs, pkg)
		}
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: import %s: %v", rel, imp.Path.Value, err)
			}
			edges = append(edges, importEdge{pkg: pkg, file: rel, path: ip})
		}
		return nil
	})
	slices.Sort(pkgs)
	return edges, pkgs, err
}

// checkImports holds the edges and packages to the table and returns one
// line per violation, each naming the edge, the file and the rule.
func checkImports(table map[string]pkgRule, edges []importEdge, pkgs []string) []string {
	var bad []string
	for _, pkg := range pkgs {
		if _, ok := table[pkg]; !ok {
			bad = append(bad, fmt.Sprintf("package %s is not in the layer table (deps_test.go): give it a row", pkg))
		}
	}
	for _, e := range edges {
		rule, ok := table[e.pkg]
		if !ok {
			continue // reported above
		}
		switch {
		case e.path == module || strings.HasPrefix(e.path, module+"/"):
			to := strings.TrimPrefix(strings.TrimPrefix(e.path, module), "/")
			if !slices.Contains(rule.imports, to) {
				bad = append(bad, fmt.Sprintf("%s imports %s (%s): not an edge of the layer table; %s may import %s",
					e.pkg, to, e.file, e.pkg, allowedList(rule)))
			}
		case isStd(e.path):
			if !rule.schedState {
				continue
			}
			switch e.path {
			case "sync/atomic":
				bad = append(bad, fmt.Sprintf("%s imports sync/atomic (%s): %s holds scheduler state, whose atomics come from internal/xsync so that the explorer sees them",
					e.pkg, e.file, e.pkg))
			case "sync":
				if _, ok := rule.syncOK[e.file]; !ok {
					bad = append(bad, fmt.Sprintf("%s imports sync (%s): %s holds scheduler state, whose locks are xsync.Mutex so that the explorer sees them (or list the file, with its reason, in the table's syncOK)",
						e.pkg, e.file, e.pkg))
				}
			}
		default:
			if !slices.Contains(rule.imports, e.path) {
				bad = append(bad, fmt.Sprintf("%s imports %s (%s): not an edge of the layer table; %s may import %s",
					e.pkg, e.path, e.file, e.pkg, allowedList(rule)))
			}
		}
	}
	return bad
}

// isStd reports whether path is a standard library package: its first
// element has no dot (the go command's rule for module paths).
func isStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

func allowedList(rule pkgRule) string {
	if len(rule.imports) == 0 {
		return "only the standard library"
	}
	return strings.Join(rule.imports, ", ") + " and the standard library"
}

// TestImportsFollowTheLayerTable checks every non-test file of the module
// against the layer table.
func TestImportsFollowTheLayerTable(t *testing.T) {
	edges, pkgs, err := scanImports(".")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(pkgs, "kernel") || !slices.Contains(pkgs, "runq") || len(edges) < 100 {
		t.Fatalf("the scan found %d packages and %d imports (%v): is it run from the module root?", len(pkgs), len(edges), pkgs)
	}
	for _, line := range checkImports(layers, edges, pkgs) {
		t.Error(line)
	}
}

// TestLayerTableKeepsTheNeverRules holds the table to the "Never:" edges.
func TestLayerTableKeepsTheNeverRules(t *testing.T) {
	for from, tos := range never {
		rule, ok := layers[from]
		if !ok {
			t.Errorf("%s has a Never rule but no row in the layer table", from)
		}
		for _, to := range tos {
			if slices.Contains(rule.imports, to) {
				t.Errorf("the layer table lets %s import %s, which ARCHITECTURE.md's Never: paragraph forbids", from, to)
			}
		}
		if rule.schedState && len(rule.syncOK) > 0 {
			for file, why := range rule.syncOK {
				if strings.TrimSpace(why) == "" || path.Dir(file) != from {
					t.Errorf("%s's sync exception %q needs a file of the package and a reason", from, file)
				}
			}
		}
	}
	for _, pkg := range []string{"runq", "steal", "netpoll", "kernel"} {
		if !layers[pkg].schedState {
			t.Errorf("%s holds scheduler state but its row does not say so", pkg)
		}
	}
}

// TestDepsCheckReportsSeededViolations runs the scan and the check on
// testdata/deps, a module tree whose files break each rule once, and
// expects exactly those reports.
func TestDepsCheckReportsSeededViolations(t *testing.T) {
	edges, pkgs, err := scanImports(filepath.Join("testdata", "deps"))
	if err != nil {
		t.Fatal(err)
	}
	got := checkImports(layers, edges, pkgs)
	want := []string{
		"package newpkg is not in the layer table",
		"runq imports spec (runq/bad.go): not an edge of the layer table",
		"runq imports sync/atomic (runq/bad.go)",
		"kernel imports sync (kernel/bad.go)",
		"kernel imports pgregory.net/rapid (kernel/bad.go): not an edge of the layer table",
		"spec imports kernel (spec/bad.go): not an edge of the layer table; spec may import only the standard library",
	}
	if len(got) != len(want) {
		t.Fatalf("the check reported %d violations, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
			t.Errorf("no report starts with %q; got:\n%s", w, strings.Join(got, "\n"))
		}
	}
	// A file listed as a sync exception passes.
	table := map[string]pkgRule{}
	for k, v := range layers {
		table[k] = v
	}
	kr := table["kernel"]
	kr.syncOK = map[string]string{"kernel/bad.go": "the seeded exception"}
	table["kernel"] = kr
	for _, line := range checkImports(table, edges, pkgs) {
		if strings.HasPrefix(line, "kernel imports sync ") {
			t.Errorf("a listed sync exception was reported: %s", line)
		}
	}
}
