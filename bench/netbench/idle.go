package netbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vsched/vsched/kernel"
)

// serverEnv, set in a process's environment, makes the test binary a
// server process (see ServerProcessMain) instead of running tests: its
// value is "<impl> <protocol>", e.g. "kernel resp".
const serverEnv = "VSCHED_NETBENCH_SERVER"

// ServerProcessMain is the body of a server process, called by TestMain
// when serverEnv is set; it returns the exit code. It serves the protocol
// with impl on 127.0.0.1:0, a kernel with its default Ps for the kernel,
// writes "addr <address>" to out, and then answers the lines it reads from
// in:
//
//   - "settle <conns>": once the server is idle with conns connections (on
//     the kernel: every connection task and the accept task wait on the
//     poller, and every P is idle), it collects the garbage and returns
//     the free memory to the system (debug.FreeOSMemory), and writes
//     "ok <bytes>", the Go heap and stacks in use (HeapInuse+StackInuse).
//
// When in closes it closes the server and returns 0. A failure is written
// as "error <message>".
func ServerProcessMain(spec string, in io.Reader, out io.Writer) int {
	impl, name, _ := strings.Cut(spec, " ")
	p, ok := protocols[name]
	if !ok || impl != "kernel" && impl != "net" {
		fmt.Fprintf(out, "error bad %s %q: want \"<kernel|net> <echo|resp>\"\n", serverEnv, spec)
		return 2
	}
	var srv listener
	var k *kernel.Kernel
	var err error
	if impl == "kernel" {
		if k, err = kernel.New(); err == nil {
			srv, err = p.serveKernel(k, "127.0.0.1:0")
		}
	} else {
		srv, err = p.serveNet("127.0.0.1:0")
	}
	if err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return 1
	}
	fmt.Fprintf(out, "addr %s\n", srv.Addr())
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var conns int
		if _, err := fmt.Sscanf(lines.Text(), "settle %d", &conns); err != nil {
			fmt.Fprintf(out, "error bad command %q\n", lines.Text())
			continue
		}
		if k != nil {
			if err := kernelIdle(k, conns); err != nil {
				fmt.Fprintf(out, "error %v\n", err)
				continue
			}
		}
		runtime.GC()
		debug.FreeOSMemory()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Fprintf(out, "ok %d\n", ms.HeapInuse+ms.StackInuse)
	}
	srv.Close()
	if k != nil {
		ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
		defer cancel()
		k.Shutdown(ctx)
	}
	return 0
}

