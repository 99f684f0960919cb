package echo

import (
	"errors"
	"net"
	"sync"
)

// bufSize is the buffer of a connection: the most one read takes.
const bufSize = 16 << 10

// Server is a running echo server, made by [ServeKernel] or [ServeNet].
type Server struct {
	addr net.Addr
	stop func() error
	once sync.Once
	err  error
}

// Addr returns the address the server listens on: with port 0 in the
// address given to Serve*, the port the system chose.
func (s *Server) Addr() net.Addr { return s.addr }

// Close stops accepting, closes every connection, and returns when every
// handler has returned. It returns the error that stopped the accept loop
// early, if one did. Calling it again returns the same error. A server on a
// kernel must be closed before the kernel shuts down: its handlers are
// tasks, and Close waits for them.
func (s *Server) Close() error {
	s.once.Do(func() { s.err = s.stop() })
	return s.err
}

// ServeNet serves echo on addr ("host:port", TCP) with the net package: an
// accept goroutine and a goroutine per connection.
func ServeNet(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &netServer{ln: ln, conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.acceptLoop()
	return &Server{addr: ln.Addr(), stop: s.close}, nil
}

// netServer is ServeNet's state. mu guards conns and closing; wg counts the
// accept goroutine and the connection goroutines.
type netServer struct {
	ln        net.Listener
	acceptErr error // written by the accept goroutine, read after wg.Wait

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
	wg      sync.WaitGroup
}

func (s *netServer) acceptLoop() {
	defer s.wg.Done()
	// Ends when Accept fails: after close, or on an error that stops the
	// server.
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.acceptErr = err
			}
			return
		}
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			conn.Close()
			return
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(conn)
	}
}

// serve echoes one connection until the client closes it or an error.
func (s *netServer) serve(conn net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
		s.wg.Done()
	}()
	buf := make([]byte, bufSize)
	// Ends at EOF or an error.
	for {
		n, err := conn.Read(buf)
		if n > 0 {
			if _, werr := conn.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (s *netServer) close() error {
	s.mu.Lock()
	s.closing = true
	s.ln.Close()
	for conn := range s.conns {
		conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return s.acceptErr
}
