// The bench command: see the package doc.

package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// benchDir is the directory, relative to the module root, of the benchmark
// module.
const benchDir = "bench"

// benchPhase names the go test run in the progress output.
const benchPhase = "go test -bench"

type benchFlags struct {
	fs        *flag.FlagSet
	bench     string
	count     int
	benchtime string
	pkg       string
	out       string
	verbose   bool
}

func newBenchFlags(out io.Writer) *benchFlags {
	f := &benchFlags{fs: flag.NewFlagSet("bench", flag.ContinueOnError)}
	f.fs.SetOutput(out)
	f.fs.StringVar(&f.bench, "bench", ".", "run the benchmarks matching `regexp`, as go test -bench takes it")
	f.fs.IntVar(&f.count, "count", 6, "run each benchmark `n` times (6 is the fewest for which benchstat gives a confidence interval)")
	f.fs.StringVar(&f.benchtime, "benchtime", "", "run each benchmark for `d`: a duration (2s) or an iteration count (100x) (default go test's, 1s)")
	f.fs.StringVar(&f.pkg, "pkg", "./...", "benchmark the packages matching `pattern`, relative to bench/; separate several with spaces")
	f.fs.StringVar(&f.out, "o", "", "also write go test's raw output to `file`, to run benchstat on it again")
	f.fs.BoolVar(&f.verbose, "v", false, "print each go command and stream go test's raw output while it runs")
	f.fs.Usage = func() {
		fmt.Fprint(out, "usage: vsched bench [-bench regexp] [-count n] [-benchtime d] [-pkg pattern] [-o file] [-v]\n\n"+
			"bench runs the benchmarks of the bench module (bench/, named\n"+
			"Benchmark<Workload>/impl=<name>) with go test -bench, then prints\n"+
			"benchstat's table with one column per implementation (benchstat -col /impl).\n"+
			"It exits 1 if go test or benchstat failed.\n\n")
		f.fs.PrintDefaults()
	}
	return f
}

// validate checks the flag values, so that a typo is reported before the
// benchmarks are built.
func (f *benchFlags) validate() error {
	// go test splits -bench at slashes into one regexp per level of
	// sub-benchmark; each level is valid exactly when the whole is.
	if _, err := regexp.Compile(f.bench); err != nil {
		return fmt.Errorf("invalid -bench: %v", err)
	}
	if f.count < 1 {
		return fmt.Errorf("invalid -count %d: want at least 1", f.count)
	}
	if f.benchtime != "" {
		if err := validBenchtime(f.benchtime); err != nil {
			return err
		}
	}
	if len(strings.Fields(f.pkg)) == 0 {
		return errors.New("-pkg is empty: want a package pattern such as ./compare")
	}
	return nil
}

// validBenchtime accepts what go test -benchtime accepts.
func validBenchtime(s string) error { return validTimeOrCount("-benchtime", s, "2s", "100x") }

