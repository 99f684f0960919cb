package mutant

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The seeded bugs, one unified diff per mutant. "git apply" takes them too,
// so a reader can apply one to a clone and watch a verifier fail.
//
//go:embed testdata/mutants/*.patch
var patches embed.FS

// PatchDir is where the patches live, relative to the module root.
const PatchDir = "internal/mutant/testdata/mutants"

// Mutant is a seeded bug: a patch to the module's source. A patch file
// starts with a paragraph "<name>: <what the bug does>", optionally followed
// by a paragraph of fields, one "Key: value" per line:
//
//	Expect: linearizability
//	Test: TestQueueHistoriesAreLinearizable
//	Equivalent: why no verifier can tell the mutant from the original
//
// then the unified diff (one or more files, with a/ and b/ prefixes, as
// diff -u and git diff write them).
type Mutant struct {
	Name string
	Doc  string // what the bug does, from the patch's header
	// Expect names the verifier of "vsched mutants" expected to kill the
	// mutant. The campaign runs it first and reports the mutant when it
	// does not kill it; "vsched mutants -fast" skips the mutants that
	// expect a slow verifier.
	Expect string
	// Test, when set, names the test of Expect's verifier that fails with
	// the mutant, as go test reports it ("TestX" or "TestX/sub/case").
	// The campaign runs that test alone first, since a verifier's whole
	// suite can take half a minute to reach the one test that fails, and
	// the whole suites only if it passes.
	Test string
	// Equivalent, when set, says why the mutant cannot be told from the
	// original: it is expected to survive.
	Equivalent string
	// Files are the files the patch changes, relative to the module root.
	Files []string
	files []filePatch
}

