// Command vsched runs the verification campaign of the vsched scheduler: the
// layers of the verification pyramid, one after another, with live progress,
// one verdict at the end and an HTML report; and the mutation campaign that
// measures those verifiers.
//
// Usage:
//
//	vsched <command> [flags]
//	vsched help [command]
//
// Commands:
//
//	check    run the property tests, the fuzz seed corpora, the explorer,
//	         a fuzzing session per fuzz target and the linearizability
//	         stress within a time budget; print a summary, write a report
//	mutants  apply each seeded bug to a copy of the module and print which
//	         verifier killed it, and how fast
//	bench    run the bench module's benchmarks; print benchstat's table with
//	         one column per implementation
//
// # check
//
// The check command runs these phases in order, each a "go test" in the
// module root:
//
//	properties       go test -count=1 -json -skip '^TestKnownBad' ./internal/... ./spec/... ./runq/... ./steal/... ./netpoll/... ./kernel/... ./proptest/...
//	fuzz seeds       go test -count=1 -json -run '^Fuzz' ./fuzz
//	explore          go test -count=1 -json -tags vsched_explore -skip '^TestKnownBad' ./explore ./netpoll
//	explore kernel   go test -count=1 -json -timeout <budget+5m> -tags vsched_explore -run '^TestKernelModels$' ./explore -args -vsched.kernel-bound=2 ...
//	fuzz <Target>    go test -run '^$' -fuzz '^<Target>$' -fuzztime <share> ./fuzz
//	linearizability  go test -count=1 -json -timeout <budget+5m> -skip '^TestKnownBad' ./linearizability (VSCHED_LIN_DURATION=<share>, VSCHED_LIN_SEED=<seed>)
//
// The budget (-duration, default 3m) is spent so: the first three phases
// take what they take (about half a minute on two cores); the kernel models
// at preemption bound 2 get a quarter of it; the fuzz targets share another
// quarter; the linearizability stress, on every core, gets whatever is left,
// at least 5s per stress test. The seed (-seed, random when not given, and
// printed) is passed to every rapid check as RAPID_SEED and to the stress
// as VSCHED_LIN_SEED, so that a failure can be run again with the same
// draws; the explorer is deterministic and go's fuzzer takes no seed.
//
// The targets of the fuzz phases are those "go test -list '^Fuzz' ./fuzz"
// prints; if listing fails, a "fuzz targets" row reports the failure. A
// package pattern whose directory does not exist yet is left out, and the
// output says so; a phase with nothing to run (no package, no test) is
// reported as SKIP, and skips do not fail the campaign. Test counts are of
// top-level tests: a failed subtest counts once, as its parent's failure.
// The executions the explorer logged and the operations the linearizability
// checker logged are added up per phase. The output of every failure
// (failed tests with their subtests, compile errors, panics outside tests,
// the fuzzer's report) is printed after the last phase, above the summary
// table. When fuzzing finds a failing input, go test writes it under
// fuzz/testdata/fuzz/<Target>/ and check prints that path, so the input can
// be committed; from then on the fuzz seeds phase replays it.
//
// The report (-report, default vsched-report.html) is one self-contained
// HTML file: the verdict; the machine (GOOS/GOARCH, CPU model, cores, Go
// version) and the seed with the command that repeats the campaign; a table
// of the phases; per phase a description of the verifier, the exact command
// it ran, its counts, time and budget; and per failure its output, the
// explorer's replay command, and porcupine's visualization of a failing
// history embedded in a frame.
//
// Flags of check:
//
//	-duration d   the campaign's time budget (default 3m)
//	-report file  where to write the HTML report ("" for none)
//	-seed N       the seed of the rapid checks and the stress (0: random)
//	-fuzztime d   fuzz each target for d, a duration (10s) or an iteration
//	              count (1000x), instead of its share of the budget
//	-run regexp   run only the phases whose name matches regexp, for example
//	              -run properties or -run 'fuzz FuzzQueue'; a regexp that
//	              matches no phase is a usage error. The fuzz targets are
//	              listed whatever -run says, since their phase names are only
//	              known after that.
//	-v            print each go command and stream go test's output while
//	              it runs
//
// When standard output is a terminal, check redraws one status line (phase,
// its time, the total time, the budget left, failures so far, and the
// phase's counts); when it is not (CI logs, pipes), it prints one line when a
// phase starts and one when it ends. It exits 0 when no phase failed, 1 when
// one did, 2 on a usage error, and 130 after an interrupt (Ctrl-C; 143 after
// SIGTERM), once it has stopped the running go test and printed the summary
// of the phases so far. A second interrupt kills vsched at once.
//
// # mutants
//
// The seeded bugs are patches under internal/mutant/testdata/mutants, one
// per mutant, each with a header that says what the bug does ("git apply"
// takes them too). The mutants command copies the module to a temporary
// directory and, for each mutant, writes the patched files, checks that the
// mutated package builds, and runs the verifiers until one fails: first the
// one its patch names in an "Expect:" line, then the others cheapest first:
// proptest, fuzz seeds, explore (the explorer's litmus and engine tests
// and the runq scenarios), the netpoll wait-slot models, explore models (the kernel
// models at their default bound), the mutated package's own tests, and then
// the slow ones: the runq stress tests, the kernel models at bound 2 and the
// linearizability stress. A verifier whose tests do not import the mutated
// package is not run. The table says, per mutant, which verifier killed it,
// how long that verifier ran, and which test failed. A mutant that survives
// fails the campaign unless its patch has an "Equivalent:" line saying why
// no test can tell it from the original; so does one that its expected
// verifier did not kill, or that names a verifier which does not test the
// mutated package, so that the "Expect:" lines stay true.
//
// Flags of mutants:
//
//	-run regexp  only the mutants whose name matches
//	-fast        leave out the slow verifiers and the mutants whose patch
//	             names one of them in an "Expect:" line (what .ci/run runs)
//	-all         run every verifier on every mutant, not only until the
//	             first kill
//	-markdown    print the table as Markdown, as docs/VERIFICATION.md has it
//	-v           print each go command and the output of each kill
//
// # bench
//
// The bench command runs the benchmarks of the bench module (bench/, a
// module of its own next to the scheduler's) and prints benchstat's table
// with one column per implementation:
//
//	cd bench && go test -run '^$' -bench <regexp> -count <n> [-benchtime d] <pkg>
//	cd bench && go tool benchstat -col /impl <raw output>
//
// Benchmarks are named Benchmark<Workload>/impl=<name>; when the benchmarks
// that ran have no impl= key (a -bench that picks only single-implementation
// benchmarks), the table is plain benchstat's, without -col. benchstat is a
// tool dependency of the bench module (the tool line of bench/go.mod), so
// the scheduler's own module does not depend on golang.org/x/perf; bench
// builds it with "go tool -n benchstat" before the first benchmark, so that
// a missing tool is reported at once. While the benchmarks run, a terminal
// shows the running benchmark and the number of result lines so far; other
// output gets one line per benchmark.
//
// Flags of bench:
//
//	-bench regexp  run the benchmarks matching regexp, as go test -bench
//	               takes it (default ".": all)
//	-count n       run each benchmark n times (default 6, the fewest for
//	               which benchstat gives a confidence interval)
//	-benchtime d   run each benchmark for d: a duration (2s) or an
//	               iteration count (100x) (default go test's, 1s)
//	-pkg pattern   the packages to benchmark, relative to bench/; several
//	               patterns are separated by spaces (default ./...)
//	-o file        also write go test's raw output to file, to run
//	               benchstat on again with other options
//	-v             print each go command and stream go test's raw output
//
// bench exits 0 once it has printed the table, 1 when go test or benchstat
// fails (with go test's failure output, and the table of the results that
// completed), 2 on a usage error (including a -bench that matches no
// benchmark and an -o file that cannot be created), and 130 after an
// interrupt (143 after SIGTERM), once it has stopped go test and printed
// the table of the results so far. It finds the module root the way check
// does (go list -m, or VSCHED_ROOT), and needs a clone: the module's
// released source, which check and mutants can fetch, leaves out bench/,
// a module of its own.
//
// # Finding the source
//
// vsched runs in a clone of github.com/vsched/vsched; it finds the module
// root with "go list -m". Installed with go install ...@version and run
// elsewhere, it fetches its own version's source with "go mod download" and
// verifies a temporary copy of it; built from a clone and run elsewhere, it
// says to run it inside the clone. The environment variable VSCHED_ROOT,
// when set, names the module root instead and skips the module path check;
// it exists so that the runner can be tried on a small stand-in module.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// command is one subcommand of vsched. run receives the arguments after the
// command name and returns the process exit status.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// help prints the command's own usage and flags.
	help func(w io.Writer)
}

