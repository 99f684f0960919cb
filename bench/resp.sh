#!/usr/bin/env bash
# resp.sh: redis-benchmark against examples/resp served on the vsched kernel
# (tasks and its netpoll) and on the net package (a goroutine per
# connection), and against a real Redis, side by side.
#
#	bench/resp.sh
#
# It installs redis-tools and redis-server with apt-get if redis-benchmark
# or redis-server is missing, builds examples/resp/cmd/resp, starts both
# servers on loopback ports the system picks and redis-server (no
# persistence) on the first free port from 16379, runs
#
#	redis-benchmark -h 127.0.0.1 -p PORT -t ping,set,get -c 50 -n 200000 -P P -q --csv
#
# against each server for every pipeline depth P (1 and 16), one server at a
# time, and prints a table of requests per second, with the kernel's over
# net's and the kernel's over Redis's as ratios. The servers are killed when it exits. The environment
# overrides the defaults: TESTS, CLIENTS, REQUESTS, PIPELINES ("1 16"), and
# PROCS (the kernel's Ps; default GOMAXPROCS).
set -euo pipefail
cd "$(dirname "$0")/.."

tests=${TESTS:-ping,set,get}
clients=${CLIENTS:-50}
requests=${REQUESTS:-200000}
pipelines=${PIPELINES:-1 16}
procs=${PROCS:-0}

if ! command -v redis-benchmark >/dev/null || ! command -v redis-server >/dev/null; then
	echo "== installing redis-tools and redis-server"
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo=sudo
	fi
	$sudo apt-get update -qq
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-tools redis-server >/dev/null
fi

tmp=$(mktemp -d)
pids=()
# cleanup stops the servers: SIGTERM (they close their connections and
# shut the kernel down), then SIGKILL for one still there after five seconds.
cleanup() {
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		for _ in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$pid" 2>/dev/null; then
			echo "resp (pid $pid) did not stop on SIGTERM; killing it" >&2
			kill -KILL "$pid" 2>/dev/null || true
		fi
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== go build ./examples/resp/cmd/resp"
go build -o "$tmp/resp" ./examples/resp/cmd/resp

# start IMPL starts the server and sets port to the port it listens on,
# read from its "listening on 127.0.0.1:PORT (IMPL)" line.
start() {
	local impl=$1 out="$tmp/$1.out"
	: >"$out" # there before the first poll reads it
	"$tmp/resp" -addr 127.0.0.1:0 -impl "$impl" -procs "$procs" >"$out" 2>&1 &
	pids+=($!)
	port=""
	# Bounded: 200 polls of 50 ms, ten seconds.
	for _ in $(seq 200); do
		port=$(sed -n 's/^listening on [^ ]*:\([0-9][0-9]*\) .*/\1/p' "$out")
		if [ -n "$port" ]; then
			return
		fi
		if ! kill -0 "${pids[-1]}" 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	echo "resp -impl $impl did not start:" >&2
	cat "$out" >&2
	exit 1
}

declare -A ports
for impl in kernel net; do
	start "$impl"
	ports[$impl]=$port
	echo "== resp -impl $impl listening on 127.0.0.1:$port"
done

# Redis on the first port from 16379 it can bind (redis-server's port 0
# means no TCP at all): no persistence, its default client limits.
for try in $(seq 0 50); do
	rport=$((16379 + try))
	: >"$tmp/redis.out"
	redis-server --bind 127.0.0.1 --port "$rport" --save "" --appendonly no --daemonize no \
		--protected-mode no >"$tmp/redis.out" 2>&1 &
	pids+=($!)
	# Bounded: 100 polls of 50 ms, five seconds.
	for _ in $(seq 100); do
		if grep -q "Ready to accept connections" "$tmp/redis.out" || ! kill -0 "${pids[-1]}" 2>/dev/null; then
			break
		fi
		sleep 0.05
	done
	if grep -q "Ready to accept connections" "$tmp/redis.out"; then
		ports[redis]=$rport
		break
	fi
done
if [ -z "${ports[redis]:-}" ]; then
	echo "redis-server did not start:" >&2
	cat "$tmp/redis.out" >&2
	exit 1
fi
echo "== $(redis-server --version | head -n1) listening on 127.0.0.1:${ports[redis]}"

echo "== redis-benchmark $(redis-benchmark --version 2>/dev/null | head -n1 || true); $(nproc) CPUs; -t $tests -c $clients -n $requests"

# results holds lines "test pipeline impl rps".
results="$tmp/results"
: >"$results"
for p in $pipelines; do
	for impl in kernel net redis; do
		echo "-- -P $p, $impl" >&2
		# --csv prints a header line ("test","rps",...) and then one line
		# per test: "PING_INLINE","123456.78",...
		redis-benchmark -h 127.0.0.1 -p "${ports[$impl]}" -t "$tests" -c "$clients" \
			-n "$requests" -P "$p" -q --csv 2>"$tmp/stderr" |
			tr -d '"' | awk -F, -v p="$p" -v impl="$impl" \
				'$1 != "test" && NF >= 2 { print $1, p, impl, $2 }' >>"$results" || {
			echo "redis-benchmark failed against $impl (-P $p):" >&2
			cat "$tmp/stderr" >&2
			exit 1
		}
	done
done

echo
awk '
	{ key = $1 " " $2; if (!(key in seen)) { seen[key] = 1; order[n++] = key }; rps[key, $3] = $4 }
	END {
		printf "%-12s %8s %14s %14s %14s %12s %14s\n", "test", "pipeline", "kernel rps", "net rps", "redis rps", "kernel/net", "kernel/redis"
		for (i = 0; i < n; i++) {
			split(order[i], f, " ")
			k = rps[order[i], "kernel"]; t = rps[order[i], "net"]; r = rps[order[i], "redis"]
			printf "%-12s %8s %14.0f %14.0f %14.0f %12.2f %14.2f\n", f[1], f[2], k, t, r, (t > 0 ? k / t : 0), (r > 0 ? k / r : 0)
		}
	}' "$results"
