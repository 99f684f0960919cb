//go:build !vsched_explore

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
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

// standInBenchModule makes a module root whose bench/ module has one tiny
// benchmark with two implementations (Duo), one without (Solo) and one that
// fails (Broken), and the benchstat tool of the real bench module, at the
// same version, so that no new module is downloaded. It returns the root.
func standInBenchModule(t *testing.T) string {
	t.Helper()
	real := filepath.Join("..", "..", "bench")
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
		for _, s := range []string{"=== FAIL go test -bench: BenchmarkBroken in example.com/standin/bench/tiny", "boom in the benchmark", "benchstat of the 2 results that completed"} {
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
