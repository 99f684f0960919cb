// Package netbench benchmarks serving TCP on the kernel with its netpoll
// against the net package with a goroutine per connection, using the
// servers of examples/echo and examples/resp, and Redis for the idle
// curves.
//
// Every benchmark is Benchmark<Workload>/.../impl=<name>, so that
//
//	cd bench
//	go test -run '^$' -bench . -count 6 ./netbench > net.txt
//	go tool benchstat -col /impl net.txt
//
// puts the implementations in columns (benchstat is a tool of the bench
// module, in its go.mod). Most benchmarks are curves, one point per size
// (conns=N). A smoke run of every benchmark once, each curve at its
// first point only, is
//
//	go test -short -run '^$' -bench . -benchtime=1x ./netbench
//
// and go test ./netbench checks the load generator against both servers,
// and the server processes, at a small size. No test asserts a timing.
//
// # Implementations
//
//   - kernel: examples/echo.ServeKernel on a kernel with its default number
//     of Ps (GOMAXPROCS): an accept task and a task per connection, waiting
//     on the kernel's netpoll.Poller.
//   - net: examples/echo.ServeNet: a goroutine per connection on the Go
//     runtime's netpoller.
//   - redis (the idle curves only): redis-server, no persistence, if it is
//     installed (bench/curves.sh installs it); skipped otherwise.
//
// Echo, EchoProcess, RESP and SetReadDeadline start their server in this
// process on 127.0.0.1:0; the idle curves start it in a process of its own
// (a copy of this test binary, ServerProcessMain, or redis-server), so
// that its memory and CPU time are the server's alone. Every server is
// closed (and its kernel shut down) at the end of the run.
//
// # Workloads
//
//  1. Echo/conns=N, N = 1, 10, 50, 500, 5,000: N client connections (net package, a goroutine each)
//     each send a 64-byte message and wait for its echo, over and over; b.N
//     is the number of round trips, shared out among the connections as they
//     go. ns/op is wall time per round trip over all connections, so it is
//     the inverse of throughput; rps is round trips per second; p50-ns and
//     p99-ns are the round-trip latencies seen by one client (nearest
//     rank); cpu-ns/op is the process's CPU time (client, server and kernel
//     together: getrusage(RUSAGE_SELF)) per round trip. Every echo is
//     checked. Connections are dialled, and make one round trip each,
//     before the timer starts.
//  2. EchoProcess/conns=N, N = 1, 50, 500: Echo with the clients in a second process, a
//     copy of the test binary started by the benchmark (TestMain turns it
//     into a client when VSCHED_NETBENCH_CLIENT is set), as with a load
//     generator of its own: the server's process runs only the server.
//     rps, p50-ns and p99-ns are as the client process measured them;
//     srv-cpu-ns/op and cli-cpu-ns/op are each process's CPU time per round
//     trip. The two processes share the machine's CPUs.
//  3. RESP/conns=N: Echo with the RESP server answering PING (a 14-byte
//     request, a 7-byte reply).
//  4. IdleConnMemory/conns=N, N = 1,000, 10,000, 50,000: N connections to
//     the RESP server each make one round trip (PING) and stay open and
//     silent. B/conn is the growth of the server process's resident set
//     (VmRSS) from before the first connection, divided by N; heap-B/conn
//     the same of its Go heap and stacks in use. The Go servers collect
//     their garbage and return free memory to the system before each
//     reading; Redis is read once its resident set has settled (its idle
//     clients' query buffers are freed after 2 s). Connection i dials from 127.0.0.1 +
//     i/20,000, so that the ephemeral ports do not run out, and the
//     benchmark raises the descriptor limit of both processes, or skips a
//     size the system does not allow.
//  5. IdleConnCPU/conns=N, N = 0, 10,000, 50,000: the server process's CPU
//     time (its threads' run time, from /proc/<pid>/task/*/schedstat) per
//     second while N connections stay open and silent, cpu-ms/idle-s. On
//     the kernel the measurement starts once every connection's task and
//     the accept task wait on the poller and every P is idle. Each run
//     idles for a second (a tenth under -short).
//  6. SetReadDeadline/conns=50: what a server pays to move a connection's
//     idle timeout before each wait: 50 server-side connections hold a
//     read deadline 30 s ahead, and RunParallel's goroutines (GOMAXPROCS
//     of them) move their own share of them again and again.
//     netpoll.Desc.SetReadDeadline on the kernel's Poller against
//     net.Conn.SetReadDeadline; no I/O, ns/op per deadline moved.
//
// In Echo the load generator and the server share the process and its
// CPUs, as in tokio's and gnet's in-process echo benchmarks; on a machine
// with few CPUs the client's goroutines and the kernel's Ms compete for
// the same Go Ps. EchoProcess takes that competition away, and leaves the
// one for the CPUs themselves.
//
// -count n runs each implementation n times in a row, so a machine whose
// speed drifts favours one of them; on a noisy machine, run -count 1 in a
// loop instead and give benchstat every round:
//
//	go test -c -o /tmp/netbench.test ./netbench
//	cd netbench && for i in $(seq 10); do
//		/tmp/netbench.test -test.run '^$' -test.bench 'Echo(Process)?/conns=50$' -test.count 1
//	done > ../echo.txt
package netbench
