package netbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/examples/echo"
	"github.com/vsched/vsched/examples/resp"
	"github.com/vsched/vsched/kernel"
)

// hangTimeout bounds every wait of a benchmark on the servers: a dial, a
// round trip, the kernel going idle, a shutdown. It is not a measurement:
// past it the benchmark fails instead of hanging.
const hangTimeout = time.Minute

// msgSize is the size of an Echo message.
const msgSize = 64

// impls are the two servers of every benchmark.
var impls = []string{"kernel", "net"}

// A protocol is a server of the examples and what its clients send: the
// i-th connection sends msg and waits for want, over and over.
type protocol struct {
	name        string
	serveKernel func(k *kernel.Kernel, addr string) (listener, error)
	serveNet    func(addr string) (listener, error)
	request     func(i int) (msg, want []byte)
}

// listener is what both examples' servers are.
type listener interface {
	Addr() net.Addr
	Close() error
}

// echoProto is examples/echo with 64-byte messages, different on each
// connection.
var echoProto = protocol{
	name:        "echo",
	serveKernel: func(k *kernel.Kernel, addr string) (listener, error) { return echo.ServeKernel(k, addr) },
	serveNet:    func(addr string) (listener, error) { return echo.ServeNet(addr) },
	request: func(i int) ([]byte, []byte) {
		msg := make([]byte, msgSize)
		for j := range msg {
			msg[j] = byte(i + j)
		}
		return msg, msg
	},
}

// respProto is examples/resp with PING, which Redis answers too.
var respProto = protocol{
	name:        "resp",
	serveKernel: func(k *kernel.Kernel, addr string) (listener, error) { return resp.ServeKernel(k, addr) },
	serveNet:    func(addr string) (listener, error) { return resp.ServeNet(addr) },
	request: func(int) ([]byte, []byte) {
		return []byte("*1\r\n$4\r\nPING\r\n"), []byte("+PONG\r\n")
	},
}

// protocols are the protocols by name.
var protocols = map[string]protocol{echoProto.name: echoProto, respProto.name: respProto}

// server is one server under test; k is its kernel, nil for net.
type server struct {
	addr net.Addr
	k    *kernel.Kernel
}

// startEcho starts impl's echo server (see startServer).
func startEcho(tb testing.TB, impl string) server { return startServer(tb, impl, echoProto) }

