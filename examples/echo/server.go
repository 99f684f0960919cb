package echo

import (
	"net"
	"sync"

	"github.com/vsched/vsched/examples/internal/serve"
)

// bufSize is the buffer of a connection: the most one read takes.
const bufSize = 16 << 10

// Server is a running echo server, made by [ServeKernel] or [ServeNet].
type Server struct {
	srv *serve.Server
}

// Addr returns the address the server listens on: with port 0 in the
// address given to Serve*, the port the system chose.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Close stops accepting, closes every connection, and returns when every
// handler has returned. It returns the error that stopped the accept loop
// early, if one did. Calling it again returns the same error. A server on a
// kernel must be closed before the kernel shuts down: its handlers are
// tasks, and Close waits for them.
func (s *Server) Close() error { return s.srv.Close() }

// ServeNet serves echo on addr ("host:port", TCP) with the net package: an
// accept goroutine and a goroutine per connection.
func ServeNet(addr string, opts ...Option) (*Server, error) {
	srv, err := serve.Net(addr, "echo", newSession, opts...)
	if err != nil {
		return nil, err
	}
	return &Server{srv: srv}, nil
}

// A session is the echo protocol of one connection, for serve: what it
// read is its output. The server reads nothing more while output is
// pending, so the output is always a tail of the one buffer. On the kernel
// an idle session holds no buffer (serve.Idler): it takes one from bufs
// for a read and gives it back once it waits for input again.
type session struct {
	buf []byte // nil while idle
	out []byte // read, not yet written back: a tail of buf
}

// bufs are the read buffers of the sessions that are not idle.
var bufs = sync.Pool{New: func() any { return new([bufSize]byte) }}

func newSession() serve.Session { return &session{} }

func (s *session) ReadBuf() []byte {
	if s.buf == nil {
		s.buf = bufs.Get().(*[bufSize]byte)[:]
	}
	return s.buf
}

// Idle gives the buffer back; the server calls it only with no output
// pending.
func (s *session) Idle() {
	if s.buf != nil && len(s.out) == 0 {
		bufs.Put((*[bufSize]byte)(s.buf))
		s.buf, s.out = nil, nil
	}
}

func (s *session) Received(n int)  { s.out = s.buf[:n] }
func (s *session) Pending() []byte { return s.out }
func (s *session) Wrote(n int)     { s.out = s.out[n:] }
func (s *session) Closing() bool   { return false }

// An Option configures a server made by [ServeKernel] or [ServeNet].
type Option = serve.Option

// WithMaxConns sets the most connections served at once; n <= 0 means no
// limit, the default. A connection over the limit is closed at once. The
// command (cmd/echo) sets it from -maxclients.
func WithMaxConns(n int) Option { return serve.WithMaxConns(n) }

// WithLogf sets the server's logger, which hears what stops or pauses its
// accepting; the default is log.Printf.
func WithLogf(logf func(format string, args ...any)) Option { return serve.WithLogf(logf) }
