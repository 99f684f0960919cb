package serve

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

// Kernel serves on addr ("host:port", TCP) with tasks on k and its
// netpoll.Poller: one accept task, and one task per connection, each with
// the session newSession returns. name prefixes the server's log lines and
// the error of starting the accept task ("echo: starting the accept task:
// ..."). The examples' ServeKernel call it; close the server before k
// shuts down.
//
// An accept that fails for want of a resource (descriptors, above all) is
// logged, and the accept task waits 5 ms, doubling up to 1 s, before it
// tries again: clients wait in the listen backlog meanwhile, and are
// served once descriptors free up. Any other accept error stops the server
// accepting; it is logged at once, and Close returns it.
func Kernel(k *kernel.Kernel, addr, name string, newSession func() Session, opts ...Option) (*Server, error) {
	p, err := k.Poller()
	if err != nil {
		return nil, err
	}
	ln, err := netpoll.Listen(p, "tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &kernelServer{ln: ln, lnOpen: true, name: name, cfg: newConfig(opts), newSession: newSession, conns: make(map[*netpoll.Conn]struct{})}
	s.wg.Add(1)
	if err := k.Go(s.accept); err != nil {
		ln.Close()
		return nil, fmt.Errorf("%s: starting the accept task: %w", name, err)
	}
	return &Server{addr: ln.Addr(), stop: s.close}, nil
}

// kernelServer is Kernel's state.
//
// Every socket is closed by its own task, never by Close: Close sets
// closing, then expires the deadlines of every open socket, which ends any
// wait with an error; a task that is running sees closing at its next run.
// mu orders the two, so no deadline is set on a socket already closed.
type kernelServer struct {
	ln         *netpoll.Listener
	name       string
	cfg        config
	newSession func() Session
	closing    atomic.Bool
	acceptErr  error   // written by the accept task, read after wg.Wait
	bo         backoff // the accept task's

	mu     sync.Mutex
	lnOpen bool
	conns  map[*netpoll.Conn]struct{}
	wg     sync.WaitGroup // the accept task and every connection task
}

// accept is the accept task: it accepts until the listener would block,
// spawning a connection task for each connection, then waits to be ready.
// After an accept failed for want of a resource it waits for the back-off
// instead: a read deadline on the listener, which a new connection may end
// early.
func (s *kernelServer) accept(c *kernel.Ctx) {
	err := c.WaitErr()
	if s.closing.Load() {
		s.stopAccepting(nil)
		return
	}
	if err != nil && !(s.bo.delay > 0 && errors.Is(err, netpoll.ErrDeadlineExceeded)) {
		s.cfg.logf("%s: accepting stopped: %v", s.name, err)
		s.stopAccepting(err)
		return
	}
	if s.bo.delay > 0 && !s.setReadDeadline(s.ln.Desc(), time.Time{}) {
		s.stopAccepting(nil)
		return
	}
	for range acceptsPerRun {
		conn, err := s.ln.Accept()
		switch {
		case errors.Is(err, netpoll.ErrWouldBlock):
			if err := c.WaitRead(s.ln.Desc()); err != nil {
				s.stopAccepting(err)
			}
			return
		case temporary(err):
			d := s.bo.failed(s.name, s.cfg.logf, err)
			if !s.setReadDeadline(s.ln.Desc(), time.Now().Add(d)) {
				s.stopAccepting(nil)
				return
			}
			if err := c.WaitRead(s.ln.Desc()); err != nil {
				s.stopAccepting(err)
			}
			return
		case err != nil:
			s.cfg.logf("%s: accepting stopped: %v", s.name, err)
			s.stopAccepting(err)
			return
		}
		s.bo.succeeded(s.name, s.cfg.logf)
		s.mu.Lock()
		if s.cfg.maxConns > 0 && len(s.conns) >= s.cfg.maxConns {
			s.mu.Unlock()
			refuse(conn, s.cfg.refusal)
			continue
		}
		s.conns[conn] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		c.Go((&connTask{s: s, conn: conn, ss: s.newSession()}).run)
	}
	c.Yield()
}

// setReadDeadline sets d's read deadline to t (the zero time clears it)
// and reports true, or reports false if the server is closing: under mu,
// so that it never undoes the expired deadline Close sets. The accept task
// waits out a back-off this way, and a lingering connection its linger.
func (s *kernelServer) setReadDeadline(d *netpoll.Desc, t time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	d.SetReadDeadline(t)
	return true
}

// refuse sends msg to a connection over the limit, as far as its socket
// buffer takes it at once, and closes it.
func refuse(conn *netpoll.Conn, msg []byte) {
	if len(msg) > 0 {
		conn.Write(msg)
	}
	conn.Close()
}

// stopAccepting closes the listener and records err, from the accept task.
func (s *kernelServer) stopAccepting(err error) {
	s.acceptErr = err
	s.mu.Lock()
	s.lnOpen = false
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Done()
}

// A connTask is the task of one connection, its function run. It is what
// an idle connection costs the server beyond its socket, so it is small:
// the state of a lingering connection is made when it starts to linger.
type connTask struct {
	s    *kernelServer
	conn *netpoll.Conn
	ss   Session
	lg   *lingering // nil until the connection lingers
}

// lingering is a lingering connection's state: where its input is
// discarded, and how much was.
type lingering struct {
	buf       []byte
	discarded int
}

// run is one run of the connection's task. It first writes what is
// still pending, then reads and hands the session what it read until the
// socket is drained, the client closes it, the session is closing, or
// readsPerRun reads. It reads nothing more while output is pending, so a
// client that does not read is throttled by its own socket buffer.
//
// A read shorter than the buffer drained the socket, unless the peer's FIN
// an error or urgent data stopped it (netpoll.Desc.Exceptional tells). So after writing
// what such a read produced, the task waits for readability at once,
// without the read that would only return ErrWouldBlock (the net
// package's read loop makes it; on a request-response connection it is
// one system call in three). No data is missed: the descriptor is
// registered edge-triggered, so bytes that arrive after the short read
// raise a new edge, and the wait slot latches an edge that comes before
// the wait commits (nginx clears its read readiness on a short read the
// same way).
func (t *connTask) run(c *kernel.Ctx) {
	s, conn, ss := t.s, t.conn, t.ss
	if err := c.WaitErr(); err != nil || s.closing.Load() {
		s.drop(conn) // for a lingering connection, the linger time ran out
		return
	}
	if t.lg != nil {
		s.lingerRun(c, conn, t.lg)
		return
	}
	drained := false
	for range readsPerRun {
		if out := ss.Pending(); len(out) > 0 {
			n, err := conn.Write(out)
			ss.Wrote(n)
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
		if ss.Closing() {
			// Its last output is written: linger, so that a client
			// still sending reads it rather than a reset.
			conn.CloseWrite()
			if !s.setReadDeadline(conn.Desc(), time.Now().Add(lingerTime)) {
				s.drop(conn)
				return
			}
			t.lg = &lingering{buf: make([]byte, 4<<10)}
			s.lingerRun(c, conn, t.lg)
			return
		}
		if len(ss.Pending()) > 0 {
			continue // Wrote let waiting commands run
		}
		if drained {
			t.waitInput(c)
			return
		}
		buf := ss.ReadBuf()
		n, err := conn.Read(buf)
		if n > 0 {
			ss.Received(n)
			drained = n < len(buf) && err == nil && !conn.Desc().Exceptional()
			continue // write the output, then see the error again
		}
		if errors.Is(err, netpoll.ErrWouldBlock) {
			t.waitInput(c)
			return
		}
		s.drop(conn) // io.EOF, or the connection failed
		return
	}
	c.Yield()
}

// waitInput asks for the task to wait for the connection's input, with
// nothing to write, and lets the session give its buffers back meanwhile
// (Idler).
func (t *connTask) waitInput(c *kernel.Ctx) {
	if i, ok := t.ss.(Idler); ok {
		i.Idle()
	}
	if err := c.WaitRead(t.conn.Desc()); err != nil {
		t.s.drop(t.conn)
	}
}

// lingerRun discards what a lingering connection sends until it closes,
// errs, has sent lingerBytes or the linger deadline ends the wait, then
// drops it.
func (s *kernelServer) lingerRun(c *kernel.Ctx, conn *netpoll.Conn, lg *lingering) {
	for range readsPerRun {
		n, err := conn.Read(lg.buf)
		lg.discarded += n
		switch {
		case lg.discarded > lingerBytes:
			s.drop(conn)
			return
		case errors.Is(err, netpoll.ErrWouldBlock):
			if err := c.WaitRead(conn.Desc()); err != nil {
				s.drop(conn)
			}
			return
		case err != nil:
			s.drop(conn) // io.EOF: the client read the reply and closed
			return
		}
	}
	c.Yield()
}

// drop closes conn, from its own task.
func (s *kernelServer) drop(conn *netpoll.Conn) {
	s.mu.Lock()
	delete(s.conns, conn)
	s.mu.Unlock()
	conn.Close()
	s.wg.Done()
}

// close is Server.Close's work: see kernelServer.
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
