package netbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// clientEnv, set in a process's environment, makes the test binary a
// client process (see ClientProcessMain) instead of running tests: its
// value is "<addr> <conns> <round trips>".
const clientEnv = "VSCHED_NETBENCH_CLIENT"

// clientProcessTimeout bounds a client process's life: past it, it is
// killed and the benchmark fails instead of hanging.
const clientProcessTimeout = 5 * time.Minute

// ClientProcessMain is the body of a client process, called by TestMain
// when clientEnv is set; it returns the exit code. It dials the
// connections and makes their warm-up round trips, writes "ready" to out,
// waits for a line on in, makes the round trips, and writes
// "done <round trips> <elapsed-ns> <p50-ns> <p99-ns> <cpu-ns>" (cpu-ns
// is its own CPU time), or "error <message>".
func ClientProcessMain(spec string, in io.Reader, out io.Writer) int {
	var addr string
	var conns, total int
	if _, err := fmt.Sscanf(spec, "%s %d %d", &addr, &conns, &total); err != nil || conns < 1 || total < 1 {
		fmt.Fprintf(out, "error bad %s %q: want \"<addr> <conns> <round trips>\"\n", clientEnv, spec)
		return 2
	}
	cs, err := dial(addr, conns, echoProto)
	defer closeClients(cs)
	if err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return 1
	}
	fmt.Fprintln(out, "ready")
	if _, err := bufio.NewReader(in).ReadString('\n'); err != nil {
		fmt.Fprintf(out, "error waiting for the start: %v\n", err)
		return 1
	}
	cpu0, t0 := cpuTime(), time.Now()
	lat, err := echoLoad(cs, total)
	elapsed, cpu := time.Since(t0), cpuTime()-cpu0
	if err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return 1
	}
	fmt.Fprintf(out, "done %d %d %d %d %d\n", len(lat), elapsed, percentile(lat, 50), percentile(lat, 99), cpu)
	return 0
}

// processResult is what a client process measured.
type processResult struct {
	roundTrips             int
	elapsed, p50, p99, cpu time.Duration
}

// runClientProcess runs total round trips over conns connections to addr
// from a client process, a copy of this test binary. start is called once
// the process's connections are up, just before it starts, and stop as
// soon as it has reported, so that the caller's clocks see the round trips
// and not the process's start or exit. The process is killed if it is not
// done within clientProcessTimeout.
func runClientProcess(addr string, conns, total int, start, stop func()) (r processResult, err error) {
	exe, err := os.Executable()
	if err != nil {
		return processResult{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), clientProcessTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe)
	cmd.WaitDelay = time.Second
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", clientEnv, addr, conns, total))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return processResult{}, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return processResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return processResult{}, err
	}
	// On every path the process ends: its stdin closes, and it exits once
	// it has reported, or it is killed at the timeout.
	defer func() {
		in.Close()
		if werr := cmd.Wait(); werr != nil && err == nil {
			err = fmt.Errorf("client process: %w", werr)
		}
	}()
	out := bufio.NewReader(outPipe)
	line := func() (string, error) { return readAnswer(out, "client process") }
	s, err := line()
	if err != nil {
		return processResult{}, err
	}
	if s != "ready" {
		return processResult{}, fmt.Errorf("client process: got %q, want ready", s)
	}
	start()
	if _, err := io.WriteString(in, "go\n"); err != nil {
		return processResult{}, err
	}
	s, err = line()
	stop()
	if err != nil {
		return processResult{}, err
	}
	if _, err := fmt.Sscanf(s, "done %d %d %d %d %d", &r.roundTrips, &r.elapsed, &r.p50, &r.p99, &r.cpu); err != nil {
		return processResult{}, fmt.Errorf("client process: bad result %q: %v", s, err)
	}
	return r, nil
}

// readAnswer reads a line that a client or server process (who) wrote:
// its text, or the error it reported as "error <message>", or the read's.
func readAnswer(r *bufio.Reader, who string) (string, error) {
	l, err := r.ReadString('\n')
	l = strings.TrimSpace(l)
	if rest, ok := strings.CutPrefix(l, "error "); ok {
		return "", errors.New(who + ": " + rest)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", who, err)
	}
	return l, nil
}

// benchEchoProcess is benchEcho with the load from a client process.
func benchEchoProcess(b *testing.B, impl string, conns int) {
	srv := startEcho(b, impl)
	var cpu0, cpu time.Duration
	r, err := runClientProcess(srv.addr.String(), conns, b.N, func() {
		b.ResetTimer()
		cpu0 = cpuTime()
	}, func() {
		cpu = cpuTime() - cpu0
		b.StopTimer()
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/r.elapsed.Seconds(), "rps")
	b.ReportMetric(float64(r.p50), "p50-ns")
	b.ReportMetric(float64(r.p99), "p99-ns")
	b.ReportMetric(float64(cpu)/float64(b.N), "srv-cpu-ns/op")
	b.ReportMetric(float64(r.cpu)/float64(b.N), "cli-cpu-ns/op")
}