// runBench is the bench command.
func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f := newBenchFlags(stderr)
	if code, done := parseFlags(f.fs, args, stderr); done {
		return code
	}
	if err := f.validate(); err != nil {
		fmt.Fprintf(stderr, "vsched bench: %v\n", err)
		return exitUsage
	}
	goBin := goBinary()
	root, err := moduleRoot(ctx, goBin)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitFail
	}
	dir := filepath.Join(root, benchDir)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		fmt.Fprintf(stderr, "vsched bench: no benchmark module in %s: %v\n", dir, err)
		return exitFail
	}
	raw, rawPath, err := openRaw(f.out)
	if err != nil {
		if f.out == "" {
			fmt.Fprintf(stderr, "vsched bench: %v\n", err)
			return exitFail
		}
		fmt.Fprintf(stderr, "vsched bench: -o: %v\n", err)
		return exitUsage
	}
	if f.out == "" {
		defer os.Remove(rawPath)
	}

	prog := newProgress(stdout, isTerminal(stdout))
	b := &benchRunner{dir: dir, goBin: goBin, flags: f, verbose: f.verbose, prog: prog}
	if err := b.buildBenchstat(ctx); err != nil {
		prog.close()
		raw.Close()
		if ctx.Err() != nil {
			return interruptedStatus(ctx)
		}
		fmt.Fprintf(stdout, "vsched bench: cannot build benchstat (the tool of %s):\n%s\n", filepath.Join(dir, "go.mod"), err)
		return exitFail
	}
	stopNote := context.AfterFunc(ctx, func() {
		prog.line("vsched bench: interrupted; stopping go test")
	})
	r, o := b.goTest(ctx, raw)
	stopNote()
	prog.close()
	if err := raw.Close(); err != nil && f.out != "" {
		fmt.Fprintf(stderr, "vsched bench: -o: %v\n", err)
		r.verdict = fail
	}

	if r.verdict == pass && o.results == 0 {
		fmt.Fprintf(stderr, "vsched bench: -bench %q matches no benchmark in %s\n", f.bench, strings.Join(b.pkgs(), " "))
		return exitUsage
	}
	if r.verdict == fail {
		writeFailures(stdout, []result{r}) // ends with a blank line
	} else {
		fmt.Fprintln(stdout)
	}
	if o.results > 0 {
		if r.verdict != pass {
			fmt.Fprintf(stdout, "benchstat of the %s that completed:\n", plural(o.results, "result"))
		}
		// After an interrupt the table of the results so far is still
		// wanted; a second interrupt kills vsched.
		if err := b.benchstat(context.WithoutCancel(ctx), rawPath, o.impl, stdout); err != nil {
			fmt.Fprintf(stdout, "vsched bench: benchstat failed:\n%s\n", err)
			if r.verdict == pass {
				r.verdict = fail
			}
		}
	}
	if f.out != "" {
		again := []string{"go", "tool", "benchstat", rawPath}
		if o.impl {
			again = []string{"go", "tool", "benchstat", "-col", "/impl", rawPath}
		}
		fmt.Fprintf(stdout, "raw go test output in %s; to read it again: cd %s && %s\n",
			f.out, strings.Join(quoteArgs([]string{dir}), ""), strings.Join(quoteArgs(again), " "))
	}
	switch r.verdict {
	case pass:
		return exitPass
	case interrupted:
		return interruptedStatus(ctx)
	default:
		return exitFail
	}
}

// openRaw opens the file that keeps go test's raw output for benchstat:
// the -o file, or a temporary file when there is none. It returns the
// file's absolute path, since benchstat runs in the bench module.
func openRaw(out string) (*os.File, string, error) {
	var f *os.File
	var err error
	if out == "" {
		f, err = os.CreateTemp("", "vsched-bench-*.txt")
	} else {
		f, err = os.Create(out)
	}
	if err != nil {
		return nil, "", err
	}
	abs, err := filepath.Abs(f.Name())
	if err != nil {
		f.Close()
		return nil, "", err
	}
	return f, abs, nil
}

// benchRunner runs the go commands of one bench run, in the bench module.
type benchRunner struct {
	dir     string // the bench module's root; every command runs there
	goBin   string
	flags   *benchFlags
	verbose bool
	prog    *progress
}

func (b *benchRunner) pkgs() []string { return strings.Fields(b.flags.pkg) }

func (b *benchRunner) goCommand(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, b.goBin, args...)
	cmd.Dir = b.dir
	stopOnCancel(cmd)
	return cmd
}

// runCommand runs cmd, announcing it under -v, and after a cancellation
// removes whatever the go command left running.
func (b *benchRunner) runCommand(ctx context.Context, cmd *exec.Cmd) error {
	if b.verbose {
		b.prog.line("$ go " + strings.Join(quoteArgs(cmd.Args[1:]), " "))
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		killLeftovers(cmd)
	}
	return err
}

// buildBenchstat builds the bench module's benchstat tool, downloading it
// if needed, before any benchmark runs: a failure then costs nothing, and
// the build does not compete with the benchmarks for the CPUs.
func (b *benchRunner) buildBenchstat(ctx context.Context) error {
	var out bytes.Buffer
	cmd := b.goCommand(ctx, "tool", "-n", "benchstat")
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	if err := b.runCommand(ctx, cmd); err != nil {
		return fmt.Errorf("%s%v", out.String(), err)
	}
	return nil
}