// TestPattern is the go test -run pattern that matches m.Test and no
// other test.
func (m Mutant) TestPattern() string {
	parts := strings.Split(m.Test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// Pkg is the package directory of the mutated code, relative to the module
// root: the directory of its first file.
func (m Mutant) Pkg() string { return path.Dir(m.Files[0]) }

type filePatch struct {
	file  string
	hunks []hunk
}

// hunk is one "@@ -line,n +line,n @@" section: the lines it expects (context
// and removed) and the lines it leaves (context and added).
type hunk struct {
	old, new []string
}

// All returns every mutant, sorted by name.
func All() []Mutant {
	all, err := Load(patches, "testdata/mutants")
	if err != nil {
		panic(err)
	}
	return all
}

// Load reads the patches in dir of fsys, sorted by name: os.DirFS(root)
// and PatchDir read a module's own, as "vsched mutants" does.
func Load(fsys fs.FS, dir string) ([]Mutant, error) {
	paths, err := fs.Glob(fsys, path.Join(dir, "*.patch"))
	if err == nil && len(paths) == 0 {
		err = fmt.Errorf("mutant: no patches in %s", dir)
	}
	var all []Mutant
	for _, p := range paths {
		text, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		m, err := Parse(strings.TrimSuffix(path.Base(p), ".patch"), text)
		if err != nil {
			return nil, err
		}
		all = append(all, m)
	}
	return all, err
}

// Named returns the mutant of PatchDir/name.patch. It panics if there is no
// such patch or it does not parse, since the patches are part of the source.
func Named(name string) Mutant {
	text, err := patches.ReadFile("testdata/mutants/" + name + ".patch")
	if err != nil {
		panic(fmt.Sprintf("mutant: no patch %s/%s.patch", PatchDir, name))
	}
	m, err := Parse(name, text)
	if err != nil {
		panic(err)
	}
	return m
}

// Parse reads a mutant's patch.
func Parse(name string, text []byte) (Mutant, error) {
	m := Mutant{Name: name}
	bad := func(format string, args ...any) (Mutant, error) {
		return Mutant{}, fmt.Errorf("mutant %s: %s", name, fmt.Sprintf(format, args...))
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	i := 0
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "--- "); i++ {
		if strings.HasPrefix(lines[i], "diff ") || strings.HasPrefix(lines[i], "index ") {
			continue // git diff's own header lines
		}
		m.Doc += lines[i] + "\n"
	}
	doc, fields, _ := strings.Cut(strings.TrimSpace(m.Doc), "\n\n")
	doc, ok := strings.CutPrefix(doc, name+":")
	if !ok {
		return bad("the header must start with %q", name+":")
	}
	m.Doc = strings.Join(strings.Fields(doc), " ")
	for _, f := range strings.Split(strings.TrimSpace(fields), "\n") {
		key, val, _ := strings.Cut(f, ":")
		val = strings.TrimSpace(val)
		switch {
		case f == "":
		case key == "Expect" && val != "":
			m.Expect = val
		case key == "Test" && val != "" && !strings.ContainsAny(val, " \t"):
			m.Test = val
		case key == "Equivalent" && val != "":
			m.Equivalent = val
		default:
			return bad("header line %q: want Expect:, Test: (a test's name) or Equivalent: with a value", f)
		}
	}
	if m.Test != "" && m.Expect == "" {
		return bad("Test: %s without Expect: names a test of no verifier", m.Test)
	}
	for i < len(lines) {
		if !strings.HasPrefix(lines[i], "--- a/") || i+1 == len(lines) || !strings.HasPrefix(lines[i+1], "+++ b/") {
			return bad("line %d: want a '--- a/file' and '+++ b/file' pair, got %q", i+1, lines[i])
		}
		fp := filePatch{file: strings.Fields(strings.TrimPrefix(lines[i], "--- a/"))[0]}
		i += 2
		for i < len(lines) && strings.HasPrefix(lines[i], "@@ ") {
			h, err := parseHunkHeader(lines[i])
			if err != nil {
				return bad("line %d: %v", i+1, err)
			}
		body:
			for i++; i < len(lines); i++ {
				l := lines[i]
				if l == "" {
					l = " " // an empty context line whose space an editor trimmed
				}
				switch {
				case strings.HasPrefix(l, "--- a/"), strings.HasPrefix(l, "@@ "):
					break body
				case l[0] == ' ':
					h.old, h.new = append(h.old, l[1:]), append(h.new, l[1:])
				case l[0] == '-':
					h.old = append(h.old, l[1:])
				case l[0] == '+':
					h.new = append(h.new, l[1:])
				case l[0] == '\\':
					// "\ No newline at end of file"
				default:
					return bad("line %d: %q is not part of a hunk", i+1, lines[i])
				}
			}
			fp.hunks = append(fp.hunks, h)
		}
		if len(fp.hunks) == 0 {
			return bad("no hunks for %s", fp.file)
		}
		m.files = append(m.files, fp)
		m.Files = append(m.Files, fp.file)
	}
	if len(m.files) == 0 {
		return bad("no diff")
	}
	return m, nil
}

func parseHunkHeader(l string) (hunk, error) {
	f := strings.Fields(l)
	if len(f) < 4 || !strings.HasPrefix(f[1], "-") {
		return hunk{}, fmt.Errorf("bad hunk header %q", l)
	}
	// The line number is checked and then unused: Apply finds the
	// hunk's lines wherever they are.
	start, _, _ := strings.Cut(f[1][1:], ",")
	if _, err := strconv.Atoi(start); err != nil {
		return hunk{}, fmt.Errorf("bad hunk header %q", l)
	}
	return hunk{}, nil
}

// Apply returns the mutated contents of m's files, read from root. The
// expected lines of a hunk must occur in the file exactly once, at the
// line the diff names or wherever the code has moved since. A patch that
// no longer applies, or whose hunk matches more than one place, is an
// error naming the hunk, so that the mutant is updated with the code
// rather than silently skipped or applied in the wrong place.
func (m Mutant) Apply(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, fp := range m.files {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(fp.file)))
		if err != nil {
			return nil, fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		lines := strings.Split(string(src), "\n")
		for hi, h := range fp.hunks {
			at, n := find(lines, h.old)
			switch {
			case n == 0:
				return nil, fmt.Errorf("mutant %s: hunk %d of %s no longer applies (its lines are not in the file); update %s/%s.patch with the code",
					m.Name, hi+1, fp.file, PatchDir, m.Name)
			case n > 1:
				return nil, fmt.Errorf("mutant %s: hunk %d of %s matches %d places; add context to %s/%s.patch so that it names one",
					m.Name, hi+1, fp.file, n, PatchDir, m.Name)
			}
			lines = slices.Concat(lines[:at], h.new, lines[at+len(h.old):])
		}
		mutated := []byte(strings.Join(lines, "\n"))
		if bytes.Equal(mutated, src) {
			return nil, fmt.Errorf("mutant %s: the patch does not change %s", m.Name, fp.file)
		}
		out[fp.file] = mutated
	}
	return out, nil
}

// find returns the index in lines of the first occurrence of want (-1 if
// none) and the number of its occurrences.
func find(lines, want []string) (at, n int) {
	at = -1
	for i := range lines {
		if i+len(want) > len(lines) {
			break
		}
		if slices.Equal(lines[i:i+len(want)], want) {
			if n == 0 {
				at = i
			}
			n++
		}
	}
	return at, n
}