// startServer starts impl's server of p on loopback; it is closed, and
// its kernel shut down, when tb's test or benchmark run ends.
func startServer(tb testing.TB, impl string, p protocol) server {
	tb.Helper()
	switch impl {
	case "net":
		srv, err := p.serveNet("127.0.0.1:0")
		if err != nil {
			tb.Fatalf("%s net server: %v", p.name, err)
		}
		tb.Cleanup(func() {
			if err := srv.Close(); err != nil {
				tb.Errorf("net server Close: %v", err)
			}
		})
		return server{addr: srv.Addr()}
	case "kernel":
		k, err := kernel.New()
		if err != nil {
			tb.Fatalf("kernel.New: %v", err)
		}
		srv, err := p.serveKernel(k, "127.0.0.1:0")
		if err != nil {
			k.Close()
			tb.Fatalf("%s kernel server: %v", p.name, err)
		}
		tb.Cleanup(func() {
			if err := srv.Close(); err != nil {
				tb.Errorf("kernel server Close: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), hangTimeout)
			defer cancel()
			if err := k.Shutdown(ctx); err != nil {
				tb.Errorf("kernel Shutdown: %v; stats %+v", err, k.Stats())
			}
		})
		return server{addr: srv.Addr(), k: k}
	}
	tb.Fatalf("no implementation %q", impl)
	return server{}
}

// A client is one load-generating connection with its message, the reply
// it wants, and a buffer for the reply.
type client struct {
	conn net.Conn
	msg  []byte
	want []byte
	got  []byte
}

// dialClients dials n echo clients to addr (see dialProto).
func dialClients(tb testing.TB, addr net.Addr, n int) []*client {
	tb.Helper()
	return dialProto(tb, addr.String(), n, echoProto)
}

// dialProto dials n clients of p to addr and makes one round trip on
// each, so that every connection is accepted and served before a
// measurement; they are closed when tb's run ends.
func dialProto(tb testing.TB, addr string, n int, p protocol) []*client {
	tb.Helper()
	cs, err := dial(addr, n, p)
	tb.Cleanup(func() { closeClients(cs) })
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// portsPerSource is how many connections dial uses one loopback source
// address for: fewer than the ephemeral ports of Linux's default range
// (32768-60999), so that tens of thousands of connections to one server
// do not run out of ports.
const portsPerSource = 20000

// dial is dialProto without a test: on an error, the clients dialled so
// far are in cs, for closeClients. Connection i comes from 127.0.0.1 +
// i/portsPerSource (Linux routes all of 127/8 to loopback).
func dial(addr string, n int, p protocol) (cs []*client, err error) {
	cs = make([]*client, 0, n)
	for i := range n {
		d := net.Dialer{Timeout: hangTimeout}
		if src := i / portsPerSource; src > 0 {
			d.LocalAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(1+src))}
		}
		conn, err := d.Dial("tcp", addr)
		if err != nil {
			return cs, fmt.Errorf("dial %d of %d: %w", i+1, n, err)
		}
		msg, want := p.request(i)
		cs = append(cs, &client{conn: conn, msg: msg, want: want, got: make([]byte, len(want))})
	}
	// Each connection waits for its echo only after every one has sent:
	// with a kernel that accepts in batches this takes one pass.
	for i, c := range cs {
		c.conn.SetDeadline(time.Now().Add(hangTimeout))
		if _, err := c.conn.Write(c.msg); err != nil {
			return cs, fmt.Errorf("warm-up write on connection %d: %w", i, err)
		}
	}
	for i, c := range cs {
		if err := c.readEcho(); err != nil {
			return cs, fmt.Errorf("warm-up echo on connection %d: %w", i, err)
		}
	}
	return cs, nil
}

func closeClients(cs []*client) {
	for _, c := range cs {
		c.conn.Close()
	}
}

// roundTrip sends the message and waits for its echo.
func (c *client) roundTrip() error {
	if _, err := c.conn.Write(c.msg); err != nil {
		return err
	}
	return c.readEcho()
}

func (c *client) readEcho() error {
	if _, err := io.ReadFull(c.conn, c.got); err != nil {
		return err
	}
	if !bytes.Equal(c.got, c.want) {
		return fmt.Errorf("the reply %q differs from %q", c.got, c.want)
	}
	return nil
}

// echoLoad makes total round trips over the clients, each client on its
// own goroutine taking the next round trip from a shared counter, and
// returns every round trip's latency in ns. It stops at the first error.
func echoLoad(cs []*client, total int) ([]int64, error) {
	var next atomic.Int64
	lat := make([][]int64, len(cs))
	errs := make([]error, len(cs))
	var failed atomic.Bool
	var wg sync.WaitGroup
	for i, c := range cs {
		lat[i] = make([]int64, 0, total/len(cs)+1)
		wg.Go(func() {
			// Bounded: each pass takes one of total round trips.
			for next.Add(1) <= int64(total) && !failed.Load() {
				t0 := time.Now()
				if err := c.roundTrip(); err != nil {
					errs[i] = fmt.Errorf("connection %d: %w", i, err)
					failed.Store(true)
					return
				}
				lat[i] = append(lat[i], int64(time.Since(t0)))
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	all := make([]int64, 0, total)
	for _, l := range lat {
		all = append(all, l...)
	}
	return all, nil
}

// waitParked is kernelIdle in a test: it fails tb if k does not come to
// idle with conns connections.
func waitParked(tb testing.TB, k *kernel.Kernel, conns int) {
	tb.Helper()
	if err := kernelIdle(k, conns); err != nil {
		tb.Fatal(err)
	}
}
