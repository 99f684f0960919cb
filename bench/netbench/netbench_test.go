package netbench

import "testing"

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

// The kernel server's tasks all come to wait on the poller once their
// connections are idle, which is what IdleConns waits for.
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
