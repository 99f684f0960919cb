package netbench

import (
	"fmt"
	"testing"
	"time"
)

// The points of the curves. Under -short (the CI's smoke run of every
// benchmark) each curve runs at its first point only.
var (
	// Echo and RESP, in this process.
	loadConns = []int{1, 10, 50, 500, 5000}
	// EchoProcess.
	processConns = []int{1, 50, 500}
	// IdleConnMemory.
	memConns = []int{1000, 10000, 50000}
	// IdleConnCPU.
	idleCPUConns = []int{0, 10000, 50000}
)

// points returns the points of a curve to run.
func points(all []int) []int {
	if testing.Short() {
		return all[:1]
	}
	return all
}

// idleTime is how long IdleConnCPU measures per run: a second, a tenth of
// it under -short.
func idleTime() time.Duration {
	if testing.Short() {
		return 100 * time.Millisecond
	}
	return time.Second
}

// BenchmarkEcho reports, per round trip of a 64-byte echo, the wall time
// over all connections (ns/op), the throughput (rps), the latency one
// client sees (p50-ns, p99-ns) and the process's CPU time (cpu-ns/op).
func BenchmarkEcho(b *testing.B) { benchLoadCurve(b, echoProto) }

// BenchmarkRESP is BenchmarkEcho with the RESP server answering PING.
func BenchmarkRESP(b *testing.B) { benchLoadCurve(b, respProto) }

func benchLoadCurve(b *testing.B, p protocol) {
	curve(b, loadConns, impls, func(b *testing.B, impl string, conns int) { benchLoad(b, p, impl, conns) })
}

// curve runs bench at each point of a curve (points) for each
// implementation, as Benchmark.../conns=N/impl=<impl>.
func curve(b *testing.B, all []int, impls []string, bench func(b *testing.B, impl string, conns int)) {
	for _, conns := range points(all) {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			for _, impl := range impls {
				b.Run("impl="+impl, func(b *testing.B) { bench(b, impl, conns) })
			}
		})
	}
}

func benchLoad(b *testing.B, p protocol, impl string, conns int) {
	srv := startServer(b, impl, p)
	cs := dialProto(b, srv.addr.String(), conns, p)
	b.ResetTimer()
	cpu0 := cpuTime()
	lat, err := echoLoad(cs, b.N)
	cpu := cpuTime() - cpu0
	b.StopTimer()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rps")
	b.ReportMetric(float64(percentile(lat, 50)), "p50-ns")
	b.ReportMetric(float64(percentile(lat, 99)), "p99-ns")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkEchoProcess is BenchmarkEcho with the clients in another
// process (a copy of this test binary), as with a load generator on its
// own: the server's process runs only the server. srv-cpu-ns/op is the
// server process's CPU time per round trip, cli-cpu-ns/op the client
// process's.
func BenchmarkEchoProcess(b *testing.B) { curve(b, processConns, impls, benchEchoProcess) }

// serverImpls are the servers of the idle curves: Redis beside the two.
var serverImpls = []string{"kernel", "net", "redis"}

// BenchmarkIdleConnMemory reports what an idle connection costs a RESP
// server in its own process: B/conn is the growth of the server's
// resident set (VmRSS) from before the first connection to when all conns
// are open and idle, divided by conns; heap-B/conn the same of the Go heap
// and stacks in use (the kernel and net servers). The Go servers collect
// their garbage and return free memory to the system before each
// reading (see ServerProcessMain); Redis is read once its resident set
// has settled (serverProcess.quiesce: its idle clients' query buffers are
// freed after 2 s). Its sec/op means nothing.
func BenchmarkIdleConnMemory(b *testing.B) { curve(b, memConns, serverImpls, benchIdleMemory) }

func benchIdleMemory(b *testing.B, impl string, conns int) {
	raiseFDLimit(b, conns+1024)
	srv := startServerProcess(b, impl, respProto)
	heap0, err := srv.settle(0)
	if err != nil {
		b.Fatal(err)
	}
	rss0, err := srv.rss()
	if err != nil {
		b.Fatal(err)
	}
	dialProto(b, srv.addr, conns, respProto)
	heap1 := settled(b, srv, conns)
	rss1, err := srv.rss()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
	}
	b.ReportMetric(float64(rss1-rss0)/float64(conns), "B/conn")
	if heap0 >= 0 {
		b.ReportMetric(float64(heap1-heap0)/float64(conns), "heap-B/conn")
	}
}

// settled has the server settle with its conns idle connections (settle,
// then quiesce, but not in a -short smoke run, which need not wait for
// Redis) and returns settle's Go heap reading.
func settled(b *testing.B, srv *serverProcess, conns int) int64 {
	heap, err := srv.settle(conns)
	if err == nil && !testing.Short() {
		err = srv.quiesce()
	}
	if err != nil {
		b.Fatal(err)
	}
	return heap
}

// BenchmarkIdleConnCPU reports the CPU time a RESP server in its own
// process spends per second while conns connections stay open and idle,
// in ms (cpu-ms/idle-s: its threads' time, from /proc). On the kernel the
// measurement starts once every connection's task waits on the poller and
// every P is idle. Each run idles for idleTime. Its sec/op is the idle
// time and means nothing.
func BenchmarkIdleConnCPU(b *testing.B) { curve(b, idleCPUConns, serverImpls, benchIdleCPU) }

func benchIdleCPU(b *testing.B, impl string, conns int) {
	raiseFDLimit(b, conns+1024)
	srv := startServerProcess(b, impl, respProto)
	dialProto(b, srv.addr, conns, respProto)
	settled(b, srv, conns)
	var cpu time.Duration
	idle := 0
	for b.Loop() {
		c0, err := srv.cpu()
		if err != nil {
			b.Fatal(err)
		}
		time.Sleep(idleTime())
		c1, err := srv.cpu()
		if err != nil {
			b.Fatal(err)
		}
		cpu += c1 - c0
		idle++
	}
	b.ReportMetric(float64(cpu)/1e6/(float64(idle)*idleTime().Seconds()), "cpu-ms/idle-s")
}
