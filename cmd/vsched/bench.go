package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

const benchDoc = `usage: vsched bench [-bench regexp] [-count n] [-benchtime d] [-pkg pattern] [-o file] [-v]

bench runs the benchmarks of the bench module (bench/, a module of its own;
benchmarks named Benchmark<Workload>/impl=<name>), then prints the table of
benchstat (the bench module's tool): benchstat -col /impl, one column per
implementation, or plain benchstat when no benchmark has an impl= key. It
exits 1 if go test or benchstat failed, after the table of what completed.
`

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", benchDoc, stderr)
	bench := fs.String("bench", ".", "run the benchmarks matching `regexp`, as go test -bench takes it")
	count := fs.Int("count", 6, "run each benchmark `n` times (6 is the fewest for which benchstat gives a confidence interval)")
	benchtime := fs.String("benchtime", "", "run each benchmark for `d`: a duration (2s) or an iteration count (100x) (default go test's, 1s)")
	pkg := fs.String("pkg", "./...", "benchmark the packages matching `pattern`, relative to bench/; separate several with spaces")
	rawOut := fs.String("o", "", "also write go test's raw output to `file`, to run benchstat on it again")
	verbose := fs.Bool("v", false, "print each go command and stream go test's raw output")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	pkgs := strings.Fields(*pkg)
	// go test splits -bench at slashes into one regexp per level of
	// sub-benchmark; each level is valid exactly when the whole is.
	_, err := regexp.Compile(*bench)
	switch {
	case err != nil:
		err = fmt.Errorf("invalid -bench: %v", err)
	case *count < 1:
		err = fmt.Errorf("invalid -count %d: want at least 1", *count)
	case *benchtime != "":
		err = validTimeOrCount("-benchtime", *benchtime)
	case len(pkgs) == 0:
		err = fmt.Errorf("-pkg is empty: want a package pattern such as ./compare")
	}
	if err != nil {
		return complain(stderr, exitUsage, "vsched bench: %v", err)
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return complain(stderr, exitFail, "vsched bench: %v", err)
	}
	dir := filepath.Join(root, "bench")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return complain(stderr, exitFail, "vsched bench: no benchmark module in %s: %v", dir, err)
	}
	rawPath := cmp.Or(*rawOut, filepath.Join(os.TempDir(), fmt.Sprintf("vsched-bench-%d.txt", os.Getpid())))
	raw, err := os.Create(rawPath)
	if err != nil {
		return complain(stderr, exitUsage, "vsched bench: %v", err) // a bad -o, or an unwritable temporary directory
	}
	if *rawOut == "" {
		defer os.Remove(rawPath)
	}
	rawPath, _ = filepath.Abs(rawPath) // benchstat runs in the bench module

	prog := newProgress(stdout)
	// Build benchstat first: a failure then costs nothing, and the build
	// does not compete with the benchmarks for the CPUs.
	if out, err := goCommand(ctx, dir, nil, "tool", "-n", "benchstat").CombinedOutput(); err != nil && ctx.Err() == nil {
		prog.close()
		return complain(stdout, exitFail, "vsched bench: cannot build benchstat (the tool of %s):\n%s%v", filepath.Join(dir, "go.mod"), out, err)
	}
	stopNote := context.AfterFunc(ctx, func() { prog.line("vsched bench: interrupted; stopping go test") })
	goArgs := []string{"test", "-json", "-run", "^$", "-bench", *bench, "-count", strconv.Itoa(*count)}
	if *benchtime != "" {
		goArgs = append(goArgs, "-benchtime", *benchtime)
	}
	r, results, impl := goTestBench(ctx, dir, raw, prog, *verbose, append(goArgs, pkgs...))
	stopNote()
	prog.close()
	if err := raw.Close(); err != nil && *rawOut != "" && r.verdict == pass {
		r.verdict, r.failures = fail, []failure{{"-o " + *rawOut, err.Error()}}
	}
	if r.verdict == pass && results == 0 {
		return complain(stderr, exitUsage, "vsched bench: -bench %q matches no benchmark in %s", *bench, *pkg)
	}
	writeFailures(stdout, []result{r}) // a blank line when it passed
	if results > 0 {
		if r.verdict != pass {
			fmt.Fprintf(stdout, "benchstat of the %s that completed:\n", plural(results, "result"))
		}
		// The input is labelled, so that a plain table's column is not
		// headed by a temporary file's name.
		statArgs := []string{"tool", "benchstat", "results=" + rawPath}
		if impl {
			statArgs = []string{"tool", "benchstat", "-col", "/impl", "results=" + rawPath}
		}
		// After an interrupt the table of the results so far is still
		// wanted; a second interrupt kills vsched.
		out, err := goCommand(context.WithoutCancel(ctx), dir, nil, statArgs...).CombinedOutput()
		stdout.Write(out)
		if err != nil {
			fmt.Fprintf(stdout, "vsched bench: benchstat failed: %v\n", err)
			if r.verdict == pass {
				r.verdict = fail
			}
		}
		if *rawOut != "" {
			fmt.Fprintf(stdout, "raw go test output in %s; to read it again: cd %s && %s\n", *rawOut, dir, commandLine(nil, append(statArgs[:len(statArgs)-1:len(statArgs)-1], rawPath)))
		}
	}
	return exitCode(ctx, r.verdict)
}

// goTestBench runs go test -json -bench in dir, writing the benchmarks'
// output to raw as go test prints it without -json, and returns the
// result, the number of result lines, and whether some result's name has
// an impl= key (the key benchstat -col /impl makes columns of).
func goTestBench(ctx context.Context, dir string, raw io.Writer, prog *progress, verbose bool, args []string) (r result, results int, impl bool) {
	const phase = "go test -bench"
	if verbose {
		prog.line("$ " + commandLine(nil, args))
	}
	prog.begin(phase)
	start := time.Now()
	withResult := map[string]bool{}
	running := ""
	lines := &lineWriter{fn: func(l string) {
		if name, ok := parseBenchResult(l); ok {
			results++
			withResult[name] = true
			impl = impl || strings.Contains(name, "/impl=")
		}
		if verbose {
			prog.line(l)
		}
	}}
	t := newTally()
	err := runJSON(ctx, goCommand(ctx, dir, nil, args...), new(sync.Mutex), t, func(ev event) {
		switch {
		case ev.Action == "run":
			// go test prints a benchmark's name when it starts and its
			// result when it ends, minutes later for some.
			running = path.Base(ev.Package) + "." + ev.Test
			if !prog.tty && !verbose {
				prog.line("running " + running)
			}
		case ev.Action == "output" && !strings.HasPrefix(ev.Output, "=== ") && ev.Output != ev.Test+"\n":
			io.WriteString(raw, ev.Output)
			lines.Write([]byte(ev.Output))
		}
		prog.status(running + ", " + plural(results, "result"))
	})
	lines.flush()
	r = t.judge(err)
	r.phase, r.dur = phase, time.Since(start)
	r.summary = fmt.Sprintf("%s of %s", plural(results, "result"), plural(len(withResult), "benchmark"))
	switch {
	case ctx.Err() != nil:
		r.verdict, r.failures = interrupted, nil // a failure now is the kill's, not a finding
	case r.verdict != fail:
		r.verdict = pass // benchmarks report no pass events: "no tests" is no failure
	}
	prog.end(r)
	return r, results, impl
}

// parseBenchResult returns the name in a result line that benchstat reads,
// "BenchmarkX/impl=y-2  1000  123.4 ns/op  8 B/op".
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