// goTest runs the benchmarks, writing go test's standard output to raw as
// it comes, and judges the run.
func (b *benchRunner) goTest(ctx context.Context, raw io.Writer) (result, *benchOutput) {
	o := newBenchOutput()
	var stderr []string
	var writeErr error
	stdout := benchStdout(o, func(line string) {
		if _, err := io.WriteString(raw, line+"\n"); err != nil && writeErr == nil {
			writeErr = err
		}
		b.prog.status(o.status(b.flags.count))
		if b.verbose {
			b.prog.line(line)
		}
	}, func(name string) {
		b.prog.status(o.status(b.flags.count))
		// A terminal shows the running benchmark in the status line;
		// plain output gets a line, as a benchmark can run for minutes.
		// Under -v the raw output says it already.
		if !b.prog.tty && !b.verbose {
			b.prog.line("running " + o.qualified(name))
		}
	})
	errw := &lineWriter{fn: func(line string) {
		stderr = append(stderr, line)
		if b.verbose || strings.HasPrefix(line, "go: warning:") {
			b.prog.line(line)
		}
	}}
	args := []string{"test", "-run", "^$", "-bench", b.flags.bench, "-count", strconv.Itoa(b.flags.count)}
	if b.flags.benchtime != "" {
		args = append(args, "-benchtime", b.flags.benchtime)
	}
	cmd := b.goCommand(ctx, append(args, b.pkgs()...)...)
	cmd.Stdout, cmd.Stderr = stdout, errw

	b.prog.begin(benchPhase)
	start := time.Now()
	err := b.runCommand(ctx, cmd)
	stdout.flush()
	errw.flush()
	r := judgeBench(o, b.pkgs(), stderr, err)
	if writeErr != nil && r.verdict == pass {
		r.verdict = fail
		r.failures = []failure{{title: "writing the raw output", output: []string{writeErr.Error()}}}
	}
	r.phase, r.dur = benchPhase, time.Since(start)
	if ctx.Err() != nil {
		// A failure now is the kill's, not a finding.
		r.verdict, r.failures = interrupted, nil
	}
	b.prog.end(r)
	return r, o
}

// judgeBench turns a finished go test -bench run into a result.
func judgeBench(o *benchOutput, pkgs []string, stderr []string, runErr error) result {
	r := result{verdict: pass, summary: o.summary()}
	if runErr == nil {
		return r
	}
	r.verdict = fail
	lines := append(append([]string(nil), o.kept...), stderr...)
	var exit *exec.ExitError
	if !errors.As(runErr, &exit) || len(lines) == 0 {
		lines = append(lines, "go test: "+runErr.Error())
	}
	r.failures = []failure{{title: strings.Join(pkgs, " "), output: lines}}
	return r
}

// benchstatArgs are benchstat's arguments for the raw output in path.
// The input is labelled, so that a plain table's column is not headed by
// a temporary file's name, and a path with "=" in it is not taken for a
// label.
func benchstatArgs(path string, impl bool) []string {
	var args []string
	if impl {
		args = append(args, "-col", "/impl")
	}
	return append(args, "results="+path)
}

