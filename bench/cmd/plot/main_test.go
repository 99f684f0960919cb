package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// collectArgs parses the flags of args (with a -o added) and collects the
// files they name.
func collectArgs(t *testing.T, args ...string) []series {
	t.Helper()
	cfg, files, err := parseFlags(append([]string{"-o", "unused.svg"}, args...), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var inputs []input
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{f, bytes.NewReader(b)})
	}
	ss, err := collect(cfg, inputs)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func TestCollect(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []series
	}{{
		// Two files: idle-b adds samples to idle-a's (net at 10 has 3000,
		// 5000 and 2000), new implementations after idle-a's, a pair of
		// samples (pond at 100), a name with the -2 suffix inside its
		// impl value (kernel-iowaiter-2), and a result printed without
		// the suffix (GOMAXPROCS=1) after go test -v's bare name line.
		name: "two files",
		args: []string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "B/conn",
			"testdata/idle-a.txt", "testdata/idle-b.txt"},
		want: []series{
			{"net", []int64{10, 100}, []float64{3000, 3100}},
			{"kernel", []int64{10, 100, 1000}, []float64{1000, 1100, 4500}},
			{"kernel-iowaiter", []int64{10}, []float64{1300}},
			{"pond", []int64{10, 100}, []float64{2000, 2550}},
		},
	}, {
		// Another metric of the same lines; IdleConnMemoryLarge and
		// Other are not IdleConnMemory.
		name: "one file, rps",
		args: []string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "rps", "testdata/idle-a.txt"},
		want: []series{
			{"net", []int64{10, 100}, []float64{42.25, 41}},
			{"kernel", []int64{10, 100}, []float64{40, 39}},
		},
	}, {
		name: "where echo",
		args: []string{"-bench", "Echo", "-x", "conns", "-unit", "rps", "-where", "proto=echo", "testdata/echo.txt"},
		want: []series{
			{"kernel", []int64{1, 50}, []float64{2e6, 2.2e6}},
			{"net", []int64{1, 50}, []float64{1.6e6, 1.5e6}},
		},
	}, {
		name: "where http",
		args: []string{"-bench", "Echo", "-x", "conns", "-unit", "p99-ns", "-where", "proto=http", "testdata/echo.txt"},
		want: []series{
			{"kernel", []int64{1, 50}, []float64{8000, 90000}},
		},
	}, {
		name: "where impl",
		args: []string{"-bench", "Echo", "-x", "conns", "-unit", "ns/op", "-where", "proto=echo", "-where", "impl=net", "testdata/echo.txt"},
		want: []series{
			{"net", []int64{1, 50}, []float64{600, 650}},
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			if got := collectArgs(t, tc.args...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %v\nwant %v", got, tc.want)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 5, 1, 9, 100}, 5},
	} {
		in := append([]float64(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", in, got, tc.want)
		}
		if !reflect.DeepEqual(in, tc.in) {
			t.Errorf("median reordered its argument: %v", tc.in)
		}
	}
}

func TestRunWritesSVG(t *testing.T) {
	out := filepath.Join(t.TempDir(), "idle.svg")
	var stderr bytes.Buffer
	code := run([]string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "B/conn",
		"-logx", "-logy", "-title", "Idle memory", "-ylabel", "bytes per connection",
		"-o", out, "testdata/idle-a.txt", "testdata/idle-b.txt"}, strings.NewReader(""), &stderr)
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(svg, []byte("<?xml")) && !bytes.HasPrefix(svg, []byte("<svg")) {
		t.Errorf("%s does not start as an SVG document: %.40q", out, svg)
	}
	s := string(svg)
	// 14cm by 9cm, in points.
	if !strings.Contains(s, `width="396.85pt" height="255.12pt"`) {
		t.Errorf("%s is not 14cm by 9cm", out)
	}
	for _, text := range []string{"Idle memory", "bytes per connection", "conns",
		"net", "kernel", "kernel-iowaiter", "pond", "1000"} {
		if !strings.Contains(s, ">"+text+"<") {
			t.Errorf("%s has no text %q", out, text)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(s), "</svg>") {
		t.Errorf("%s does not end with </svg>", out)
	}
}

func TestRunStdin(t *testing.T) {
	idleB, err := os.ReadFile("testdata/idle-b.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		files []string
	}{
		{"no file", nil},
		{"dash", []string{"testdata/idle-a.txt", "-"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "idle.svg")
			var stderr bytes.Buffer
			args := append([]string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "B/conn", "-o", out}, tc.files...)
			if code := run(args, bytes.NewReader(idleB), &stderr); code != 0 {
				t.Fatalf("exit status %d: %s", code, stderr.String())
			}
			svg, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			// pond is only in idle-b.txt, given on stdin.
			if !bytes.Contains(svg, []byte(">pond<")) {
				t.Errorf("the plot has no line for pond, read from stdin")
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	idle := []string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "B/conn"}
	for _, tc := range []struct {
		name  string
		args  []string // -o is added
		stdin string
		want  []string // in stderr
	}{
		{"no -x", []string{"-bench", "IdleConnMemory", "-unit", "B/conn", "testdata/idle-a.txt"}, "",
			[]string{"-x is required"}},
		{"no -unit", []string{"-bench", "IdleConnMemory", "-x", "conns", "testdata/idle-a.txt"}, "",
			[]string{"-unit is required"}},
		{"unknown flag", append([]string{"-y", "conns"}, idle...), "",
			[]string{"flag provided but not defined: -y"}},
		{"prefix", []string{"-bench", "BenchmarkIdleConnMemory", "-x", "conns", "-unit", "B/conn"}, "",
			[]string{"without the Benchmark prefix"}},
		{"bad -where", append([]string{"-where", "proto"}, idle...), "",
			[]string{`"proto" is not key=value`}},
		{"missing file", append(idle, "testdata/none.txt"), "",
			[]string{"testdata/none.txt"}},
		{"no result", []string{"-bench", "IdleConn", "-x", "conns", "-unit", "B/conn", "testdata/idle-a.txt"}, "",
			[]string{"no result of BenchmarkIdleConn in the input"}},
		{"empty stdin", idle, "",
			[]string{"no result of BenchmarkIdleConnMemory"}},
		{"unit missing", append(idle, "testdata/missing-unit.txt"), "",
			[]string{"testdata/missing-unit.txt:3", "no B/conn on the line"}},
		{"keys differ", []string{"-bench", "Echo", "-x", "conns", "-unit", "rps", "testdata/echo.txt"}, "",
			[]string{"differ in proto", "echo at testdata/echo.txt:1", "http at testdata/echo.txt:3", "-where proto="}},
		{"where matches nothing", []string{"-bench", "Echo", "-x", "conns", "-unit", "rps", "-where", "proto=grpc", "testdata/echo.txt"}, "",
			[]string{"no line of BenchmarkEcho has proto=grpc"}},
		{"key present on some lines", idle,
			"BenchmarkIdleConnMemory/conns=1/impl=a-2 1 5 B/conn\nBenchmarkIdleConnMemory/mode=x/conns=2/impl=a-2 1 6 B/conn\n",
			[]string{"differ in mode", "(none) at stdin:1", "x at stdin:2"}},
		{"x not an integer", idle, "BenchmarkIdleConnMemory/conns=ten/impl=a-2 1 5 B/conn\n",
			[]string{"stdin:1", "conns=ten is not an integer"}},
		{"no x", idle, "BenchmarkIdleConnMemory/impl=a-2 1 5 B/conn\n",
			[]string{"stdin:1", "has no conns="}},
		{"no impl", idle, "BenchmarkIdleConnMemory/conns=1-2 1 5 B/conn\n",
			[]string{"stdin:1", "has no impl="}},
		{"not key=value", idle, "BenchmarkIdleConnMemory/conns=1/fast/impl=a-2 1 5 B/conn\n",
			[]string{"stdin:1", `element "fast" is not key=value`}},
		{"zero on log axis", append([]string{"-logy"}, idle...), "BenchmarkIdleConnMemory/conns=1/impl=a-2 1 0 B/conn\n",
			[]string{"-logy", "not above zero"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.svg")
			var stderr bytes.Buffer
			code := run(append([]string{"-o", out}, tc.args...), strings.NewReader(tc.stdin), &stderr)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q does not say %q", stderr.String(), w)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was written", out)
			}
		})
	}
}

func TestRunNoOutput(t *testing.T) {
	var stderr bytes.Buffer
	if code := run([]string{"-bench", "Echo", "-x", "conns", "-unit", "rps", "testdata/echo.txt"},
		strings.NewReader(""), &stderr); code != 2 || !strings.Contains(stderr.String(), "-o is required") {
		t.Errorf("without -o: exit status %d, stderr %q", code, stderr.String())
	}
	if code := run([]string{"-bench", "Echo", "-x", "conns", "-unit", "rps", "-o", "echo.png", "testdata/echo.txt"},
		strings.NewReader(""), &stderr); code != 2 || !strings.Contains(stderr.String(), "must end in .svg") {
		t.Errorf("-o echo.png: exit status %d, stderr %q", code, stderr.String())
	}
}

func TestLogTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []string
	}{
		{10, 1000, []string{"10", "100", "1000"}},
		{3, 20000, []string{"10", "100", "1000", "10000"}},
		{300, 2000, []string{"500", "1000", "2000"}},
		{0.05, 0.3, []string{"0.05", "0.1", "0.2"}},
		{0.3, 0.45, []string{"0.3", "0.4"}},
		{0.003, 0.3, []string{"0.01", "0.1"}},
		{0.02, 0.3, []string{"0.02", "0.05", "0.1", "0.2"}},
	} {
		var got []string
		for _, tk := range logTicks(tc.min, tc.max) {
			if tk.Value < tc.min || tk.Value > tc.max {
				t.Errorf("logTicks(%v, %v) has a tick at %v", tc.min, tc.max, tk.Value)
			}
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("logTicks(%v, %v) labels %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// A narrow log axis falls back on linear ticks, and still has labels.
func TestLogTicksNarrow(t *testing.T) {
	n := 0
	for _, tk := range logTicks(310, 390) {
		if tk.Label != "" {
			n++
		}
	}
	if n < 2 {
		t.Errorf("logTicks(310, 390) has %d labels", n)
	}
}

// One point on log axes: the range of each axis is a single value, which
// must not be widened to zero.
func TestRunOnePoint(t *testing.T) {
	out := filepath.Join(t.TempDir(), "one.svg")
	var stderr bytes.Buffer
	in := "BenchmarkIdleConnMemory/conns=10/impl=kernel-2 100 0.5 B/conn\n"
	if code := run([]string{"-bench", "IdleConnMemory", "-x", "conns", "-unit", "B/conn", "-logx", "-logy", "-o", out},
		strings.NewReader(in), &stderr); code != 0 {
		t.Fatalf("exit status %d: %s", code, stderr.String())
	}
	if _, err := os.Stat(out); err != nil {
		t.Error(err)
	}
}
