package resp_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vsched/vsched/examples/internal/serve/servetest"
	"github.com/vsched/vsched/examples/resp"
)

// servers starts both implementations on loopback and closes them when
// the test ends.
func servers(t *testing.T) map[string]*resp.Server {
	t.Helper()
	return servetest.Servers(t, resp.ServeKernel, resp.ServeNet)
}

// A client is a minimal RESP client: it sends arrays of bulk strings and
// reads one reply at a time, rendered as a string ("+OK", "$-1", "$5 hello",
// ":2", "-ERR ...").
type client struct {
	conn net.Conn
	r    *bufio.Reader
}

func dial(t *testing.T, addr net.Addr) *client {
	t.Helper()
	conn := servetest.Dial(t, addr)
	return &client{conn: conn, r: bufio.NewReader(conn)}
}

func encode(args ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return b.String()
}

func (c *client) send(raw string) error {
	_, err := io.WriteString(c.conn, raw)
	return err
}

func (c *client) reply() (string, error) {
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if !strings.HasPrefix(line, "$") || line == "$-1" {
		return line, nil
	}
	n, err := strconv.Atoi(line[1:])
	if err != nil {
		return "", fmt.Errorf("bad bulk header %q", line)
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		return "", err
	}
	return line + " " + string(buf[:n]), nil
}

// do sends one command and returns its reply.
func (c *client) do(args ...string) (string, error) {
	if err := c.send(encode(args...)); err != nil {
		return "", err
	}
	return c.reply()
}

func TestServersAnswerTheCommands(t *testing.T) {
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			for _, step := range []struct {
				args  []string
				reply string
			}{
				{[]string{"PING"}, "+PONG"},
				{[]string{"PING", "hi"}, "$2 hi"},
				{[]string{"ECHO", "a b\r\nc"}, "$6 a b\r\nc"},
				{[]string{"GET", "k"}, "$-1"},
				{[]string{"SET", "k", "v"}, "+OK"},
				{[]string{"GET", "k"}, "$1 v"},
				{[]string{"DEL", "k", "other"}, ":1"},
				{[]string{"GET", "k"}, "$-1"},
				{[]string{"NOPE"}, "-ERR unknown command 'NOPE'"},
				{[]string{"GET"}, "-ERR wrong number of arguments for 'get' command"},
			} {
				got, err := c.do(step.args...)
				if err != nil || got != step.reply {
					t.Fatalf("%q: reply %q, %v; want %q", step.args, got, err, step.reply)
				}
			}
			// Inline commands.
			if err := c.send("PING\r\nECHO x\n"); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"+PONG", "$1 x"} {
				if got, err := c.reply(); err != nil || got != want {
					t.Fatalf("inline: reply %q, %v; want %q", got, err, want)
				}
			}
		})
	}
}

// Several clients at once each pipeline a batch of commands in one write,
// and write one command in two halves; every reply comes back in order.
func TestServersAnswerPipelinedClients(t *testing.T) {
	const clients, batch = 8, 200
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for id := range clients {
				c := dial(t, srv.Addr())
				wg.Go(func() {
					if err := pipelineClient(c, id, batch); err != nil {
						errs <- fmt.Errorf("client %d: %w", id, err)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

func pipelineClient(c *client, id, batch int) error {
	var out strings.Builder
	var want []string
	for i := range batch {
		key, val := fmt.Sprintf("c%d:k%d", id, i), strings.Repeat(strconv.Itoa(i%10), i)
		out.WriteString(encode("SET", key, val))
		out.WriteString(encode("GET", key))
		want = append(want, "+OK", fmt.Sprintf("$%d %s", len(val), val))
	}
	out.WriteString(encode("DEL", fmt.Sprintf("c%d:k1", id), fmt.Sprintf("c%d:k2", id)))
	want = append(want, ":2")
	if err := c.send(out.String()); err != nil {
		return err
	}
	for i, w := range want {
		got, err := c.reply()
		if err != nil || got != w {
			return fmt.Errorf("pipelined reply %d: %q, %v; want %q", i, got, err, w)
		}
	}
	// One command in two writes: the server may see it in two reads.
	cmd := encode("ECHO", "split across writes")
	if err := c.send(cmd[:len(cmd)/2]); err != nil {
		return err
	}
	if err := c.send(cmd[len(cmd)/2:]); err != nil {
		return err
	}
	if got, err := c.reply(); err != nil || got != "$19 split across writes" {
		return fmt.Errorf("split command: reply %q, %v", got, err)
	}
	return nil
}

// A protocol error is answered, and then the server closes the connection.
func TestServersCloseAfterAProtocolError(t *testing.T) {
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			if err := c.send("*1\r\n:1\r\n"); err != nil {
				t.Fatal(err)
			}
			if got, err := c.reply(); err != nil || got != "-ERR Protocol error: expected '$', got ':'" {
				t.Fatalf("reply %q, %v; want the protocol error", got, err)
			}
			if got, err := c.reply(); err != io.EOF {
				t.Fatalf("after the error: %q, %v; want io.EOF", got, err)
			}
		})
	}
}

// Close returns while clients are still connected, and they see the
// connection end.
func TestServerCloseEndsOpenConnections(t *testing.T) {
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			if got, err := c.do("PING"); err != nil || got != "+PONG" {
				t.Fatalf("PING: %q, %v", got, err)
			}
			if err := srv.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if got, err := c.reply(); err == nil {
				t.Fatalf("after Close: reply %q, want an error", got)
			}
		})
	}
}

