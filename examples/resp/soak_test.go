package resp_test

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vsched/vsched/examples/internal/serve/servetest"
	"github.com/vsched/vsched/examples/resp"
)

var soak = flag.Duration("soak", 0, "run TestSoak for this long (0: skip it)")

// soakKinds are the clients of the soak test: how many of each, against
// each server.
var soakKinds = []struct {
	name  string
	count int
	run   func(addr string, stop <-chan struct{}, st *soakStats)
}{
	{"verified", 40, soakVerified},
	{"idle", 100, soakIdle},
	{"half-frame", 10, soakHalfFrame},
	{"reset", 10, soakReset},
	{"slowloris", 10, soakSlowloris},
	{"non-reader", 5, soakNonReader},
	{"flood", 5, soakFlood},
}

// soakStats counts what the clients did and saw.
type soakStats struct {
	ops, wrong, errs atomic.Int64
	firstWrong       atomic.Value // string
}

func (st *soakStats) bad(format string, args ...any) {
	st.wrong.Add(1)
	st.firstWrong.CompareAndSwap(nil, fmt.Sprintf(format, args...))
}

// TestSoak runs, with -soak=D, every kind of client against each server
// for D: clients that check every reply of their SETs and GETs, idle ones,
// ones that send half a command and leave, reset, trickle a byte at a
// time, pipeline big replies and never read, or flood PINGs. Nothing a
// checking client stored may be lost or wrong; and once every client has
// left, the process's descriptors and goroutines are back where they were
// and its live heap within 32 MiB of it.
func TestSoak(t *testing.T) {
	if *soak == 0 {
		t.Skip("run with -soak=10m")
	}
	// A soft output limit of 4 MiB, so that the non-readers hold 5 MiB
	// each rather than 65.
	servers := servetest.Servers(t, resp.ServeKernel, resp.ServeNet, resp.WithOutputLimits(4<<20, 64<<20))
	fdsBefore, gBefore, heapBefore := census()
	for impl, srv := range servers {
		t.Run(impl, func(t *testing.T) {
			c := dial(t, srv.Addr())
			if got, err := c.do("SET", "big", strings.Repeat("b", 1<<20)); got != "+OK" {
				t.Fatalf("SET big: %q, %v", got, err)
			}
			c.conn.Close()
			stop := make(chan struct{})
			var wg sync.WaitGroup
			stats := map[string]*soakStats{}
			for _, k := range soakKinds {
				st := &soakStats{}
				stats[k.name] = st
				for range k.count {
					wg.Go(func() { k.run(srv.Addr().String(), stop, st) })
				}
			}
			time.Sleep(*soak) // the soak's length, not a synchronization
			close(stop)
			wg.Wait()
			for _, k := range soakKinds {
				st := stats[k.name]
				t.Logf("%s, %s: %d clients, %d operations, %d errors, %d wrong", impl, k.name, k.count, st.ops.Load(), st.errs.Load(), st.wrong.Load())
				if st.wrong.Load() > 0 {
					t.Errorf("%s: %d wrong replies, the first: %v", k.name, st.wrong.Load(), st.firstWrong.Load())
				}
			}
			if stats["verified"].ops.Load() == 0 {
				t.Errorf("the checking clients did nothing")
			}
		})
	}
	// Every server connection ends once its client has gone: poll, since
	// a server sees a close only when it next reads.
	deadline := time.Now().Add(30 * time.Second)
	for {
		fds, g, heap := census()
		if fds <= fdsBefore && g <= gBefore+2 && heap <= heapBefore+32<<20 {
			t.Logf("after the soak: %d descriptors (%d before), %d goroutines (%d), live heap %d MiB (%d)", fds, fdsBefore, g, gBefore, heap>>20, heapBefore>>20)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the soak: %d descriptors (%d before), %d goroutines (%d), live heap %d MiB (%d)", fds, fdsBefore, g, gBefore, heap>>20, heapBefore>>20)
		}
		time.Sleep(100 * time.Millisecond) // polling the process's counts
	}
}

