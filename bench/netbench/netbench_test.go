package netbench

import (
	"net"
	"strings"
	"testing"
)

// At a small size: the load generator makes every round trip against both
// servers, and each echo is checked.
func TestEchoLoadMakesEveryRoundTrip(t *testing.T) {
	const conns, total = 8, 400
	for _, impl := range impls {
		t.Run("impl="+impl, func(t *testing.T) {
			srv := startEcho(t, impl)
			cs := dialClients(t, srv.addr, conns)
			lat, err := echoLoad(cs, total)
			if err != nil {
				t.Fatal(err)
			}
			if len(lat) != total {
				t.Fatalf("%d latencies, want %d", len(lat), total)
			}
		})
	}
}

// At a small size: a client process makes every round trip against both
// servers and reports its measurements.
func TestClientProcessMakesEveryRoundTrip(t *testing.T) {
	const conns, total = 8, 400
	for _, impl := range impls {
		t.Run("impl="+impl, func(t *testing.T) {
			srv := startEcho(t, impl)
			started, stopped := false, false
			r, err := runClientProcess(srv.addr.String(), conns, total, func() { started = true }, func() { stopped = started })
			if err != nil {
				t.Fatal(err)
			}
			if !stopped || r.roundTrips != total || r.elapsed <= 0 || r.p50 <= 0 || r.p99 < r.p50 {
				t.Fatalf("started and stopped in order: %v; result %+v: want %d round trips, positive times, p99 >= p50", stopped, r, total)
			}
		})
	}
}

// A client process reports a server it cannot reach as an error.
func TestClientProcessReportsAFailedDial(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	_, err = runClientProcess(addr, 1, 1, func() { t.Error("start called for a client that never dialled") }, func() {})
	if err == nil || !strings.Contains(err.Error(), "dial 1 of 1") {
		t.Fatalf("err %v, want the client process's dial error", err)
	}
}

// The kernel server's tasks all come to wait on the poller once their
// connections are idle, which is what the idle curves wait for.
func TestKernelConnectionTasksWaitOnThePollerWhenIdle(t *testing.T) {
	const conns = 20
	srv := startEcho(t, "kernel")
	dialClients(t, srv.addr, conns)
	waitParked(t, srv.k, conns)
}

func TestPercentileIsTheNearestRank(t *testing.T) {
	s := []int64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for p, want := range map[float64]int64{50: 5, 99: 10, 10: 1, 100: 10} {
		if got := percentile(s, p); got != want {
			t.Errorf("percentile %v = %d, want %d", p, got, want)
		}
	}
}

// A server process of each implementation serves RESP, settles with its
// connections open, and its memory and CPU time can be read; Redis is
// skipped where it is not installed.
func TestServerProcessServesAndSettles(t *testing.T) {
	const conns = 5
	for _, impl := range serverImpls {
		t.Run("impl="+impl, func(t *testing.T) {
			srv := startServerProcess(t, impl, respProto)
			if _, err := srv.settle(0); err != nil {
				t.Fatal(err)
			}
			dialProto(t, srv.addr, conns, respProto)
			heap, err := srv.settle(conns)
			if err != nil {
				t.Fatal(err)
			}
			if impl == "redis" != (heap == -1) || impl != "redis" && heap <= 0 {
				t.Errorf("heap %d: want -1 for Redis, positive for a Go server", heap)
			}
			if rss, err := srv.rss(); err != nil || rss <= 0 {
				t.Errorf("rss %d, %v", rss, err)
			}
			if cpu, err := srv.cpu(); err != nil || cpu <= 0 {
				t.Errorf("cpu %v, %v", cpu, err)
			}
		})
	}
}

// A server process told something it does not know answers with an error.
func TestServerProcessRejectsABadSpec(t *testing.T) {
	var out strings.Builder
	if code := ServerProcessMain("kernel gopher", strings.NewReader(""), &out); code != 2 || !strings.HasPrefix(out.String(), "error bad") {
		t.Fatalf("exit %d, output %q: want 2 and an error", code, out.String())
	}
}
