package serve

import (
	"net"
	"sync"
)

// Session is the protocol state of one connection: the bytes read and not
// yet used, and the output not yet written. [Kernel] and [Net] make one per
// connection, and only that connection's handler calls its methods.
//
// The handler reads into ReadBuf, reports the bytes with Received, writes
// Pending and reports what went with Wrote. It reads nothing more while
// output is pending, so a session need not buffer more than one read's
// output; and a session may hold back work of a read until its output has
// been written: Wrote may make more output, which the handler writes
// before it reads again.
type Session interface {
	// ReadBuf returns where the next read goes; it is not empty.
	ReadBuf() []byte
	// Received takes the n bytes just read into ReadBuf.
	Received(n int)
	// Pending returns the output not written yet.
	Pending() []byte
	// Wrote records that the first n bytes of Pending were written; once
	// all was written, Pending may have more.
	Wrote(n int)
	// Closing reports that the connection is to be closed once Pending is
	// written (a protocol error, whose reply is the last output).
	Closing() bool
}

// An Idler is a [Session] that can give its buffers back while its
// connection waits for input with no output pending, and take them again
// at the next ReadBuf. [Kernel] calls Idle before each such wait, so that
// an idle connection costs its task, its descriptor and its protocol
// state, not a read buffer. [Net] never calls it: its goroutine waits
// inside Read, in the buffer.
type Idler interface {
	Idle()
}

// Server is a running server, made by [Kernel] or [Net].
type Server struct {
	addr net.Addr
	stop func() error
	once sync.Once
	err  error
}

// Addr returns the address the server listens on: with port 0 in the
// address given to [Kernel] or [Net], the port the system chose.
func (s *Server) Addr() net.Addr { return s.addr }

// Close stops accepting, closes every connection, and returns when every
// handler has returned. It returns the error that stopped the accept loop
// early, if one did. Calling it again returns the same error. A server on a
// kernel must be closed before the kernel shuts down: its handlers are
// tasks, and Close waits for them. Any goroutine may call it.
func (s *Server) Close() error {
	s.once.Do(func() { s.err = s.stop() })
	return s.err
}
