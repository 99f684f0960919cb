//go:build linux

package netpoll

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenBacklog is the backlog of [Listen]; the kernel caps it at
// net.core.somaxconn.
const listenBacklog = max(unix.SOMAXCONN, 4096)

// maxRW is the most one read or write syscall is asked to move
// (internal/poll's maxRW): some systems fail larger ones.
const maxRW = 1 << 30

// Listen makes a non-blocking TCP socket bound to address and listening,
// registered with p. network is "tcp", "tcp4" or "tcp6"; address is
// "host:port", where host is an IP address, "localhost" or empty, and port
// 0 picks a free port ([Listener.Addr] tells which). An empty host listens
// on every address: for "tcp", on both IPv6 and IPv4 when the system
// allows it, as the net package does. Listen does not resolve names.
//
// An address already in use gives an error matching syscall.EADDRINUSE.
func Listen(p *Poller, network, address string) (*Listener, error) {
	ta, err := resolveTCP(network, address, true)
	if err != nil {
		return nil, fmt.Errorf("netpoll: listen %s %s: %w", network, address, err)
	}
	fd, err := listenSocket(ta)
	if err != nil && ta.dualStack && (errors.Is(err, unix.EAFNOSUPPORT) || errors.Is(err, unix.EADDRNOTAVAIL)) {
		// No IPv6 here: the wildcard of "tcp" is IPv4's.
		ta = tcpAddr{family: unix.AF_INET, sa: &unix.SockaddrInet4{Port: ta.port}, port: ta.port}
		fd, err = listenSocket(ta)
	}
	if err != nil {
		return nil, fmt.Errorf("netpoll: listen %s %s: %w", network, address, err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netpoll: listen %s %s: %w", network, address, os.NewSyscallError("getsockname", err))
	}
	d, err := p.Register(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netpoll: listen %s %s: %w", network, address, err)
	}
	return &Listener{s: sysfd{fd: fd, d: d}, addr: sockaddrToTCP(sa)}, nil
}

// listenSocket makes the socket of [Listen]: non-blocking, close-on-exec,
// SO_REUSEADDR, bound and listening.
func listenSocket(ta tcpAddr) (int, error) {
	fd, err := tcpSocket(ta)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("setsockopt", err)
	}
	if err := unix.Bind(fd, ta.sa); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("bind", err)
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		unix.Close(fd)
		return -1, os.NewSyscallError("listen", err)
	}
	return fd, nil
}

// tcpSocket makes a non-blocking, close-on-exec TCP socket of ta's family,
// with IPV6_V6ONLY as ta says for IPv6.
func tcpSocket(ta tcpAddr) (int, error) {
	fd, err := unix.Socket(ta.family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, unix.IPPROTO_TCP)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if ta.family == unix.AF_INET6 {
		v6only := 0
		if ta.v6only {
			v6only = 1
		}
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, v6only); err != nil {
			unix.Close(fd)
			return -1, os.NewSyscallError("setsockopt", err)
		}
	}
	return fd, nil
}