// commands lists the subcommands in the order usage shows them. More
// campaigns (mutants, bench) are added here as they are written.
func commands() []command {
	return []command{
		{
			name:    "check",
			summary: "run property tests, fuzz seed corpora and bounded fuzzing; print a summary",
			run:     runCheck,
			help:    func(w io.Writer) { newCheckFlags(w).fs.Usage() },
		},
		{
			name:    "mutants",
			summary: "apply each seeded bug to a copy of the module; print which verifier killed it",
			run:     runMutants,
			help:    func(w io.Writer) { newMutantsFlags(w).fs.Usage() },
		},
		{
			name:    "bench",
			summary: "run the bench module's benchmarks; print benchstat's side-by-side table",
			run:     runBench,
			help:    func(w io.Writer) { newBenchFlags(w).fs.Usage() },
		},
	}
}

// Exit statuses shared by all commands.
const (
	exitPass        = 0
	exitFail        = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, what a shell reports for Ctrl-C
)

func main() {
	ctx, stop := interruptContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to the subcommand named by args[0].
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			usage(stdout)
			return exitPass
		}
		if c, ok := lookup(rest[0]); ok {
			c.help(stdout)
			return exitPass
		}
		fmt.Fprintf(stderr, "vsched help: unknown command %q\n", rest[0])
		usage(stderr)
		return exitUsage
	}
	c, ok := lookup(name)
	if !ok {
		fmt.Fprintf(stderr, "vsched: unknown command %q\n", name)
		usage(stderr)
		return exitUsage
	}
	return c.run(ctx, rest, stdout, stderr)
}

