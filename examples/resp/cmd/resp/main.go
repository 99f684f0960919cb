// Command resp serves the Redis protocol (PING, ECHO, SET, GET, DEL) on
// the vsched kernel or on the net package, until interrupted:
//
//	go run ./examples/resp/cmd/resp -addr 127.0.0.1:6380 -impl kernel
//	redis-benchmark -p 6380 -t ping,set,get -q
package main

import (
	"flag"

	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/examples/resp"
)

func main() {
	soft := flag.Int("output-soft-limit", resp.DefaultOutputSoftLimit,
		"bytes of pending replies above which a client's commands wait (0: no limit)")
	hard := flag.Int("output-hard-limit", resp.DefaultOutputHardLimit,
		"bytes of pending replies above which a client is closed (0: no limit)")
	bulk := flag.Int("proto-max-bulk-len", resp.MaxBulkLen, "the longest argument accepted, in bytes")
	query := flag.Int("client-query-buffer-limit", resp.MaxQueryBuffer,
		"the most bytes a connection may buffer for a command still arriving")
	serve.Main("resp", "127.0.0.1:6380", resp.ServeKernel, resp.ServeNet,
		func(maxClients int, logf func(string, ...any)) []resp.Option {
			return []resp.Option{resp.WithMaxClients(maxClients), resp.WithLogf(logf), resp.WithOutputLimits(*soft, *hard), resp.WithProtoLimits(*bulk, *query)}
		})
}
