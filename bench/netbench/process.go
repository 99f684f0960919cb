package netbench

import (
	"bufio"
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

// ClientProcessMain is the body of a client process, called by TestMain
// when clientEnv is set; it returns the exit code. It dials the
// connections and makes their warm-up round trips, writes "ready" to out,
// waits for a line on in, makes the round trips, and writes
// "done <elapsed-ns> <p50-ns> <p99-ns> <cpu-ns>", its own CPU time
// included, or "error <message>".
func ClientProcessMain(spec string, in io.Reader, out io.Writer) int {
	var addr string
	var conns, total int
	if _, err := fmt.Sscanf(spec, "%s %d %d", &addr, &conns, &total); err != nil || conns < 1 || total < 1 {
		fmt.Fprintf(out, "error bad %s %q: want \"<addr> <conns> <round trips>\"\n", clientEnv, spec)
		return 2
	}
	cs, err := dial(addr, conns)
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
	fmt.Fprintf(out, "done %d %d %d %d\n", elapsed, percentile(lat, 50), percentile(lat, 99), cpu)
	return 0
}

// processResult is what a client process measured.
type processResult struct {
	elapsed, p50, p99, cpu time.Duration
}

// runClientProcess runs total round trips over conns connections to addr
// from a client process, a copy of this test binary; start is called once
// the process's connections are up, just before it starts, so that the
// caller can start its clocks.
func runClientProcess(addr string, conns, total int, start func()) (processResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return processResult{}, err
	}
	cmd := exec.Command(exe)
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
	// it has reported; a client stuck on a server fails at hangTimeout.
	defer cmd.Wait()
	defer in.Close()
	out := bufio.NewReader(outPipe)
	line := func() (string, error) {
		s, err := out.ReadString('\n')
		s = strings.TrimSpace(s)
		if rest, ok := strings.CutPrefix(s, "error "); ok {
			return "", errors.New("client process: " + rest)
		}
		if err != nil {
			return "", fmt.Errorf("client process: %w", err)
		}
		return s, nil
	}
	if s, err := line(); err != nil || s != "ready" {
		return processResult{}, fmt.Errorf("client process: got %q (%v), want ready", s, err)
	}
	start()
	if _, err := io.WriteString(in, "go\n"); err != nil {
		return processResult{}, err
	}
	s, err := line()
	if err != nil {
		return processResult{}, err
	}
	var r processResult
	if _, err := fmt.Sscanf(s, "done %d %d %d %d", &r.elapsed, &r.p50, &r.p99, &r.cpu); err != nil {
		return processResult{}, fmt.Errorf("client process: bad result %q: %v", s, err)
	}
	return r, nil
}

// benchEchoProcess is benchEcho with the load from a client process.
func benchEchoProcess(b *testing.B, impl string, conns int) {
	srv := startEcho(b, impl)
	var cpu0 time.Duration
	r, err := runClientProcess(srv.addr.String(), conns, b.N, func() {
		b.ResetTimer()
		cpu0 = cpuTime()
	})
	cpu := cpuTime() - cpu0
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/r.elapsed.Seconds(), "rps")
	b.ReportMetric(float64(r.p50), "p50-ns")
	b.ReportMetric(float64(r.p99), "p99-ns")
	b.ReportMetric(float64(cpu)/float64(b.N), "srv-cpu-ns/op")
	b.ReportMetric(float64(r.cpu)/float64(b.N), "cli-cpu-ns/op")
}