// benchstat prints benchstat's table of the raw output in path to w.
func (b *benchRunner) benchstat(ctx context.Context, path string, impl bool, w io.Writer) error {
	var out, errOut bytes.Buffer
	cmd := b.goCommand(ctx, append([]string{"tool", "benchstat"}, benchstatArgs(path, impl)...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := b.runCommand(ctx, cmd); err != nil {
		return fmt.Errorf("%s%v", errOut.String(), err)
	}
	_, err := w.Write(out.Bytes())
	return err
}

// benchStdout returns the writer for go test -bench's standard output. It
// folds each line into o, then hands it to line; started is called with a
// benchmark's name when the benchmark begins its first run of a series.
func benchStdout(o *benchOutput, line func(string), started func(name string)) *partialWriter {
	return &partialWriter{
		lw: &lineWriter{fn: func(l string) {
			name, first := o.addLine(l)
			line(l)
			if first {
				started(name)
			}
		}},
		fn: func(partial string) {
			if name, first := o.addPartial(partial); first {
				started(name)
			}
		},
	}
}

// partialWriter is a lineWriter that also shows fn the line still being
// written. go test prints a benchmark's name when the benchmark starts and
// the rest of the line when it ends, so the unfinished line says what is
// running.
type partialWriter struct {
	lw *lineWriter
	fn func(partial string)
}

func (w *partialWriter) Write(p []byte) (int, error) {
	n, err := w.lw.Write(p)
	if len(w.lw.buf) > 0 {
		w.fn(string(w.lw.buf))
	}
	return n, err
}

// flush hands over a last line that had no newline.
func (w *partialWriter) flush() { w.lw.flush() }

// benchOutput folds the plain-text output of go test -bench.
type benchOutput struct {
	results    int  // result lines
	benchmarks int  // distinct benchmarks with at least one result
	impl       bool // some result's name has an impl= key
	pkg        string
	running    string // the benchmark printed last
	runs       int    // how many times running has started in a row
	lineSeen   bool   // the current line's name was seen unfinished
	withResult map[string]bool
	kept       []string // lines a failure report needs
}

func newBenchOutput() *benchOutput {
	return &benchOutput{withResult: make(map[string]bool)}
}

// addPartial looks at the unfinished line: once it holds a whole benchmark
// name (followed by go test's padding), that benchmark has started. It
// returns the name when the benchmark started for the first time in a row.
func (o *benchOutput) addPartial(s string) (string, bool) {
	if o.lineSeen {
		return "", false
	}
	name, ok := benchmarkName(s)
	if !ok || !strings.ContainsAny(s, " \t") {
		return "", false
	}
	o.lineSeen = true
	return o.start(name)
}

// addLine folds in one whole line of go test's standard output. Like
// addPartial, it returns the name of a benchmark whose first run is on this
// line, when the unfinished line did not already show it.
func (o *benchOutput) addLine(line string) (string, bool) {
	seen := o.lineSeen
	o.lineSeen = false
	var first string
	var isFirst bool
	if name, ok := benchmarkName(line); ok && !seen {
		first, isFirst = o.start(name)
	}
	if name, ok := parseBenchResult(line); ok {
		o.results++
		if !o.withResult[name] {
			o.withResult[name] = true
			o.benchmarks++
		}
		o.impl = o.impl || hasImplKey(name)
		return first, isFirst
	}
	if pkg, ok := strings.CutPrefix(line, "pkg: "); ok {
		o.pkg = strings.TrimSpace(pkg)
		return first, isFirst
	}
	if !isBenchChatter(line) {
		o.kept = append(o.kept, line)
	}
	return first, isFirst
}

func (o *benchOutput) start(name string) (string, bool) {
	if name == o.running {
		o.runs++
		return "", false
	}
	o.running, o.runs = name, 1
	return name, true
}

// qualified names a benchmark with the last element of its package path,
// as in compare.BenchmarkSpawnLocal/impl=kernel-2.
func (o *benchOutput) qualified(name string) string {
	if o.pkg == "" {
		return name
	}
	return path.Base(o.pkg) + "." + name
}

// status is the status line's detail while the benchmarks run.
func (o *benchOutput) status(count int) string {
	s := plural(o.results, "result")
	if o.running == "" {
		return s
	}
	return fmt.Sprintf("%s run %d/%d, %s", o.qualified(o.running), o.runs, count, s)
}

func (o *benchOutput) summary() string {
	return fmt.Sprintf("%s of %s", plural(o.results, "result"), plural(o.benchmarks, "benchmark"))
}

// benchmarkName returns the first field of a line that starts with a
// benchmark's name.
func benchmarkName(line string) (string, bool) {
	if !strings.HasPrefix(line, "Benchmark") {
		return "", false
	}
	return strings.Fields(line)[0], true
}

// parseBenchResult recognizes a result line in the benchmark format that
// benchstat reads, "BenchmarkX/impl=y-2  1000  123.4 ns/op  8 B/op", and
// returns the benchmark's name.
func parseBenchResult(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", false
	}
	if _, err := strconv.ParseUint(f[1], 10, 64); err != nil {
		return "", false
	}
	for i := 2; i < len(f); i += 2 {
		if _, err := strconv.ParseFloat(f[i], 64); err != nil {
			return "", false
		}
	}
	return f[0], true
}

// hasImplKey reports whether a benchmark name has an impl=<name> element,
// the key benchstat -col /impl puts in columns.
func hasImplKey(name string) bool {
	for _, e := range strings.Split(name, "/")[1:] {
		if strings.HasPrefix(e, "impl=") {
			return true
		}
	}
	return false
}

// isBenchChatter reports whether a line of go test -bench's output is one a
// failure report does not need: the configuration header and the lines
// that end a package's run.
func isBenchChatter(line string) bool {
	for _, p := range []string{"goos: ", "goarch: ", "cpu: "} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	// "FAIL\t<package>" stays: it says which package failed.
	return line == "PASS" || line == "FAIL" || strings.HasPrefix(line, "exit status ") ||
		strings.HasPrefix(line, "ok  \t") || strings.TrimSpace(line) == ""
}