// Accept takes a pending connection (accept4, non-blocking and
// close-on-exec), registers it with the listener's Poller and returns it,
// with TCP_NODELAY on. With no connection pending it returns
// [ErrWouldBlock]: wait for [Listener.Desc] to become readable and try
// again. A connection aborted before it was taken is skipped. When a
// resource runs out (descriptors, buffers, memory, or the registration of
// the connection) the error wraps [ErrTemporary]: back off and try again;
// any other error is the listener's own. After [Listener.Close] it returns
// [ErrClosed]; so it does, never wrapped in ErrTemporary, when the Poller
// has closed: the connection it took is then closed.
func (l *Listener) Accept() (*Conn, error) {
	if err := l.s.incref(); err != nil {
		return nil, err
	}
	defer l.s.decref()
	for {
		nfd, rsa, err := unix.Accept4(l.s.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		switch err {
		case nil:
		case unix.EAGAIN:
			return nil, ErrWouldBlock
		case unix.EINTR, unix.ECONNABORTED:
			continue
		case unix.EMFILE, unix.ENFILE, unix.ENOBUFS, unix.ENOMEM:
			return nil, fmt.Errorf("%w: %w", ErrTemporary, os.NewSyscallError("accept4", err))
		default:
			return nil, os.NewSyscallError("accept4", err)
		}
		// As the net package, ignore a failure to set TCP_NODELAY.
		_ = unix.SetsockoptInt(nfd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		d, err := l.s.d.p.Register(nfd)
		if err != nil {
			// The connection is lost (its descriptor was all there was
			// of it), but the listener is not: epoll's limits are
			// resources too.
			unix.Close(nfd)
			if errors.Is(err, ErrClosed) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: registering the connection: %w", ErrTemporary, err)
		}
		c := &Conn{s: sysfd{fd: nfd, d: d}}
		if ra := sockaddrToTCP(rsa); ra != nil {
			c.raddr = ra
		}
		return c, nil
	}
}

// Close ends the listener's registration, waking a task that waits on it
// with [ErrClosed], and closes the socket once no operation uses it. It
// returns ErrClosed when called again.
func (l *Listener) Close() error { return l.s.close() }

// Dial starts a non-blocking TCP connect to address, with the socket
// registered with p, and returns the Conn at once, perhaps still
// connecting: call [Conn.Connected], and while it returns [ErrWouldBlock]
// wait for [Conn.Desc] to become writable and call it again. network is
// "tcp", "tcp4" or "tcp6"; address is "host:port", where host is an IP
// address, "localhost", or empty for the local system. Dial does not
// resolve names.
//
// A connect that fails at once (on loopback, a refused port often does)
// makes Dial fail with its error, as an *os.SyscallError: errors.Is(err,
// syscall.ECONNREFUSED) holds for a refused one, whether Dial or Connected
// reports it.
func Dial(p *Poller, network, address string) (*Conn, error) {
	ta, err := resolveTCP(network, address, false)
	if err != nil {
		return nil, fmt.Errorf("netpoll: dial %s %s: %w", network, address, err)
	}
	fd, err := tcpSocket(ta)
	if err != nil {
		return nil, fmt.Errorf("netpoll: dial %s %s: %w", network, address, err)
	}
	_ = unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	// Registered before the connect, so that the edge that ends it is
	// latched even if nobody waits yet.
	d, err := p.Register(fd)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("netpoll: dial %s %s: %w", network, address, err)
	}
	c := &Conn{s: sysfd{fd: fd, d: d}, raddr: ta.addr}
	switch err := unix.Connect(fd, ta.sa); err {
	case nil:
		return c, nil
	case unix.EINPROGRESS, unix.EINTR:
		// EINTR: the connect goes on asynchronously, as internal/poll
		// knows.
		c.cstate.Store(connConnecting)
		return c, nil
	default:
		c.s.close()
		return nil, fmt.Errorf("netpoll: dial %s %s: %w", network, address, os.NewSyscallError("connect", err))
	}
}

// Connected tells how a [Dial]'s connect went: nil once connected (always,
// for an accepted Conn), [ErrWouldBlock] while it is in progress (wait for
// [Conn.Desc] to become writable and ask again), or its failure as an
// *os.SyscallError, e.g. matching syscall.ECONNREFUSED; a failure is
// reported again by later calls. Call Connected before reading or writing
// a dialled Conn: a Read or Write on a failed connect consumes the
// socket's error, and Connected would then go on reporting
// [ErrWouldBlock].
func (c *Conn) Connected() error {
	if c.cstate.Load() == connOK {
		return nil
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	switch c.cstate.Load() {
	case connOK:
		return nil
	case connFailed:
		return c.cerr
	}
	if err := c.s.incref(); err != nil {
		return err
	}
	defer c.s.decref()
	// As the net package's connect after its wait for writability.
	nerr, err := unix.GetsockoptInt(c.s.fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err != nil {
		return os.NewSyscallError("getsockopt", err)
	}
	switch e := syscall.Errno(nerr); e {
	case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
		return ErrWouldBlock
	case 0:
		// No error yet: connected only if there is a peer. ENOTCONN
		// means the connect goes on (a wakeup before it ended).
		if _, err := unix.Getpeername(c.s.fd); err != nil {
			return ErrWouldBlock
		}
	case unix.EISCONN:
	default:
		c.cerr = os.NewSyscallError("connect", e)
		c.cstate.Store(connFailed)
		return c.cerr
	}
	c.cstate.Store(connOK)
	return nil
}

// Read reads what the socket has, up to len(b) bytes. It returns io.EOF
// when the peer has closed its side and everything was read,
// [ErrWouldBlock] when there is nothing to read yet (wait for [Conn.Desc]
// to become readable), [ErrClosed] after [Conn.Close], and other failures
// as an *os.SyscallError, so that errors.Is(err, syscall.ECONNRESET)
// holds for a reset. A Read of zero bytes returns 0, nil at once. A Read
// into at most 64 KiB skips the Go scheduler's system-call bracket (see
// System calls in the package doc).
func (c *Conn) Read(b []byte) (int, error) {
	if err := c.s.incref(); err != nil {
		return 0, err
	}
	defer c.s.decref()
	if len(b) == 0 {
		return 0, nil
	}
	if len(b) > maxRW {
		b = b[:maxRW]
	}
	for {
		n, err := rawRead(c.s.fd, b)
		switch err {
		case nil:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return 0, ErrWouldBlock
		}
		return 0, os.NewSyscallError("read", err)
	}
}

// Write writes as much of b as the socket takes, with write(2) as the net
// package does: a closed peer makes it fail with EPIPE, and the Go runtime
// does not end the program for a SIGPIPE on a descriptor other than
// standard output and error (see os/signal). It returns len(b), nil when
// all of b went, and n, [ErrWouldBlock] when the send buffer filled after
// n bytes (wait for [Conn.Desc] to become writable and write b[n:]).
// Other failures come as an *os.SyscallError: errors.Is(err,
// syscall.EPIPE) or syscall.ECONNRESET holds when the peer is gone. After
// [Conn.Close] it returns [ErrClosed]. Each write of at most 64 KiB skips
// the Go scheduler's system-call bracket (see System calls in the package
// doc).
func (c *Conn) Write(b []byte) (int, error) {
	if err := c.s.incref(); err != nil {
		return 0, err
	}
	defer c.s.decref()
	n := 0
	for n < len(b) {
		chunk := b[n:]
		if len(chunk) > maxRW {
			chunk = chunk[:maxRW]
		}
		m, err := rawWrite(c.s.fd, chunk)
		switch err {
		case nil:
			if m == 0 {
				// Taking nothing without an error: do not spin
				// (internal/poll says the same).
				return n, io.ErrUnexpectedEOF
			}
			n += m
			continue
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return n, ErrWouldBlock
		}
		return n, os.NewSyscallError("write", err)
	}
	return n, nil
}

// CloseWrite shuts the sending side down (shutdown SHUT_WR): the peer
// reads io.EOF after what was written, and can still send.
func (c *Conn) CloseWrite() error {
	if err := c.s.incref(); err != nil {
		return err
	}
	defer c.s.decref()
	return wrapSyscall("shutdown", unix.Shutdown(c.s.fd, unix.SHUT_WR))
}

// SetLinger sets SO_LINGER as net.TCPConn.SetLinger does: sec < 0 turns
// it off (the default), sec >= 0 turns it on with that timeout. With 0, a
// Close discards unsent data and resets the connection: the peer's next
// Read or Write fails with ECONNRESET.
func (c *Conn) SetLinger(sec int) error {
	if err := c.s.incref(); err != nil {
		return err
	}
	defer c.s.decref()
	l := unix.Linger{}
	if sec >= 0 {
		l.Onoff, l.Linger = 1, int32(sec)
	}
	return wrapSyscall("setsockopt", unix.SetsockoptLinger(c.s.fd, unix.SOL_SOCKET, unix.SO_LINGER, &l))
}

// LocalAddr returns the socket's own address, a *net.TCPAddr, or nil when
// the system does not tell (after Close, say).
func (c *Conn) LocalAddr() net.Addr {
	if err := c.s.incref(); err != nil {
		return nil
	}
	defer c.s.decref()
	sa, err := unix.Getsockname(c.s.fd)
	if err != nil {
		return nil
	}
	if a := sockaddrToTCP(sa); a != nil {
		return a
	}
	return nil
}

// Close ends the connection's registration, waking the tasks that wait on
// it with [ErrClosed], and closes the socket once no operation uses it. It
// returns ErrClosed when called again.
func (c *Conn) Close() error { return c.s.close() }

func wrapSyscall(name string, err error) error {
	if err != nil {
		return os.NewSyscallError(name, err)
	}
	return nil
}

// incref takes a reference for an operation, or fails with [ErrClosed].
func (s *sysfd) incref() error {
	for {
		v := s.ref.Load()
		if v&refClosed != 0 {
			return ErrClosed
		}
		if s.ref.Cas(v, v+1) {
			return nil
		}
	}
}

// decref drops a reference; the last one out after close closes the
// descriptor and returns what close(2) said.
func (s *sysfd) decref() error {
	if s.ref.Add(^uint64(0)) == refClosed {
		return wrapSyscall("close", unix.Close(s.fd))
	}
	return nil
}

// close marks s closed and ends its registration. It holds a reference
// meanwhile, so that the descriptor is closed only after Desc.Close has
// taken it out of the epoll instance: closed first, its number could be
// reused and the other descriptor's registration removed.
func (s *sysfd) close() error {
	for {
		v := s.ref.Load()
		if v&refClosed != 0 {
			return ErrClosed
		}
		if s.ref.Cas(v, (v|refClosed)+1) {
			break
		}
	}
	// ErrClosed when the owner closed the Desc already; the socket is
	// still to be closed.
	_ = s.d.Close()
	return s.decref()
}

// tcpAddr is a resolved TCP address: the socket's family and options, and
// the address to bind or connect to.
type tcpAddr struct {
	family    int
	v6only    bool
	dualStack bool // the wildcard of "tcp": IPv6 and IPv4 on one socket
	port      int
	sa        unix.Sockaddr
	addr      net.Addr // a *net.TCPAddr, never a nil one
}

// resolveTCP resolves network and address for [Listen] (listen) or
// [Dial], without name resolution.
func resolveTCP(network, address string, listen bool) (tcpAddr, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return tcpAddr{}, net.UnknownNetworkError(network)
	}
	host, service, err := net.SplitHostPort(address)
	if err != nil {
		return tcpAddr{}, err
	}
	port := 0
	if service != "" {
		p, err := strconv.ParseUint(service, 10, 16)
		if err != nil {
			return tcpAddr{}, &net.AddrError{Err: "invalid port (service names are not resolved)", Addr: address}
		}
		port = int(p)
	}
	var ip netip.Addr
	switch {
	case host == "" && listen && network == "tcp":
		ta := tcpAddr{family: unix.AF_INET6, dualStack: true, port: port, sa: &unix.SockaddrInet6{Port: port}}
		ta.addr = &net.TCPAddr{IP: net.IPv6unspecified, Port: port}
		return ta, nil
	case host == "" && listen:
		ip = netip.IPv4Unspecified()
		if network == "tcp6" {
			ip = netip.IPv6Unspecified()
		}
	case host == "" || strings.EqualFold(host, "localhost"):
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
		if network == "tcp6" {
			ip = netip.IPv6Loopback()
		}
	default:
		ip, err = netip.ParseAddr(host)
		if err != nil {
			return tcpAddr{}, &net.AddrError{Err: "host is not an IP address (names are not resolved)", Addr: host}
		}
	}
	if ip.Is4In6() && network != "tcp6" {
		ip = ip.Unmap()
	}
	switch {
	case network == "tcp4" && !ip.Is4():
		return tcpAddr{}, &net.AddrError{Err: "not an IPv4 address", Addr: host}
	case network == "tcp6" && (ip.Is4() || ip.Is4In6()):
		return tcpAddr{}, &net.AddrError{Err: "not an IPv6 address", Addr: host}
	}
	ta := tcpAddr{port: port, addr: &net.TCPAddr{IP: net.IP(ip.AsSlice()), Port: port, Zone: ip.Zone()}}
	if ip.Is4() {
		ta.family, ta.sa = unix.AF_INET, &unix.SockaddrInet4{Port: port, Addr: ip.As4()}
		return ta, nil
	}
	zone, err := zoneIndex(ip.Zone())
	if err != nil {
		return tcpAddr{}, err
	}
	ta.family, ta.v6only = unix.AF_INET6, network == "tcp6"
	ta.sa = &unix.SockaddrInet6{Port: port, ZoneId: zone, Addr: ip.As16()}
	return ta, nil
}

// zoneIndex returns the interface index an IPv6 zone names: a number, or
// an interface's name.
func zoneIndex(zone string) (uint32, error) {
	if zone == "" {
		return 0, nil
	}
	if n, err := strconv.ParseUint(zone, 10, 32); err == nil {
		return uint32(n), nil
	}
	ifi, err := net.InterfaceByName(zone)
	if err != nil {
		return 0, err
	}
	return uint32(ifi.Index), nil
}

// sockaddrToTCP converts an IPv4 or IPv6 socket address, or returns nil.
func sockaddrToTCP(sa unix.Sockaddr) *net.TCPAddr {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}
	case *unix.SockaddrInet6:
		a := &net.TCPAddr{IP: net.IP(append([]byte(nil), sa.Addr[:]...)), Port: sa.Port}
		if sa.ZoneId != 0 {
			a.Zone = strconv.FormatUint(uint64(sa.ZoneId), 10)
		}
		return a
	}
	return nil
}