// TestMaxClientsRefusesWithRedisError: with WithMaxClients(1), a second
// client gets Redis's error and is closed, while the first is served.
func TestMaxClientsRefusesWithRedisError(t *testing.T) {
	for impl, srv := range servetest.Servers(t, resp.ServeKernel, resp.ServeNet, resp.WithMaxClients(1)) {
		t.Run(impl, func(t *testing.T) {
			first := dial(t, srv.Addr())
			if err := first.send(encode("PING")); err != nil {
				t.Fatal(err)
			}
			if got, err := first.reply(); got != "+PONG" {
				t.Fatalf("the first client's PING: %q, %v", got, err)
			}
			second := dial(t, srv.Addr())
			got, err := io.ReadAll(second.conn)
			if string(got) != "-ERR max number of clients reached\r\n" {
				t.Fatalf("the second client read %q, %v; want Redis's maxclients error, then EOF", got, err)
			}
		})
	}
}

// TestPipelinedRepliesOverTheSoftLimitAllArrive: 50 GETs of a 1 MiB value
// pipelined in one write, against servers with a 2 MiB soft output limit.
// The commands run a few at a time as the client reads, and every reply
// arrives, in order.
func TestPipelinedRepliesOverTheSoftLimitAllArrive(t *testing.T) {
	value := strings.Repeat("v", 1<<20)
	for impl, srv := range servetest.Servers(t, resp.ServeKernel, resp.ServeNet, resp.WithOutputLimits(2<<20, 64<<20)) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			if got, err := c.do("SET", "big", value); got != "+OK" {
				t.Fatalf("SET: %q, %v", got, err)
			}
			var batch strings.Builder
			for range 50 {
				batch.WriteString(encode("GET", "big"))
			}
			go c.send(batch.String()) // the server may not read it all before we read
			for i := range 50 {
				got, err := c.reply()
				if err != nil || got != "$1048576 "+value {
					t.Fatalf("reply %d: %.20q..., %v", i, got, err)
				}
			}
		})
	}
}

// TestOversizedArgumentGetsTheErrorReply: a client sends a 20 MB argument,
// over the 16 MiB limit, in one big write. The server replies with
// Redis's error and closes, lingering until the client has sent it all,
// so the client reads the error rather than a connection reset.
func TestOversizedArgumentGetsTheErrorReply(t *testing.T) {
	const size = 20 << 20
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			go c.send(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%d\r\n%s\r\n", size, strings.Repeat("v", size)))
			got, err := io.ReadAll(c.r)
			if string(got) != "-ERR Protocol error: invalid bulk length\r\n" || err != nil {
				t.Fatalf("read %q, %v; want the error reply, then EOF", got, err)
			}
		})
	}
}

// TestProtoLimitsAreOptions: with WithProtoLimits(1024, 0) an argument of
// 2,000 bytes gets Redis's error; one of 1,000 is stored.
func TestProtoLimitsAreOptions(t *testing.T) {
	for impl, srv := range servetest.Servers(t, resp.ServeKernel, resp.ServeNet, resp.WithProtoLimits(1024, 0)) {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			if got, err := c.do("SET", "k", strings.Repeat("v", 1000)); got != "+OK" {
				t.Fatalf("SET of 1,000 bytes: %q, %v", got, err)
			}
			c = dial(t, srv.Addr())
			go c.send(encode("SET", "k", strings.Repeat("v", 2000)))
			got, err := io.ReadAll(c.r)
			if string(got) != "-ERR Protocol error: invalid bulk length\r\n" || err != nil {
				t.Fatalf("SET of 2,000 bytes: read %q, %v; want the error reply, then EOF", got, err)
			}
		})
	}
}
