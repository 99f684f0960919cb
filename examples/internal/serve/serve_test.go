//go:build linux

package serve_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/kernel"
)

// The tests here run a server in a child process (this test binary, told
// so by the environment) whose descriptor limit they lower, and drive it
// from the parent over loopback.

// childFDs is the child's descriptor limit: the runtime, the kernel's
// poller and the listener take about a dozen, so the child runs out after
// some fifty connections.
const childFDs = 64

// waitFor bounds every wait of the parent: a server that stopped serving
// fails the test after it, not a hang.
const waitFor = 30 * time.Second

func TestMain(m *testing.M) {
	if impl := os.Getenv("VSCHED_SERVE_CHILD"); impl != "" {
		os.Exit(child(impl))
	}
	os.Exit(m.Run())
}

// echoSession echoes what it reads.
type echoSession struct {
	buf, out []byte
}

func (s *echoSession) ReadBuf() []byte { return s.buf }
func (s *echoSession) Received(n int)  { s.out = s.buf[:n] }
func (s *echoSession) Pending() []byte { return s.out }
func (s *echoSession) Wrote(n int)     { s.out = s.out[n:] }
func (s *echoSession) Closing() bool   { return false }

func newEcho() serve.Session { return &echoSession{buf: make([]byte, 512)} }

// child serves echo with impl ("kernel" or "net") under a limit of
// childFDs descriptors, with the connection limit VSCHED_SERVE_MAXCONNS
// and the refusal "refused\n", prints the address on stdout and its log on
// stderr, and serves until stdin closes.
func child(impl string) int {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	l.Cur = childFDs
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	maxConns, _ := strconv.Atoi(os.Getenv("VSCHED_SERVE_MAXCONNS"))
	logf := func(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
	opts := []serve.Option{serve.WithMaxConns(maxConns), serve.WithRefusal([]byte("refused\n")), serve.WithLogf(logf)}
	var srv *serve.Server
	var k *kernel.Kernel
	var err error
	if impl == "kernel" {
		if k, err = kernel.New(kernel.WithProcs(2)); err == nil {
			srv, err = serve.Kernel(k, "127.0.0.1:0", "child", newEcho, opts...)
		}
	} else {
		srv, err = serve.Net("127.0.0.1:0", "child", newEcho, opts...)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	fmt.Println(srv.Addr())
	io.Copy(io.Discard, os.Stdin)
	if err := srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "Close:", err)
		return 1
	}
	if k != nil {
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		if err := k.Shutdown(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "Shutdown:", err)
			return 1
		}
	}
	return 0
}

// server is a child serving, seen from the parent.
type server struct {
	addr  string
	stdin io.WriteCloser
	logs  chan string // the child's log lines
	cmd   *exec.Cmd
}

func startChild(t *testing.T, impl string, maxConns int) *server {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VSCHED_SERVE_CHILD="+impl, "VSCHED_SERVE_MAXCONNS="+strconv.Itoa(maxConns))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{stdin: stdin, logs: make(chan string, 100), cmd: cmd}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case s.logs <- sc.Text():
			default: // a flood of lines would be a bug the assertions see anyway
			}
		}
		close(s.logs)
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the child did not start: %v", err)
	}
	s.addr = strings.TrimSpace(line)
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("the child exited with %v", err)
			}
		case <-time.After(waitFor):
			cmd.Process.Kill()
			t.Errorf("the child did not exit after its stdin closed")
		}
	})
	return s
}

// expectLog waits for a log line of the child that contains want.
func (s *server) expectLog(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(waitFor)
	for {
		select {
		case line, ok := <-s.logs:
			if !ok {
				t.Fatalf("the child's log ended without %q", want)
			}
			if strings.Contains(line, want) {
				return
			}
		case <-timeout:
			t.Fatalf("the child did not log %q", want)
		}
	}
}

// echoes dials s, sends a line and reports whether it comes back.
func (s *server) echoes(t *testing.T) error {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.addr, waitFor)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(waitFor))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return err
	}
	got, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || got != "ping\n" {
		return fmt.Errorf("got %q, %v; want the echo", got, err)
	}
	return nil
}

// TestAcceptSurvivesRunningOutOfDescriptors: a server with 64 descriptors
// is sent 100 connections. Its accepts fail with EMFILE once it has about
// fifty; the rest wait in the backlog. When the clients close, it must go
// on accepting (the backlog, then new clients), saying so in its log.
func TestAcceptSurvivesRunningOutOfDescriptors(t *testing.T) {
	for _, impl := range []string{"kernel", "net"} {
		t.Run(impl, func(t *testing.T) {
			s := startChild(t, impl, 0)
			var conns []net.Conn
			for range 100 {
				c, err := net.DialTimeout("tcp", s.addr, waitFor)
				if err != nil {
					t.Fatal(err)
				}
				conns = append(conns, c)
			}
			s.expectLog(t, "too many open files")
			for _, c := range conns {
				c.Close()
			}
			if err := s.echoes(t); err != nil {
				t.Fatalf("after the clients left, a new one is not served: %v", err)
			}
			s.expectLog(t, "accepting again")
		})
	}
}

// TestMaxConnsRefusesWithTheRefusal: with a limit of 10 connections, the
// eleventh is sent the refusal and closed, and once one of the ten leaves,
// a new client is served.
func TestMaxConnsRefusesWithTheRefusal(t *testing.T) {
	for _, impl := range []string{"kernel", "net"} {
		t.Run(impl, func(t *testing.T) {
			s := startChild(t, impl, 10)
			var conns []net.Conn
			for range 10 {
				c, err := net.DialTimeout("tcp", s.addr, waitFor)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				// Served: the server registered it before the next dial.
				c.SetDeadline(time.Now().Add(waitFor))
				if _, err := c.Write([]byte("hi\n")); err != nil {
					t.Fatal(err)
				}
				if got, err := bufio.NewReader(c).ReadString('\n'); err != nil || got != "hi\n" {
					t.Fatalf("connection %d: got %q, %v", len(conns), got, err)
				}
				conns = append(conns, c)
			}
			c, err := net.DialTimeout("tcp", s.addr, waitFor)
			if err != nil {
				t.Fatal(err)
			}
			c.SetDeadline(time.Now().Add(waitFor))
			got, err := io.ReadAll(c)
			c.Close()
			if string(got) != "refused\n" {
				t.Fatalf("the eleventh connection read %q, %v; want the refusal, then EOF", got, err)
			}
			conns[0].Close()
			// The server sees the close when it reads; until then it may
			// still count the connection, and refuse.
			deadline := time.Now().Add(waitFor)
			for {
				err := s.echoes(t)
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after a client left, a new one is not served: %v", err)
				}
			}
		})
	}
}
