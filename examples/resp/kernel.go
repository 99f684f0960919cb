package resp

import (
	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/kernel"
)

// ServeKernel serves RESP on addr ("host:port", TCP) with tasks on k and
// its netpoll.Poller: one accept task, and one task per connection. A task
// cannot block, so each is a continuation: it does I/O until the socket
// would block, asks to wait (Ctx.WaitRead or Ctx.WaitWrite) and returns;
// the kernel runs the same function again when the socket is ready. The
// connection's state (its session: unparsed input, unwritten replies) lives
// in the closure.
func ServeKernel(k *kernel.Kernel, addr string, opts ...Option) (*Server, error) {
	store := NewStore()
	o := newOptions(opts)
	srv, err := serve.Kernel(k, addr, "resp", func() serve.Session { return newSession(store, o.out, o.proto) }, o.serve...)
	if err != nil {
		return nil, err
	}
	return &Server{srv: srv, store: store}, nil
}
