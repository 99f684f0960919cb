// Command vsched runs the verification campaign of the vsched scheduler
// (check), the mutation campaign that measures its verifiers (mutants), and
// the benchmarks (bench):
//
//	vsched check [-duration 3m] [-report vsched-report.html] [-seed N] [-fuzztime d] [-run regexp] [-v]
//	vsched mutants [-run regexp] [-fast] [-all] [-shard k/n] [-markdown] [-v]
//	vsched bench [-bench regexp] [-count n] [-benchtime d] [-pkg pattern] [-o file] [-v]
//
// "vsched help <command>" says what a command does and lists its flags;
// docs/VERIFICATION.md describes the campaigns in full. vsched runs inside
// a clone of github.com/vsched/vsched, or in the module root VSCHED_ROOT
// names. It exits 0 when everything passed, 1 when something failed, 2 on
// a usage error, and 130 (143 for SIGTERM) after an interrupt, once the
// running go test has stopped and what ran so far is summarized; a second
// interrupt kills vsched at once.
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
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// modulePath is the module vsched verifies; it refuses to run in another,
// so that it cannot report a PASS for some other module's tests.
const modulePath = "github.com/vsched/vsched"

// rootEnv names the module root instead of the module around the current
// directory, and skips the module path check.
const rootEnv = "VSCHED_ROOT"

const (
	exitPass        = 0
	exitFail        = 1
	exitUsage       = 2
	exitInterrupted = 130 // 128 + SIGINT, what a shell reports for Ctrl-C
)

type command struct {
	name, summary string
	run           func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var commands = []command{
	{"check", "run the verification campaign; print a summary and write an HTML report", runCheck},
	{"mutants", "run the verifiers against each seeded bug; print which one killed it", runMutants},
	{"bench", "run the bench module's benchmarks; print benchstat's side-by-side table", runBench},
}

func main() {
	ctx, stop := interruptContext()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run dispatches to the command named by args[0].
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if name == "help" || name == "-h" || name == "-help" || name == "--help" {
		if len(rest) == 0 {
			usage(stdout)
			return exitPass
		}
		// A command's -h prints its usage and flags.
		name, rest, stderr = rest[0], []string{"-h"}, stdout
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(ctx, rest, stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "vsched: unknown command %q\n", name)
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "vsched runs the verification campaign of %s.\n\nUsage:\n\n\tvsched <command> [flags]\n\tvsched help <command>\n\nCommands:\n\n", modulePath)
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
}

// newFlags returns a command's flag set, whose -h prints doc and the flags.
func newFlags(name, doc string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, doc+"\n")
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses the flags of a command that takes no arguments. done
// reports that the command must exit with code: after -h (0) or a usage
// error (2), which the flag set or this function has explained.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitPass, true
		}
		return exitUsage, true
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "vsched %s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return exitUsage, true
	}
	return 0, false
}

// complain prints a message to w and returns code, a command's exit status.
func complain(w io.Writer, code int, format string, args ...any) int {
	fmt.Fprintf(w, format+"\n", args...)
	return code
}

// validTimeOrCount accepts what go test's -fuzztime and -benchtime accept:
// a positive duration or a positive count with an x suffix.
func validTimeOrCount(flagName, s string) error {
	if n, ok := strings.CutSuffix(s, "x"); ok {
		if i, err := strconv.Atoi(n); err == nil && i > 0 {
			return nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return nil
	}
	return fmt.Errorf("invalid %s %q: want a positive duration (10s) or count (1000x)", flagName, s)
}

// interruptContext returns a context cancelled by the first SIGINT or
// SIGTERM. The handler is then removed, so that a second Ctrl-C kills
// vsched at once if stopping the running go test takes too long.
func interruptContext() (context.Context, func()) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	return ctx, stop
}

// interruptedStatus is the exit status after ctx was cancelled: 128 plus
// the signal's number, as shells report it. The cause names the signal.
func interruptedStatus(ctx context.Context) int {
	if cause := context.Cause(ctx); cause != nil && strings.HasPrefix(cause.Error(), syscall.SIGTERM.String()) {
		return 128 + int(syscall.SIGTERM)
	}
	return exitInterrupted
}

// exitCode is the exit status of a campaign whose verdict is v.
func exitCode(ctx context.Context, v verdict) int {
	switch v {
	case pass:
		return exitPass
	case interrupted:
		return interruptedStatus(ctx)
	}
	return exitFail
}

// moduleRoot returns the root of the vsched module around the current
// directory, or $VSCHED_ROOT when set.
func moduleRoot(ctx context.Context) (string, error) {
	if dir := os.Getenv(rootEnv); dir != "" {
		abs, err := filepath.Abs(dir)
		if err == nil {
			_, err = os.Stat(filepath.Join(abs, "go.mod"))
		}
		if err != nil {
			return "", fmt.Errorf("%s=%s is not a module root: %v", rootEnv, dir, err)
		}
		return abs, nil
	}
	var errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}} {{.Dir}}")
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	// In a workspace there is one line per main module.
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, dir, _ := strings.Cut(line, " "); err == nil && path == modulePath {
			return dir, nil
		}
	}
	here := "outside any module"
	if f := strings.Fields(string(out)); len(f) > 1 {
		here = "in module " + f[0]
	}
	return "", fmt.Errorf("%s", strings.TrimSpace(fmt.Sprintf("run vsched in a clone of %s (git clone https://%s && cd vsched && go run ./cmd/vsched ...), not %s %s",
		modulePath, modulePath, here, errOut.String())))
}

// goCommand is a go command run in dir with env added to the environment,
// whose cancellation interrupts go test and the test binary it runs. Its
// PWD is dir: the go command takes its working directory from PWD when
// that names the same directory, so an inherited PWD through a symbolic
// link would make it name files by other paths than dir's.
func goCommand(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if dir != "" {
		cmd.Env = append(cmd.Env, "PWD="+dir)
	}
	stopOnCancel(cmd)
	return cmd
}

// runCommand runs cmd and, after a cancellation, kills what it left running.
func runCommand(ctx context.Context, cmd *exec.Cmd) error {
	err := cmd.Run()
	if ctx.Err() != nil {
		killLeftovers(cmd)
	}
	return err
}

// commandLine shows a go command with the environment it adds, quoted so
// that it can be pasted into a shell.
func commandLine(env, args []string) string {
	words := append(append(append([]string(nil), env...), "go"), args...)
	for i, a := range words {
		if a == "" || strings.ContainsAny(a, " \t\"'$^*?[]{}()|&;<>\\") {
			words[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// lineWriter hands each complete line written to it to fn, without the
// newline; flush hands over a last line that had none.
type lineWriter struct {
	fn  func(string)
	buf []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := strings.TrimSuffix(string(w.buf[:i]), "\r")
		w.buf = w.buf[i+1:]
		w.fn(line)
	}
}

func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.fn(string(w.buf))
		w.buf = nil
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// groupDigits writes n with thousands separators: 1234567 → "1,234,567".
func groupDigits(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// formatDuration shows a finished duration as precisely as is useful at
// its size: "412ms", "3.1s", "1m2s".
func formatDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
