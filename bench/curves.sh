#!/usr/bin/env bash
# curves.sh: measures the scaling curves of docs/BENCHMARKS.md and draws
# their plots into docs/plots.
#
#	bench/curves.sh [rounds]
#
# It installs redis-server with apt-get if it is missing (the idle curves
# compare with it), builds the test binaries of bench/netbench and
# bench/compare, and runs every curve rounds times (default 6), one round of
# every curve after another, so that a machine whose speed drifts affects
# all implementations alike. Raw results go to $OUT (default
# bench/curves-out, not committed): net.txt (Echo, RESP), idle.txt
# (IdleConnMemory, IdleConnCPU) and depth.txt (SpawnDepth). Then
# cmd/plot draws one SVG per curve into docs/plots, and benchstat prints
# the tables. Run it on a quiet machine: the numbers are only as good as
# that.
set -euo pipefail
cd "$(dirname "$0")"

rounds=${1:-6}
mkdir -p "${OUT:-curves-out}" ../docs/plots
out=$(cd "${OUT:-curves-out}" && pwd)

if ! command -v redis-server >/dev/null; then
	echo "== installing redis-server"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo=sudo
	fi
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
fi

echo "== building the test binaries"
go test -c -o "$out/netbench.test" ./netbench
go test -c -o "$out/compare.test" ./compare

: >"$out/net.txt"
: >"$out/idle.txt"
: >"$out/depth.txt"
for i in $(seq "$rounds"); do
	echo "== round $i of $rounds"
	(cd netbench && "$out/netbench.test" -test.run '^$' -test.bench '^Benchmark(Echo|RESP)$' -test.count 1 -test.benchtime 1s) >>"$out/net.txt"
	(cd netbench && "$out/netbench.test" -test.run '^$' -test.bench '^BenchmarkIdleConn(Memory|CPU)$' -test.count 1 -test.benchtime 1x) >>"$out/idle.txt"
	(cd compare && "$out/compare.test" -test.run '^$' -test.bench '^BenchmarkSpawnDepth$' -test.count 1 -test.benchtime 1x) >>"$out/depth.txt"
done

echo "== plots"
plot() { go run ./cmd/plot "$@"; }
plot -bench Echo -x conns -unit rps -logx -title "Echo: round trips per second" -o ../docs/plots/echo-rps.svg "$out/net.txt"
plot -bench Echo -x conns -unit p99-ns -logx -logy -title "Echo: p99 round trip (ns)" -o ../docs/plots/echo-p99.svg "$out/net.txt"
plot -bench RESP -x conns -unit rps -logx -title "RESP PING: round trips per second" -o ../docs/plots/resp-rps.svg "$out/net.txt"
plot -bench RESP -x conns -unit p99-ns -logx -logy -title "RESP PING: p99 round trip (ns)" -o ../docs/plots/resp-p99.svg "$out/net.txt"
plot -bench IdleConnMemory -x conns -unit B/conn -logx -title "Memory per idle connection (server RSS)" -o ../docs/plots/idle-conn-memory.svg "$out/idle.txt"
plot -bench IdleConnCPU -x conns -unit cpu-ms/idle-s -title "Server CPU per idle second" -o ../docs/plots/idle-conn-cpu.svg "$out/idle.txt"
plot -bench SpawnDepth -x tasks -unit ns/task -logx -logy -title "Spawn and run, tasks queued at once" -o ../docs/plots/spawn-depth-ns.svg "$out/depth.txt"
plot -bench SpawnDepth -x tasks -unit B/task -logx -title "Memory per queued task" -o ../docs/plots/spawn-depth-bytes.svg "$out/depth.txt"

echo "== tables"
for f in net idle depth; do
	go tool benchstat -col /impl "$out/$f.txt"
done
