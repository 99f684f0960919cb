package serve

import (
	"errors"
	"net"
	"sync"
)

// Net serves on addr ("host:port", TCP) with the net package: an accept
// goroutine and a goroutine per connection, each with the session
// newSession returns, reading, handing the session what it read, and
// writing its output with one write. The examples' ServeNet call it.
func Net(addr string, newSession func() Session) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &netServer{ln: ln, newSession: newSession, conns: make(map[net.Conn]struct{})}
	s.wg.Add(1)
	go s.acceptLoop()
	return &Server{addr: ln.Addr(), stop: s.close}, nil
}

// netServer is Net's state. mu guards conns and closing; wg counts the
// accept goroutine and the connection goroutines.
type netServer struct {
	ln         net.Listener
	newSession func() Session
	acceptErr  error // written by the accept goroutine, read after wg.Wait

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
	wg      sync.WaitGroup
}

// acceptLoop is the accept goroutine.
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

// serve runs one connection, on its own goroutine, until the client closes
// it, an I/O error, or the session is closing (its last output written).
func (s *netServer) serve(conn net.Conn) {
	defer func() {
		s.mu.Lock()
		delete(s.conns, conn)
		s.mu.Unlock()
		conn.Close()
		s.wg.Done()
	}()
	ss := s.newSession()
	// Ends at EOF, an error, or when the session is closing.
	for !ss.Closing() {
		n, err := conn.Read(ss.ReadBuf())
		if n > 0 {
			ss.Received(n)
			w, werr := conn.Write(ss.Pending())
			ss.Wrote(w)
			if werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// close is Server.Close's work: it closes the listener and every
// connection, then waits for the goroutines.
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
