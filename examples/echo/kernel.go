package echo

import (
	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/kernel"
)

// ServeKernel serves echo on addr ("host:port", TCP) with tasks on k and
// its netpoll.Poller: one accept task, and one task per connection.
//
//	k, _ := kernel.New()
//	srv, _ := echo.ServeKernel(k, "127.0.0.1:0")
//	... // clients dial srv.Addr()
//	srv.Close()
//	k.Shutdown(ctx)
func ServeKernel(k *kernel.Kernel, addr string, opts ...Option) (*Server, error) {
	srv, err := serve.Kernel(k, addr, "echo", newSession, opts...)
	if err != nil {
		return nil, err
	}
	return &Server{srv: srv}, nil
}
