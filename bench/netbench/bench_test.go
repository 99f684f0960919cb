package netbench

import (
	"fmt"
	"testing"
	"time"
)

// The benchmark sizes.
var echoConns = []int{1, 50, 500}

const (
	idleConns  = 1000
	idleSecond = time.Second
)

// BenchmarkEcho reports, per round trip of a 64-byte echo, the wall time
// over all connections (ns/op), the throughput (rps), the latency one
// client sees (p50-ns, p99-ns) and the process's CPU time (cpu-ns/op).
func BenchmarkEcho(b *testing.B) {
	for _, conns := range echoConns {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			for _, impl := range impls {
				b.Run("impl="+impl, func(b *testing.B) { benchEcho(b, impl, conns) })
			}
		})
	}
}

func benchEcho(b *testing.B, impl string, conns int) {
	srv := startEcho(b, impl)
	cs := dialClients(b, srv.addr, conns)
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
func BenchmarkEchoProcess(b *testing.B) {
	for _, conns := range echoConns {
		b.Run(fmt.Sprintf("conns=%d", conns), func(b *testing.B) {
			for _, impl := range impls {
				b.Run("impl="+impl, func(b *testing.B) { benchEchoProcess(b, impl, conns) })
			}
		})
	}
}

// BenchmarkIdleConns reports the process's CPU time per second while
// 1,000 connections to the server stay open and silent, in ms. Each run
// idles for a second; it is skipped under -short. Its sec/op is the idle
// second and means nothing.
func BenchmarkIdleConns(b *testing.B) {
	if testing.Short() {
		b.Skip("IdleConns measures whole idle seconds")
	}
	for _, impl := range append([]string{"none"}, impls...) {
		b.Run("impl="+impl, func(b *testing.B) {
			if impl != "none" {
				srv := startEcho(b, impl)
				dialClients(b, srv.addr, idleConns)
				if srv.k != nil {
					waitParked(b, srv.k, idleConns)
				}
			}
			var cpu time.Duration
			idle := 0
			for b.Loop() {
				t0 := cpuTime()
				time.Sleep(idleSecond)
				cpu += cpuTime() - t0
				idle++
			}
			b.ReportMetric(float64(cpu)/1e6/(float64(idle)*idleSecond.Seconds()), "cpu-ms/idle-s")
		})
	}
}
