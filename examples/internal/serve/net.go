package serve

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// Net serves on addr ("host:port", TCP) with the net package: an accept
// goroutine and a goroutine per connection, each with the session
// newSession returns, reading, handing the session what it read, and
// writing its output with one write. name prefixes the server's log lines.
// The examples' ServeNet call it. Accept errors are treated as by
// [Kernel]: a temporary one pauses accepting, any other stops it.
func Net(addr, name string, newSession func() Session, opts ...Option) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &netServer{ln: ln, name: name, cfg: newConfig(opts), newSession: newSession,
		conns: make(map[net.Conn]struct{}), closed: make(chan struct{})}
	s.wg.Add(1)
	go s.acceptLoop()
	return &Server{addr: ln.Addr(), stop: s.close}, nil
}

// netServer is Net's state. mu guards conns and closing; wg counts the
// accept goroutine and the connection goroutines.
type netServer struct {
	ln         net.Listener
	name       string
	cfg        config
	newSession func() Session
	acceptErr  error         // written by the accept goroutine, read after wg.Wait
	closed     chan struct{} // closed by close: ends a back-off

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	closing bool
	wg      sync.WaitGroup
}

// acceptLoop is the accept goroutine.
func (s *netServer) acceptLoop() {
	defer s.wg.Done()
	// Ends when Accept fails: after close, or on an error that stops the
	// server. A temporary error pauses it.
	var bo backoff
	for {
		conn, err := s.ln.Accept()
		if err != nil && temporary(err) {
			t := time.NewTimer(bo.failed(s.name, s.cfg.logf, err))
			select {
			case <-t.C:
				continue
			case <-s.closed:
				t.Stop()
				return
			}
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				s.cfg.logf("%s: accepting stopped: %v", s.name, err)
				s.acceptErr = err
			}
			return
		}
		bo.succeeded(s.name, s.cfg.logf)
		s.mu.Lock()
		if s.closing {
			s.mu.Unlock()
			conn.Close()
			return
		}
		if s.cfg.maxConns > 0 && len(s.conns) >= s.cfg.maxConns {
			s.wg.Add(1)
			s.mu.Unlock()
			go s.refuse(conn)
			continue
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go s.serve(conn)
	}
}

// refuse sends the refusal to a connection over the limit, for at most a
// second, and closes it.
func (s *netServer) refuse(conn net.Conn) {
	defer s.wg.Done()
	if len(s.cfg.refusal) > 0 {
		conn.SetWriteDeadline(time.Now().Add(time.Second))
		conn.Write(s.cfg.refusal)
	}
	conn.Close()
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
	defer func() {
		if ss.Closing() {
			// Linger, as the kernel server does.
			if tc, ok := conn.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			conn.SetReadDeadline(time.Now().Add(lingerTime))
			io.CopyN(io.Discard, conn, lingerBytes)
		}
	}()
	// Ends at EOF, an error, or when the session is closing.
	for !ss.Closing() {
		n, err := conn.Read(ss.ReadBuf())
		if n > 0 {
			ss.Received(n)
			// Until nothing is pending: Wrote may let commands that
			// waited for their replies to be read run.
			for out := ss.Pending(); len(out) > 0; out = ss.Pending() {
				w, werr := conn.Write(out)
				ss.Wrote(w)
				if werr != nil {
					return
				}
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
	close(s.closed)
	s.ln.Close()
	for conn := range s.conns {
		conn.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return s.acceptErr
}