// kernelIdle waits until conns connection tasks and the accept task of k
// wait on its poller and every P is idle. It polls, sleeping between
// polls: it sets up a measurement, it orders nothing.
func kernelIdle(k *kernel.Kernel, conns int) error {
	p, err := k.Poller()
	if err != nil {
		return err
	}
	deadline := time.Now().Add(hangTimeout)
	// Bounded by hangTimeout.
	for {
		s := k.Stats()
		w := p.Waiters()
		if int(w) == conns+1 && s.IdleWorkers == s.Workers {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %v, %d tasks wait on the poller (want %d) and %d of %d Ps are idle", hangTimeout, w, conns+1, s.IdleWorkers, s.Workers)
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// A serverProcess is a server in a process of its own: a copy of this test
// binary serving a protocol (ServerProcessMain), or redis-server.
type serverProcess struct {
	addr string
	cmd  *exec.Cmd
	in   io.WriteCloser // nil for Redis
	out  *bufio.Reader
}

// startServerProcess starts impl's server of p (kernel, net, or redis,
// which serves RESP) and returns once it listens; it is stopped when tb's
// run ends. A missing redis-server skips tb.
func startServerProcess(tb testing.TB, impl string, p protocol) *serverProcess {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var cmd *exec.Cmd
	var redisPort int
	if impl == "redis" {
		exe, err := exec.LookPath("redis-server")
		if err != nil {
			cancel()
			tb.Skip("redis-server is not installed (bench/curves.sh installs it)")
		}
		port, err := freePort()
		if err != nil {
			cancel()
			tb.Fatal(err)
		}
		redisPort = port
		// No persistence, and clients without limit: Redis fits its
		// descriptor limit to maxclients, as far as it may.
		cmd = exec.CommandContext(ctx, exe, "--bind", "127.0.0.1", "--port", strconv.Itoa(port),
			"--save", "", "--appendonly", "no", "--maxclients", "1000000", "--protected-mode", "no")
	} else {
		exe, err := os.Executable()
		if err != nil {
			cancel()
			tb.Fatal(err)
		}
		cmd = exec.CommandContext(ctx, exe)
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s", serverEnv, impl, p.name))
	}
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = time.Second
	s := &serverProcess{cmd: cmd}
	var err error
	if impl != "redis" {
		if s.in, err = cmd.StdinPipe(); err != nil {
			cancel()
			tb.Fatal(err)
		}
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	s.out = bufio.NewReader(outPipe)
	if err := cmd.Start(); err != nil {
		cancel()
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if s.in != nil {
			s.in.Close() // the server process closes its server and exits
		} else {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		done := make(chan struct{})
		go func() {
			cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(hangTimeout): // a bound, not a synchronization
			cancel() // kills it
			<-done
		}
		cancel()
	})
	if impl == "redis" {
		// Redis logs to stdout; it serves once it says so.
		for {
			line, err := s.out.ReadString('\n')
			if err != nil {
				tb.Fatalf("redis-server exited before it was ready: %v", err)
			}
			if strings.Contains(line, "Ready to accept connections") {
				break
			}
		}
		go io.Copy(io.Discard, s.out) // keep its log from filling the pipe
		s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(redisPort))
		return s
	}
	line, err := s.line()
	if err != nil {
		tb.Fatal(err)
	}
	addr, ok := strings.CutPrefix(line, "addr ")
	if !ok {
		tb.Fatalf("server process: got %q, want its address", line)
	}
	s.addr = addr
	return s
}

// line reads a line of the server process's answer.
func (s *serverProcess) line() (string, error) { return readAnswer(s.out, "server process") }

// settle waits until the server is idle with conns connections, with its
// garbage collected and its free memory returned, and returns its Go heap
// and stacks in use; -1 for Redis, which it does not wait for.
func (s *serverProcess) settle(conns int) (int64, error) {
	if s.in == nil {
		return -1, nil
	}
	if _, err := fmt.Fprintf(s.in, "settle %d\n", conns); err != nil {
		return 0, err
	}
	l, err := s.line()
	if err != nil {
		return 0, err
	}
	var heap int64
	if _, err := fmt.Sscanf(l, "ok %d", &heap); err != nil {
		return 0, fmt.Errorf("server process: got %q, want ok and its heap", l)
	}
	return heap, nil
}

// quiesce lets Redis settle with its connections idle, before a reading:
// its client cron frees an idle client's query buffer after 2 s, and its
// allocator returns the pages over the next seconds (at 10,000
// connections its RSS fell for 11 s). It reads the resident set every
// second and returns once three readings in a row are within 1% of each
// other, after at most 30 s. The Go servers settle on command (settle);
// for them it does nothing.
func (s *serverProcess) quiesce() error {
	if s.in == nil {
		var last []int64
		// Bounded: 30 readings.
		for range 30 {
			time.Sleep(time.Second)
			now, err := s.rss()
			if err != nil {
				return err
			}
			last = append(last, now)
			if n := len(last); n >= 3 && slices.Max(last[n-3:])-slices.Min(last[n-3:]) < now/100 {
				return nil
			}
		}
	}
	return nil
}

// rss returns the server process's resident set size (VmRSS).
func (s *serverProcess) rss() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err != nil {
				return 0, fmt.Errorf("VmRSS %q: %v", rest, err)
			}
			return kb << 10, nil
		}
	}
	return 0, errors.New("no VmRSS in /proc/<pid>/status")
}

// cpu returns the CPU time the server process's threads have had so far,
// in ns: the sum of the first field of /proc/<pid>/task/*/schedstat. A
// thread that has exited no longer counts.
func (s *serverProcess) cpu() (time.Duration, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", s.cmd.Process.Pid))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("no schedstat for the server's threads: %v", err)
	}
	var total time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread exited
		}
		var ns int64
		if _, err := fmt.Sscanf(string(b), "%d", &ns); err != nil {
			return 0, fmt.Errorf("%s: %q: %v", f, b, err)
		}
		total += time.Duration(ns)
	}
	return total, nil
}

// freePort returns a TCP port on 127.0.0.1 that nothing listened on a
// moment ago.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// raiseFDLimit makes sure this process, and the processes it starts, may
// open n descriptors, raising the hard limit if it must (root may); it
// skips tb if it cannot.
func raiseFDLimit(tb testing.TB, n int) {
	tb.Helper()
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		tb.Fatal(err)
	}
	if l.Cur >= uint64(n) {
		return
	}
	want := l
	want.Cur = uint64(n)
	want.Max = max(l.Max, uint64(n))
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
		tb.Skipf("needs %d descriptors; the limit is %d (hard %d) and raising it failed: %v", n, l.Cur, l.Max, err)
	}
}
