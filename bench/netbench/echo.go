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

// server is one echo server under test; k is its kernel, nil for net.
type server struct {
	addr net.Addr
	k    *kernel.Kernel
}

// startEcho starts impl's echo server on loopback; it is closed, and its
// kernel shut down, when tb's test or benchmark run ends.
func startEcho(tb testing.TB, impl string) server {
	tb.Helper()
	switch impl {
	case "net":
		srv, err := echo.ServeNet("127.0.0.1:0")
		if err != nil {
			tb.Fatalf("echo.ServeNet: %v", err)
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
		srv, err := echo.ServeKernel(k, "127.0.0.1:0")
		if err != nil {
			k.Close()
			tb.Fatalf("echo.ServeKernel: %v", err)
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

// A client is one load-generating connection with its message and echo
// buffers.
type client struct {
	conn net.Conn
	msg  []byte
	got  []byte
}

// dialClients dials n clients to addr and makes one round trip on each,
// so that every connection is accepted and served before a measurement;
// they are closed when tb's run ends.
func dialClients(tb testing.TB, addr net.Addr, n int) []*client {
	tb.Helper()
	cs, err := dial(addr.String(), n)
	tb.Cleanup(func() { closeClients(cs) })
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// dial is dialClients without a test: on an error, the clients dialled so
// far are in cs, for closeClients.
func dial(addr string, n int) (cs []*client, err error) {
	cs = make([]*client, 0, n)
	for i := range n {
		conn, err := net.DialTimeout("tcp", addr, hangTimeout)
		if err != nil {
			return cs, fmt.Errorf("dial %d of %d: %w", i+1, n, err)
		}
		c := &client{conn: conn, msg: make([]byte, msgSize), got: make([]byte, msgSize)}
		for j := range c.msg {
			c.msg[j] = byte(i + j)
		}
		cs = append(cs, c)
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
	if !bytes.Equal(c.got, c.msg) {
		return errors.New("the echo differs from the message")
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

// waitParked waits until every connection task of k and its accept task
// (conns+1 in all) wait on its poller and every P is idle: the kernel is
// idle with its connections open. It polls, sleeping between polls; it
// sets up an idle measurement, it does not order anything.
func waitParked(tb testing.TB, k *kernel.Kernel, conns int) {
	tb.Helper()
	p, err := k.Poller()
	if err != nil {
		tb.Fatalf("kernel Poller: %v", err)
	}
	deadline := time.Now().Add(hangTimeout)
	// Bounded by hangTimeout.
	for {
		s := k.Stats()
		w := p.Waiters()
		if int(w) == conns+1 && s.IdleWorkers == s.Workers {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("after %v, %d tasks wait on the poller (want %d) and %d of %d Ps are idle", hangTimeout, w, conns+1, s.IdleWorkers, s.Workers)
		}
		time.Sleep(100 * time.Microsecond)
	}
}
