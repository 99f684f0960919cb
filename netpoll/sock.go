package netpoll

import (
	"errors"
	"net"
	"syscall"

	"github.com/vsched/vsched/internal/xsync"
)

// ErrWouldBlock is the error of a socket operation that would block: no
// connection pending ([Listener.Accept]), no data ([Conn.Read]), a full send
// buffer ([Conn.Write]), or a connect still in progress ([Conn.Connected]).
// The task waits for readiness of the socket's [Desc] and tries again.
// errors.Is(ErrWouldBlock, syscall.EAGAIN) holds too, so code written for
// raw non-blocking syscalls recognises it.
var ErrWouldBlock error = wouldBlock{}

// ErrTemporary is wrapped by the error of a [Listener.Accept] that failed
// for want of a resource: descriptors (EMFILE, ENFILE), buffers (ENOBUFS),
// memory (ENOMEM), or the poller's registration of the new connection.
// The listener is fine and the connection waits in the backlog; Accept
// succeeds again once the resource frees, so a server backs off and tries
// again (net/http waits 5 ms, doubling up to 1 s) rather than closing the
// listener. The error wraps the system call's error too (errors.Is(err,
// syscall.EMFILE) holds).
var ErrTemporary = errors.New("netpoll: temporary failure, try again later")

type wouldBlock struct{}

func (wouldBlock) Error() string { return "netpoll: operation would block" }

// Is makes errors.Is(ErrWouldBlock, syscall.EAGAIN) (and EWOULDBLOCK,
// its alias on Linux) hold.
func (wouldBlock) Is(target error) bool { return target == syscall.EAGAIN }

// sysfd is a socket and its registration, with a reference count that keeps
// the descriptor's number from being closed, and perhaps reused, under an
// operation in flight: internal/poll's fdMutex reduced to what
// non-blocking operations need, since nothing here ever blocks in a
// syscall. Every operation holds a reference from incref to decref; close
// marks the count closed (later increfs fail with [ErrClosed]) and the
// last reference out closes the descriptor, after its Desc.
type sysfd struct {
	fd  int
	d   *Desc
	ref xsync.Uint64 // refClosed | the number of references held
}

// refClosed is the bit of sysfd.ref set by close.
const refClosed = 1 << 63

// Listener is a listening TCP socket registered with a [Poller] (see
// [Listen]). A task accepts with [Listener.Accept] and, on
// [ErrWouldBlock], waits for its [Desc] to become readable. All methods are
// safe for concurrent use.
type Listener struct {
	s    sysfd
	addr *net.TCPAddr
}

// Desc returns the listener's registration: wait on it for reading to
// learn that a connection is pending.
func (l *Listener) Desc() *Desc { return l.s.d }

// Addr returns the address the listener is bound to, with the port the
// system picked for port 0; it is a *net.TCPAddr.
func (l *Listener) Addr() net.Addr { return l.addr }

// Fd returns the socket's descriptor number, for socket options the
// package does not offer. It stays valid until [Listener.Close].
func (l *Listener) Fd() int { return l.s.fd }

// Conn is a connected, or connecting, TCP socket registered with a
// [Poller] (see [Dial] and [Listener.Accept]). Its methods never block:
// one that cannot proceed returns an error matching [ErrWouldBlock], and
// the task waits on [Conn.Desc] for reading or writing and tries again,
// "try the syscall first, wait only on EAGAIN", as internal/poll does. A
// Conn may be read by one task and written by another at the same time,
// each waiting on its own slot of the Desc. All methods are safe for
// concurrent use.
type Conn struct {
	s     sysfd
	raddr net.Addr

	// The state of a Dial's connect: connOK from the start for an
	// accepted Conn; connFailed keeps the failure, since SO_ERROR reports
	// it once.
	cstate xsync.Uint32
	cmu    xsync.Mutex // serializes Connected's slow path; guards cerr
	cerr   error
}

// The values of Conn.cstate.
const (
	connOK = iota
	connConnecting
	connFailed
)

// Desc returns the connection's registration, on which a task waits for
// reading or writing.
func (c *Conn) Desc() *Desc { return c.s.d }

// Fd returns the socket's descriptor number, for socket options the
// package does not offer. It stays valid until [Conn.Close]. The socket
// must stay in non-blocking mode: [Conn.Read] and [Conn.Write] call the
// operating system without the Go scheduler's system-call bracket (see
// System calls in the package doc), and a call that blocked would hold a
// Go P, and hold up every stop-the-world, until it returned.
func (c *Conn) Fd() int { return c.s.fd }

// RemoteAddr returns the peer's address, a *net.TCPAddr: the dialled one
// for [Dial], the peer's for [Listener.Accept].
func (c *Conn) RemoteAddr() net.Addr { return c.raddr }
