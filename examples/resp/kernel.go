package resp

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// readsPerRun bounds the reads one run of a connection task makes before
// it yields, so that a client that never stops sending cannot keep its P
// from the other tasks (a task is never preempted).
const readsPerRun = 16

// acceptsPerRun bounds the connections one run of the accept task takes
// before it yields, for the same reason.
const acceptsPerRun = 64

// ServeKernel serves RESP on addr ("host:port", TCP) with tasks on k and
// its netpoll.Poller: one accept task, and one task per connection. A task
// cannot block, so each is a continuation: it does I/O until the socket
// would block, asks to wait (Ctx.WaitRead or Ctx.WaitWrite) and returns;
// the kernel runs the same function again when the socket is ready. The
// connection's state (its session: unparsed input, unwritten replies) lives
// in the closure.
func ServeKernel(k *kernel.Kernel, addr string) (*Server, error) {
	p, err := k.Poller()
	if err != nil {
		return nil, err
	}
	ln, err := netpoll.Listen(p, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &kernelServer{ln: ln, lnOpen: true, store: NewStore(), conns: make(map[*netpoll.Conn]struct{})}
	s.wg.Add(1)
	if err := k.Go(s.accept); err != nil {
		ln.Close()
		return nil, fmt.Errorf("resp: starting the accept task: %w", err)
	}
	return &Server{addr: ln.Addr(), store: s.store, stop: s.close}, nil
}

// kernelServer is ServeKernel's state.
//
// Every socket is closed by its own task, never by Close: Close sets
// closing, then expires the deadlines of every open socket, which ends any
// wait with an error; a task that is running sees closing at its next run.
// mu orders the two, so no deadline is set on a socket already closed.
type kernelServer struct {
	ln        *netpoll.Listener
	store     *Store
	closing   atomic.Bool
	acceptErr error // written by the accept task, read after wg.Wait

	mu     sync.Mutex
	lnOpen bool
	conns  map[*netpoll.Conn]struct{}
	wg     sync.WaitGroup // the accept task and every connection task
}

// accept is the accept task: it accepts until the listener would block,
// spawning a connection task for each connection, then waits to be ready.
func (s *kernelServer) accept(c *kernel.Ctx) {
	if err := c.WaitErr(); err != nil || s.closing.Load() {
		s.stopAccepting(nil)
		return
	}
	for range acceptsPerRun {
		conn, err := s.ln.Accept()
		if errors.Is(err, netpoll.ErrWouldBlock) {
			if err := c.WaitRead(s.ln.Desc()); err != nil {
				s.stopAccepting(err)
			}
			return
		}
		if err != nil {
			s.stopAccepting(err)
			return
		}
		s.mu.Lock()
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		c.Go(s.serve(conn))
	}
	c.Yield()
}

func (s *kernelServer) stopAccepting(err error) {
	s.acceptErr = err
	s.mu.Lock()
	s.lnOpen = false
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Done()
}

// serve returns the task of one connection. Each run writes what is still
// pending, then reads and runs commands until the socket would block, the
// client closes it, or readsPerRun reads; it reads nothing more while
// replies are pending, so a client that does not read its replies is
// throttled by its own socket buffer.
func (s *kernelServer) serve(conn *netpoll.Conn) func(*kernel.Ctx) {
	ss := newSession(s.store)
	return func(c *kernel.Ctx) {
		if err := c.WaitErr(); err != nil || s.closing.Load() {
			s.drop(conn)
			return
		}
		for range readsPerRun {
			if out := ss.pending(); len(out) > 0 {
				n, err := conn.Write(out)
				ss.wrote(n)
				if errors.Is(err, netpoll.ErrWouldBlock) {
					if err := c.WaitWrite(conn.Desc()); err != nil {
						s.drop(conn) // a misuse: another task waits on conn
					}
					return
				}
				if err != nil {
					s.drop(conn)
					return
				}
			}
			if ss.closing {
				s.drop(conn) // a protocol error, and its reply is written
				return
			}
			n, err := conn.Read(ss.readBuf())
			if n > 0 {
				ss.received(n)
				continue // write the replies, then read the error again
			}
			if errors.Is(err, netpoll.ErrWouldBlock) {
				if err := c.WaitRead(conn.Desc()); err != nil {
					s.drop(conn)
				}
				return
			}
			s.drop(conn) // io.EOF, or the connection failed
			return
		}
		c.Yield()
	}
}

// drop closes conn, from its own task.
func (s *kernelServer) drop(conn *netpoll.Conn) {
	s.mu.Lock()
	delete(s.conns, conn)
	s.mu.Unlock()
	conn.Close()
	s.wg.Done()
}

func (s *kernelServer) close() error {
	s.closing.Store(true)
	past := time.Unix(1, 0)
	s.mu.Lock()
	if s.lnOpen {
		s.ln.Desc().SetDeadline(past)
	}
	for conn := range s.conns {
		conn.Desc().SetDeadline(past)
	}
	s.mu.Unlock()
	s.wg.Wait()
	return s.acceptErr
}
