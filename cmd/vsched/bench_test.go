package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

func TestBenchRejectsBadFlagsBeforeRunningAnything(t *testing.T) {
	t.Setenv(rootEnv, "/nonexistent-so-a-lookup-would-fail")
	for _, args := range [][]string{
		{"-count", "0"},
		{"-count", "-2"},
		{"-count", "six"},
		{"-benchtime", "soon"},
		{"-benchtime", "0x"},
		{"-benchtime", "-1s"},
		{"-bench", "("},
		{"-pkg", ""},
		{"-pkg", "  "},
		{"-nosuchflag"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		if code := runBench(context.Background(), args, &stdout, &stderr); code != exitUsage {
			t.Errorf("bench %q: exit %d, want %d; stderr:\n%s", args, code, exitUsage, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("bench %q printed to stdout:\n%s", args, stdout.String())
		}
	}
}

func TestBenchHelpDocumentsFlags(t *testing.T) {
	var b bytes.Buffer
	newBenchFlags(&b).fs.Usage()
	for _, s := range []string{"usage: vsched bench", "-bench", "-count", "-benchtime", "-pkg", "-o", "-v", "-col /impl"} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("bench usage does not mention %s:\n%s", s, b.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := runBench(context.Background(), []string{"-h"}, &stdout, &stderr); code != exitPass {
		t.Errorf("bench -h: exit %d, want 0", code)
	}
	if !strings.Contains(stderr.String(), "usage: vsched bench") {
		t.Errorf("bench -h printed no usage:\n%s", stderr.String())
	}
}

func TestValidBenchtime(t *testing.T) {
	for s, ok := range map[string]bool{
		"1s": true, "500ms": true, "100x": true, "1x": true,
		"0s": false, "-1s": false, "0x": false, "x": false, "ten": false, "": false,
	} {
		if err := validBenchtime(s); (err == nil) != ok {
			t.Errorf("validBenchtime(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

func TestParseBenchResult(t *testing.T) {
	for _, tc := range []struct {
		line string
		name string
		ok   bool
	}{
		{"BenchmarkDuo/impl=alpha-2         \t       1\t       415.0 ns/op", "BenchmarkDuo/impl=alpha-2", true},
		{"BenchmarkSpawnLocal/impl=kernel-2 \t 100 \t 1097005 ns/op \t 109.7 ns/task \t 0 B/op \t 5 allocs/op", "BenchmarkSpawnLocal/impl=kernel-2", true},
		{"BenchmarkX 1000 1.5e+03 ns/op", "BenchmarkX", true},
		{"BenchmarkFail-2   \t--- FAIL: BenchmarkFail-2", "", false},
		{"BenchmarkX-2   \t", "", false},
		{"BenchmarkX 1000 12 ns/op 7", "", false}, // a value without a unit
		{"BenchmarkX many 12 ns/op", "", false},
		{"--- BENCH: BenchmarkX-2", "", false},
		{"pkg: example.com/x", "", false},
	} {
		name, ok := parseBenchResult(tc.line)
		if name != tc.name || ok != tc.ok {
			t.Errorf("parseBenchResult(%q) = %q, %v; want %q, %v", tc.line, name, ok, tc.name, tc.ok)
		}
	}
}

func TestHasImplKey(t *testing.T) {
	for name, want := range map[string]bool{
		"BenchmarkDuo/impl=alpha-2":            true,
		"BenchmarkEcho/conns=10/impl=kernel-2": true,
		"BenchmarkQueue/op=PutGet-2":           false,
		"BenchmarkSolo-2":                      false,
		"Benchmarkimpl=x":                      false,
		"BenchmarkX/notimpl=y":                 false,
	} {
		if got := hasImplKey(name); got != want {
			t.Errorf("hasImplKey(%q) = %v, want %v", name, got, want)
		}
	}
}

// benchStream is go test -bench's standard output in the chunks a pipe
// delivers it: a benchmark's name first, the rest of its line when it has
// run. The second beta run arrives in one piece with its name, as it does
// when the benchmark is quicker than the reader.
var benchStream = []string{
	"goos: linux\ngoarch: amd64\npkg: example.com/standin/bench/tiny\ncpu: Intel(R) Xeon(R) Processor\n",
	"BenchmarkDuo/impl=alpha-2         \t",
	"       1\t       415.0 ns/op\n",
	"BenchmarkDuo/impl=alpha-2         \t",
	"       1\t       109.0 ns/op\n",
	"BenchmarkDuo/impl=beta-2          \t       1\t       537.0 ns/op\n",
	"BenchmarkDuo/impl=beta-2          \t",
	"       1\t       248.0 ns/op\n",
	"BenchmarkSlow-2                   \t",
	"--- FAIL: BenchmarkSlow-2\n    tiny_test.go:20: boom\n",
	"FAIL\nexit status 1\nFAIL\texample.com/standin/bench/tiny\t0.009s\nFAIL\n",
}

func TestBenchOutputFollowsRunningBenchmark(t *testing.T) {
	o := newBenchOutput()
	var lines, started, statuses []string
	w := benchStdout(o, func(l string) { lines = append(lines, l) }, func(name string) {
		started = append(started, name)
	})
	for _, chunk := range benchStream {
		w.Write([]byte(chunk))
		statuses = append(statuses, o.status(2))
	}
	w.flush()

	if want := []string{"BenchmarkDuo/impl=alpha-2", "BenchmarkDuo/impl=beta-2", "BenchmarkSlow-2"}; !reflect.DeepEqual(started, want) {
		t.Errorf("started %q, want %q", started, want)
	}
	if o.results != 4 || o.benchmarks != 2 || !o.impl {
		t.Errorf("results %d, benchmarks %d, impl %v; want 4, 2, true", o.results, o.benchmarks, o.impl)
	}
	if got, want := o.summary(), "4 results of 2 benchmarks"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	for i, want := range map[int]string{
		1: "tiny.BenchmarkDuo/impl=alpha-2 run 1/2, 0 results",
		3: "tiny.BenchmarkDuo/impl=alpha-2 run 2/2, 1 result",
		5: "tiny.BenchmarkDuo/impl=beta-2 run 1/2, 3 results",
		8: "tiny.BenchmarkSlow-2 run 1/2, 4 results",
	} {
		if statuses[i] != want {
			t.Errorf("status after chunk %d = %q, want %q", i, statuses[i], want)
		}
	}
	// Every line goes to the raw output, whole, the results included.
	if len(lines) != 14 || lines[4] != "BenchmarkDuo/impl=alpha-2         \t       1\t       415.0 ns/op" {
		t.Errorf("lines handed on: %q", lines)
	}
	want := []string{
		"BenchmarkSlow-2                   \t--- FAIL: BenchmarkSlow-2",
		"    tiny_test.go:20: boom",
		"FAIL\texample.com/standin/bench/tiny\t0.009s",
	}
	if !reflect.DeepEqual(o.kept, want) {
		t.Errorf("kept %q, want %q", o.kept, want)
	}
}

func TestJudgeBench(t *testing.T) {
	o := newBenchOutput()
	o.addLine("BenchmarkX-2 \t 10 \t 5 ns/op")
	if r := judgeBench(o, []string{"./..."}, nil, nil); r.verdict != pass || r.summary != "1 result of 1 benchmark" {
		t.Errorf("passing run: %v %q", r.verdict, r.summary)
	}
	r := judgeBench(newBenchOutput(), []string{"./nope"}, []string{"stat ./nope: no such file or directory"}, fmt.Errorf("exec: go: not found"))
	if r.verdict != fail || len(r.failures) != 1 || r.failures[0].title != "./nope" {
		t.Fatalf("failed run: %+v", r)
	}
	if want := []string{"stat ./nope: no such file or directory", "go test: exec: go: not found"}; !reflect.DeepEqual(r.failures[0].output, want) {
		t.Errorf("failure output %q, want %q", r.failures[0].output, want)
	}
}

func TestBenchstatArgs(t *testing.T) {
	if got, want := benchstatArgs("/tmp/a=b.txt", true), []string{"-col", "/impl", "results=/tmp/a=b.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("with impl: %q, want %q", got, want)
	}
	if got, want := benchstatArgs("/tmp/b.txt", false), []string{"results=/tmp/b.txt"}; !reflect.DeepEqual(got, want) {
		t.Errorf("without impl: %q, want %q", got, want)
	}
}

// standInBenchModule makes a module root whose bench/ module has one tiny
// benchmark with two implementations (Duo), one without (Solo) and one that
// fails (Broken), and the benchstat tool of the real bench module, at the
// same version, so that no new module is downloaded. It returns the root.
func standInBenchModule(t *testing.T) string {
	t.Helper()
	real := filepath.Join("..", "..", benchDir)
	gomod, err := os.ReadFile(filepath.Join(real, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gosum, err := os.ReadFile(filepath.Join(real, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	// benchstat's packages come from these two modules alone.
	mods := []string{"golang.org/x/perf", "github.com/aclements/go-moremath"}
	var require, sums []string
	for _, m := range mods {
		v := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(m) + ` (\S+)`).FindSubmatch(gomod)
		if v == nil {
			t.Fatalf("%s/go.mod does not require %s", real, m)
		}
		require = append(require, fmt.Sprintf("\t%s %s // indirect", m, v[1]))
		for _, l := range strings.Split(string(gosum), "\n") {
			if strings.HasPrefix(l, m+" "+string(v[1])+" ") || strings.HasPrefix(l, m+" "+string(v[1])+"/go.mod ") {
				sums = append(sums, l)
			}
		}
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/standin\n\ngo 1.26.0\n",
		"bench/go.mod": "module example.com/standin/bench\n\ngo 1.26.0\n\nrequire (\n" + strings.Join(require, "\n") + "\n)\n\n" +
			"tool golang.org/x/perf/cmd/benchstat\n",
		"bench/go.sum": strings.Join(sums, "\n") + "\n",
		"bench/tiny/tiny_test.go": `package tiny

import "testing"

func BenchmarkDuo(b *testing.B) {
	for _, impl := range []string{"alpha", "beta"} {
		b.Run("impl="+impl, func(b *testing.B) {
			for b.Loop() {
			}
		})
	}
}

func BenchmarkSolo(b *testing.B) {
	for b.Loop() {
	}
}

func BenchmarkBroken(b *testing.B) { b.Fatal("boom in the benchmark") }
`,
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

// tableHeader returns the first line of a benchstat table: the one that
// names the columns.
func tableHeader(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "│") {
			return l
		}
	}
	t.Fatalf("no benchstat table in the output:\n%s", out)
	return ""
}

func TestBenchOnStandInModule(t *testing.T) {
	root := standInBenchModule(t)
	t.Setenv(rootEnv, root)
	bench := func(t *testing.T, args ...string) (int, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		code := runBench(context.Background(), args, &stdout, &stderr)
		return code, stdout.String() + stderr.String()
	}

	t.Run("side by side", func(t *testing.T) {
		raw := filepath.Join(t.TempDir(), "raw.txt")
		code, out := bench(t, "-bench", "Duo", "-count", "2", "-benchtime", "1x", "-o", raw)
		if code != exitPass {
			t.Fatalf("exit %d, want 0:\n%s", code, out)
		}
		h := tableHeader(t, out)
		if !strings.Contains(h, "alpha") || !strings.Contains(h, "beta") {
			t.Errorf("table header %q lacks a column per impl:\n%s", h, out)
		}
		if !regexp.MustCompile(`(?m)^Duo\S*\s`).MatchString(out) {
			t.Errorf("table has no Duo row:\n%s", out)
		}
		for _, s := range []string{"running tiny.BenchmarkDuo/impl=alpha", "running tiny.BenchmarkDuo/impl=beta", "4 results of 2 benchmarks", "raw go test output in " + raw} {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q:\n%s", s, out)
			}
		}
		data, err := os.ReadFile(raw)
		if err != nil {
			t.Fatal(err)
		}
		var results int
		for _, l := range strings.Split(string(data), "\n") {
			if _, ok := parseBenchResult(l); ok {
				results++
			}
		}
		if results != 4 || !strings.Contains(string(data), "pkg: example.com/standin/bench/tiny") {
			t.Errorf("-o file has %d results, want 4 and the pkg header:\n%s", results, data)
		}
	})

	t.Run("without impl plain benchstat", func(t *testing.T) {
		code, out := bench(t, "-bench", "Solo", "-count", "2", "-benchtime", "1x", "-pkg", "./tiny")
		if code != exitPass {
			t.Fatalf("exit %d, want 0:\n%s", code, out)
		}
		// Plain benchstat heads its one column with the input's label.
		if h := tableHeader(t, out); !strings.Contains(h, "results") {
			t.Errorf("table header %q is not plain benchstat's:\n%s", h, out)
		}
		if !regexp.MustCompile(`(?m)^Solo\S*\s`).MatchString(out) {
			t.Errorf("table has no Solo row:\n%s", out)
		}
	})

	t.Run("failing benchmark", func(t *testing.T) {
		code, out := bench(t, "-bench", "Broken|Duo", "-count", "1", "-benchtime", "1x")
		if code != exitFail {
			t.Fatalf("exit %d, want %d:\n%s", code, exitFail, out)
		}
		for _, s := range []string{"=== FAIL go test -bench: ./...", "boom in the benchmark", "benchstat of the 2 results that completed"} {
			if !strings.Contains(out, s) {
				t.Errorf("output lacks %q:\n%s", s, out)
			}
		}
	})

	t.Run("no matching benchmark", func(t *testing.T) {
		code, out := bench(t, "-bench", "NoSuchBenchmark", "-count", "1", "-benchtime", "1x")
		if code != exitUsage || !strings.Contains(out, `-bench "NoSuchBenchmark" matches no benchmark`) {
			t.Errorf("exit %d, want %d and a message:\n%s", code, exitUsage, out)
		}
	})

	t.Run("missing package", func(t *testing.T) {
		code, out := bench(t, "-pkg", "./nosuchdir", "-count", "1", "-benchtime", "1x")
		if code != exitFail || !strings.Contains(out, "nosuchdir") {
			t.Errorf("exit %d, want %d and the go command's error:\n%s", code, exitFail, out)
		}
	})
}

func TestBenchWithoutBenchModuleFails(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module example.com/standin\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootEnv, root)
	var stdout, stderr bytes.Buffer
	if code := runBench(context.Background(), nil, &stdout, &stderr); code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if !strings.Contains(stderr.String(), "no benchmark module") {
		t.Errorf("stderr does not say what is missing:\n%s", stderr.String())
	}
}