func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "vsched runs the verification campaign of github.com/vsched/vsched.\n\n")
	fmt.Fprintf(w, "Usage:\n\n\tvsched <command> [flags]\n\tvsched help <command>\n\nCommands:\n\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
}

// interruptSignal records which signal cancelled the campaign, so that the
// exit status can say it.
type interruptSignal struct{ sig os.Signal }

func (e interruptSignal) Error() string { return "interrupted by " + e.sig.String() }

// interruptContext returns a context cancelled, with an [interruptSignal]
// cause, by the first SIGINT or SIGTERM. After that first signal the handler
// is removed, so a second Ctrl-C kills vsched at once if stopping the running
// go test takes too long.
func interruptContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(interruptSignal{s})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// interruptedStatus is the exit status for a campaign cancelled through ctx:
// 128 plus the signal number where there is one, as shells report it.
func interruptedStatus(ctx context.Context) int {
	var is interruptSignal
	if errors.As(context.Cause(ctx), &is) {
		if s, ok := is.sig.(syscall.Signal); ok && s != syscall.SIGINT {
			return 128 + int(s)
		}
	}
	return exitInterrupted
}

// parseFlags parses the flags of a command that takes no arguments. done
// reports that the command must exit with code: after -h (0) or a usage
// error (2), which the flag set or this function has explained on stderr.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass, true
		}
		return exitUsage, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vsched %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		fs.Usage()
		return exitUsage, true
	}
	return 0, false
}

// validTimeOrCount accepts what go test's -fuzztime and -benchtime accept:
// a positive duration or a positive count with an x suffix.
func validTimeOrCount(flagName, s, exampleTime, exampleCount string) error {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if i, err := strconv.Atoi(n); err == nil && i > 0 {
			return nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return nil
	}
	return fmt.Errorf("invalid %s %q: want a positive duration (%s) or count (%s)", flagName, s, exampleTime, exampleCount)
}
