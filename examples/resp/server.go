package resp

import (
	"net"

	"github.com/vsched/vsched/examples/internal/serve"
)

// Server is a running RESP server, made by [ServeKernel] or [ServeNet].
type Server struct {
	srv   *serve.Server
	store *Store
}

// Addr returns the address the server listens on: with port 0 in the
// address given to Serve*, the port the system chose.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Store returns the server's keyspace.
func (s *Server) Store() *Store { return s.store }

// Close stops accepting, closes every connection, and returns when every
// handler has returned. It returns the error that stopped the accept loop
// early, if one did. Calling it again returns the same error. A server on a
// kernel must be closed before the kernel shuts down: its handlers are
// tasks, and Close waits for them.
func (s *Server) Close() error { return s.srv.Close() }

// ServeNet serves RESP on addr ("host:port", TCP) with the net package: an
// accept goroutine and a goroutine per connection, each reading, running
// the commands of what it read, and writing their replies with one write.
func ServeNet(addr string) (*Server, error) {
	store := NewStore()
	srv, err := serve.Net(addr, func() serve.Session { return newSession(store) })
	if err != nil {
		return nil, err
	}
	return &Server{srv: srv, store: store}, nil
}
