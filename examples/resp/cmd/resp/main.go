// Command resp serves the Redis protocol (PING, ECHO, SET, GET, DEL) on
// the vsched kernel or on the net package, until interrupted:
//
//	go run ./examples/resp/cmd/resp -addr 127.0.0.1:6380 -impl kernel
//	redis-benchmark -p 6380 -t ping,set,get -q
package main

import (
	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/examples/resp"
)

func main() {
	serve.Main("resp", "127.0.0.1:6380", resp.ServeKernel, resp.ServeNet)
}
