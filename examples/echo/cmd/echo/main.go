// Command echo serves TCP echo on the vsched kernel or on the net package,
// until interrupted:
//
//	go run ./examples/echo/cmd/echo -addr 127.0.0.1:7007 -impl kernel
package main

import (
	"github.com/vsched/vsched/examples/echo"
	"github.com/vsched/vsched/examples/internal/serve"
)

func main() {
	serve.Main("echo", "127.0.0.1:7007", echo.ServeKernel, echo.ServeNet,
		func(maxClients int, logf func(string, ...any)) []echo.Option {
			return []echo.Option{echo.WithMaxConns(maxClients), echo.WithLogf(logf)}
		})
}