// census counts the process's open descriptors, goroutines and live heap.
func census() (fds, goroutines int, heap uint64) {
	if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
		fds = len(ents)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return fds, runtime.NumGoroutine(), m.HeapAlloc
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// soakDial connects with deadlines far enough that only a stuck server
// trips them.
func soakDial(addr string) (net.Conn, *bufio.Reader, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	c.SetDeadline(time.Now().Add(time.Minute))
	return c, bufio.NewReader(c), nil
}

func soakVerified(addr string, stop <-chan struct{}, st *soakStats) {
	c, r, err := soakDial(addr)
	if err != nil {
		st.errs.Add(1)
		return
	}
	defer c.Close()
	cl := &client{conn: c, r: r}
	key := fmt.Sprintf("k%p", &cl)
	for i := 0; !stopped(stop); i++ {
		c.SetDeadline(time.Now().Add(time.Minute))
		v := fmt.Sprint(i)
		if got, err := cl.do("SET", key, v); got != "+OK" {
			st.bad("SET %s %s: %q, %v", key, v, got, err)
			return
		}
		if got, err := cl.do("GET", key); got != fmt.Sprintf("$%d %s", len(v), v) {
			st.bad("GET %s after SET %s: %q, %v", key, v, got, err)
			return
		}
		st.ops.Add(2)
	}
}

func soakIdle(addr string, stop <-chan struct{}, st *soakStats) {
	c, _, err := soakDial(addr)
	if err != nil {
		st.errs.Add(1)
		return
	}
	<-stop
	c.Close()
}

func soakHalfFrame(addr string, stop <-chan struct{}, st *soakStats) {
	for !stopped(stop) {
		c, _, err := soakDial(addr)
		if err != nil {
			st.errs.Add(1)
			continue
		}
		io.WriteString(c, "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$10\r\nabc")
		c.Close()
		st.ops.Add(1)
	}
}

func soakReset(addr string, stop <-chan struct{}, st *soakStats) {
	for !stopped(stop) {
		c, _, err := soakDial(addr)
		if err != nil {
			st.errs.Add(1)
			continue
		}
		io.WriteString(c, encode("GET", "big"))
		c.(*net.TCPConn).SetLinger(0) // close with a reset
		c.Close()
		st.ops.Add(1)
	}
}

func soakSlowloris(addr string, stop <-chan struct{}, st *soakStats) {
	c, r, err := soakDial(addr)
	if err != nil {
		st.errs.Add(1)
		return
	}
	defer c.Close()
	cmd := encode("PING")
	for !stopped(stop) {
		c.SetDeadline(time.Now().Add(time.Minute))
		for i := range len(cmd) {
			if _, err := c.Write([]byte{cmd[i]}); err != nil {
				st.errs.Add(1)
				return
			}
			time.Sleep(10 * time.Millisecond) // trickling, the point of this client
		}
		if line, err := r.ReadString('\n'); line != "+PONG\r\n" {
			st.bad("PING a byte at a time: %q, %v", line, err)
			return
		}
		st.ops.Add(1)
	}
}

func soakNonReader(addr string, stop <-chan struct{}, st *soakStats) {
	c, _, err := soakDial(addr)
	if err != nil {
		st.errs.Add(1)
		return
	}
	batch := strings.Repeat(encode("GET", "big"), 200)
	c.SetWriteDeadline(time.Now().Add(time.Second))
	n, _ := io.WriteString(c, batch) // until the server stops reading
	st.ops.Add(int64(n / len(encode("GET", "big"))))
	<-stop
	c.Close()
}

func soakFlood(addr string, stop <-chan struct{}, st *soakStats) {
	c, r, err := soakDial(addr)
	if err != nil {
		st.errs.Add(1)
		return
	}
	defer c.Close()
	batch := strings.Repeat(encode("PING"), 100)
	for !stopped(stop) {
		c.SetDeadline(time.Now().Add(time.Minute))
		go io.WriteString(c, batch)
		for range 100 {
			if line, err := r.ReadString('\n'); line != "+PONG\r\n" {
				st.bad("a flood's PING: %q, %v", line, err)
				return
			}
		}
		st.ops.Add(100)
	}
}
