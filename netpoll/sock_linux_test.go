//go:build linux

package netpoll_test

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/netpoll"
)

// raiseNoFile makes room for need descriptors, raising the soft
// RLIMIT_NOFILE up to the hard one for the test, or skips the test.
func raiseNoFile(t *testing.T, need uint64) {
	t.Helper()
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Fatalf("getrlimit: %v", err)
	}
	if rl.Cur >= need {
		return
	}
	if rl.Max < need {
		t.Skipf("needs %d descriptors, but the hard RLIMIT_NOFILE is %d: raise it (ulimit -Hn) to run this test", need, rl.Max)
	}
	old := rl
	rl.Cur = rl.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		t.Skipf("needs %d descriptors, but raising the soft RLIMIT_NOFILE from %d failed: %v", need, old.Cur, err)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
}

// smallBuffers shrinks c's send buffer, so that a larger message of the
// echo test fills it and its writes end part way.
func smallBuffers(t *testing.T, c *netpoll.Conn) {
	t.Helper()
	// Only the send buffer: a receive buffer under loopback's 64 KiB MSS
	// stalls the window (silly window avoidance) for 200 ms at a time.
	if err := unix.SetsockoptInt(c.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 16<<10); err != nil {
		t.Fatalf("setsockopt: %v", err)
	}
}

// payload is connection i's message in the echo test: sizes vary, and
// every 250th is larger than the socket buffers so that writes end part
// way with ErrWouldBlock.
func payload(i int) []byte {
	n := 1 + (i*7919)%(8<<10)
	if i%250 == 0 {
		n = 512 << 10
	}
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*131 + j*7 + j>>8)
	}
	return b
}

func TestEchoOnThousandsOfConnectionsAccountsForEveryByte(t *testing.T) {
	const conns = 2000
	raiseNoFile(t, 2*conns+64)
	tp := newTestPoller(t)
	ln := tp.listen()
	addr := ln.Addr().String()
	l := &loop{tp: tp}

	var want, sent, echoed, received, verified, writeWaits int
	buf := make([]byte, 16<<10) // shared: the tasks run on this goroutine only
	check := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}

	// Each server echoes until EOF and closes.
	server := func(c *netpoll.Conn) func(error) next {
		var pending []byte
		return func(waitErr error) next {
			check("server wait", waitErr)
			for {
				if len(pending) > 0 {
					n, err := c.Write(pending)
					pending = pending[n:]
					echoed += n
					if errors.Is(err, netpoll.ErrWouldBlock) {
						writeWaits++
						return waitOn(c.Desc(), netpoll.Write)
					}
					check("server write", err)
				}
				n, err := c.Read(buf)
				switch {
				case err == io.EOF:
					check("server close", c.Close())
					return done
				case errors.Is(err, netpoll.ErrWouldBlock):
					return waitOn(c.Desc(), netpoll.Read)
				}
				check("server read", err)
				pending = append(pending[:0:0], buf[:n]...)
			}
		}
	}
	// A client's reader reads the echo until EOF and compares.
	reader := func(i int, c *netpoll.Conn, msg []byte) func(error) next {
		got := make([]byte, 0, len(msg))
		return func(waitErr error) next {
			check("client wait to read", waitErr)
			for {
				n, err := c.Read(buf)
				got = append(got, buf[:n]...)
				received += n
				switch {
				case err == io.EOF:
					if !bytes.Equal(got, msg) {
						t.Errorf("connection %d: the echo of %d bytes differs from them (%d bytes)", i, len(msg), len(got))
					}
					verified++
					check("client close", c.Close())
					return done
				case errors.Is(err, netpoll.ErrWouldBlock):
					return waitOn(c.Desc(), netpoll.Read)
				}
				check("client read", err)
			}
		}
	}
	// A client's writer waits for the connect, starts the reader, writes
	// its message and shuts its side down.
	writer := func(i int, c *netpoll.Conn) func(error) next {
		msg := payload(i)
		want += len(msg)
		connected := false
		off := 0
		return func(waitErr error) next {
			check("client wait to write", waitErr)
			if !connected {
				err := c.Connected()
				if errors.Is(err, netpoll.ErrWouldBlock) {
					return waitOn(c.Desc(), netpoll.Write)
				}
				check("connect", err)
				connected = true
				l.spawn(reader(i, c, msg))
			}
			for off < len(msg) {
				n, err := c.Write(msg[off:])
				off += n
				sent += n
				if errors.Is(err, netpoll.ErrWouldBlock) {
					writeWaits++
					return waitOn(c.Desc(), netpoll.Write)
				}
				check("client write", err)
			}
			check("client CloseWrite", c.CloseWrite())
			return done
		}
	}

	accepted := 0
	l.spawn(func(waitErr error) next {
		check("accept wait", waitErr)
		for accepted < conns {
			c, err := ln.Accept()
			if errors.Is(err, netpoll.ErrWouldBlock) {
				return waitOn(ln.Desc(), netpoll.Read)
			}
			check("Accept", err)
			accepted++
			l.spawn(server(c))
		}
		return done
	})
	dialed := 0
	l.spawn(func(error) next {
		// Dial in batches, letting the acceptor keep up.
		for k := 0; dialed < conns; k++ {
			if k == 32 {
				return next{yield: true}
			}
			c, err := netpoll.Dial(tp.Poller, "tcp4", addr)
			check("Dial", err)
			if dialed%250 == 0 {
				smallBuffers(t, c) // the larger messages: partial writes
			}
			l.spawn(writer(dialed, c))
			dialed++
		}
		return done
	})
	l.run()

	if verified != conns || accepted != conns {
		t.Fatalf("%d connections dialled, %d accepted, %d echoes verified; want %d", dialed, accepted, verified, conns)
	}
	if sent != want || echoed != want || received != want {
		t.Fatalf("bytes: %d to send, %d sent, %d echoed, %d received back", want, sent, echoed, received)
	}
	t.Logf("%d connections, %d bytes each way, %d writes ended part way with ErrWouldBlock", conns, want, writeWaits)
}

func TestReadAfterPeerCloseWriteIsEOFAndTheOtherDirectionStillWorks(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())

	if err := tp.writeAll(client, []byte("request")); err != nil {
		t.Fatalf("client write: %v", err)
	}
	if err := client.CloseWrite(); err != nil {
		t.Fatalf("CloseWrite: %v", err)
	}
	got, err := tp.readAll(server)
	if err != nil || string(got) != "request" {
		t.Fatalf("server read %q, %v; want %q then io.EOF", got, err, "request")
	}
	if n, err := server.Read(make([]byte, 8)); n != 0 || err != io.EOF {
		t.Fatalf("server Read after EOF: %d, %v; want 0, io.EOF again", n, err)
	}

	if err := tp.writeAll(server, []byte("reply")); err != nil {
		t.Fatalf("server write after the client's CloseWrite: %v", err)
	}
	if err := server.CloseWrite(); err != nil {
		t.Fatalf("server CloseWrite: %v", err)
	}
	got, err = tp.readAll(client)
	if err != nil || string(got) != "reply" {
		t.Fatalf("client read %q, %v; want %q then io.EOF", got, err, "reply")
	}
	if _, err := client.Write([]byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Write after CloseWrite: %v; want EPIPE", err)
	}
}

// A Read fills at most len(b) bytes, whatever b's capacity: the rest of
// the backing array is the caller's, and the bytes not read stay in the
// socket for the next Read.
func TestReadFillsAtMostTheLengthOfItsSlice(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	if err := tp.writeAll(client, []byte("0123456789abcdef")); err != nil {
		t.Fatalf("client write: %v", err)
	}
	// All 16 bytes wait in the socket before the first Read.
	for {
		n, err := unix.IoctlGetInt(server.Fd(), unix.SIOCINQ)
		if err != nil {
			t.Fatalf("SIOCINQ: %v", err)
		}
		if n == 16 {
			break
		}
		if err := tp.wait(server.Desc(), netpoll.Read); err != nil {
			t.Fatalf("wait for the rest: %v", err)
		}
	}
	buf := bytes.Repeat([]byte{'.'}, 16)
	if err := tp.readFull(server, buf[:4]); err != nil {
		t.Fatalf("server read of 4: %v", err)
	}
	if string(buf) != "0123............" {
		t.Fatalf("the buffer after a Read into its first 4 bytes is %q, want %q", buf, "0123............")
	}
	rest := make([]byte, 12)
	if err := tp.readFull(server, rest); err != nil || string(rest) != "456789abcdef" {
		t.Fatalf("the next read got %q, %v; want %q", rest, err, "456789abcdef")
	}
}

// Bytes sent over a Conn carry what happened before they were sent: a
// variable set before a Write and read after the Read that received the
// bytes is no race, as with the net package. Reads and writes of up to
// 64 KiB skip the Go scheduler's system-call bracket (raw_linux.go) and
// tell the race detector so themselves, and larger ones go through
// x/sys/unix, which has its own bookkeeping; under -race this test fails
// if any pairing of the two loses the order.
func TestWriteHappensBeforeTheReadThatReceivesIt(t *testing.T) {
	const small, large = 1, 128 << 10
	for _, tc := range []struct {
		name        string
		write, read int
	}{
		{"small write, small read", small, small},
		{"large write, small read", large, small},
		{"small write, large read", small, large},
		{"large write, large read", large, large},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp := newTestPoller(t)
			client, server := tp.pair(tp.listen())
			var shared int
			wrote := make(chan error, 1)
			go func() {
				shared = 42
				_, err := client.Write(make([]byte, tc.write))
				if errors.Is(err, netpoll.ErrWouldBlock) {
					err = nil // some of it went, and the first read takes some
				}
				wrote <- err
			}()
			// One Read of tc.read bytes that gets something: the order
			// must come from that call, not from a later one.
			buf := make([]byte, tc.read)
			for {
				n, err := server.Read(buf)
				if n > 0 {
					break
				}
				if !errors.Is(err, netpoll.ErrWouldBlock) {
					t.Fatalf("server read: %d, %v", n, err)
				}
				if err := tp.wait(server.Desc(), netpoll.Read); err != nil {
					t.Fatalf("read wait: %v", err)
				}
			}
			if shared != 42 {
				t.Fatalf("after the read, the writer's variable is %d, want 42", shared)
			}
			if err := <-wrote; err != nil {
				t.Fatalf("client write: %v", err)
			}
		})
	}
}

func TestPeerResetFailsReadAndWriteWithECONNRESET(t *testing.T) {
	reset := func(t *testing.T) (*testPoller, *netpoll.Conn) {
		tp := newTestPoller(t)
		client, server := tp.pair(tp.listen())
		if err := client.SetLinger(0); err != nil {
			t.Fatalf("SetLinger(0): %v", err)
		}
		if err := client.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		// The reset is readiness: wait for it to arrive.
		if err := tp.wait(server.Desc(), netpoll.Read); err != nil {
			t.Fatalf("waiting for the reset: %v", err)
		}
		return tp, server
	}
	isSyscallError := func(t *testing.T, err error) {
		var se *os.SyscallError
		if !errors.As(err, &se) {
			t.Errorf("%v (%T) is not an *os.SyscallError", err, err)
		}
	}

	t.Run("read first", func(t *testing.T) {
		_, server := reset(t)
		_, err := server.Read(make([]byte, 8))
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("Read after the peer's reset: %v; want ECONNRESET", err)
		}
		isSyscallError(t, err)
		_, err = server.Write([]byte("x"))
		if !errors.Is(err, syscall.EPIPE) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("Write after the reset was read: %v; want EPIPE or ECONNRESET", err)
		}
		isSyscallError(t, err)
	})
	t.Run("write first", func(t *testing.T) {
		_, server := reset(t)
		_, err := server.Write([]byte("x"))
		if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("Write after the peer's reset: %v; want ECONNRESET or EPIPE", err)
		}
		isSyscallError(t, err)
	})
}

func TestWriteToAFullSocketReturnsWhatWentAndErrWouldBlock(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	// Fix both buffers, so that what they hold does not depend on the
	// machine's TCP autotuning limits. Linux caps the 256 KiB asked at
	// net.core.wmem_max and rmem_max (208 KiB by default) and doubles it:
	// at most 512 KiB each way, above loopback's 64 KiB MSS so that the
	// window never stalls, and far under the message's 4 MiB.
	if err := unix.SetsockoptInt(client.Fd(), unix.SOL_SOCKET, unix.SO_SNDBUF, 256<<10); err != nil {
		t.Fatalf("SO_SNDBUF: %v", err)
	}
	if err := unix.SetsockoptInt(server.Fd(), unix.SOL_SOCKET, unix.SO_RCVBUF, 256<<10); err != nil {
		t.Fatalf("SO_RCVBUF: %v", err)
	}
	msg := payload(0)
	msg = bytes.Repeat(msg, 8) // 4 MiB: more than the buffers hold
	n, err := client.Write(msg)
	if !errors.Is(err, netpoll.ErrWouldBlock) || !errors.Is(err, syscall.EAGAIN) || n == 0 || n >= len(msg) {
		t.Fatalf("Write of %d bytes to an unread socket: %d, %v; want some, ErrWouldBlock (matching EAGAIN)", len(msg), n, err)
	}
	// The rest goes while the peer reads.
	l := &loop{tp: tp}
	off := n
	l.spawn(func(waitErr error) next {
		if waitErr != nil {
			t.Fatalf("write wait: %v", waitErr)
		}
		for off < len(msg) {
			n, err := client.Write(msg[off:])
			off += n
			if errors.Is(err, netpoll.ErrWouldBlock) {
				return waitOn(client.Desc(), netpoll.Write)
			}
			if err != nil {
				t.Fatalf("Write: %v", err)
			}
		}
		if err := client.CloseWrite(); err != nil {
			t.Fatalf("CloseWrite: %v", err)
		}
		return done
	})
	var got []byte
	buf := make([]byte, 64<<10)
	l.spawn(func(waitErr error) next {
		if waitErr != nil {
			t.Fatalf("read wait: %v", waitErr)
		}
		for {
			n, err := server.Read(buf)
			got = append(got, buf[:n]...)
			switch {
			case err == io.EOF:
				return done
			case errors.Is(err, netpoll.ErrWouldBlock):
				return waitOn(server.Desc(), netpoll.Read)
			case err != nil:
				t.Fatalf("Read: %v", err)
			}
		}
	})
	l.run()
	if !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(msg))
	}
}

func TestDialConnectsToAListeningPort(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	c, err := netpoll.Dial(tp.Poller, "tcp4", ln.Addr().String())
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	connected := false
	for i := 0; i < 100 && !connected; i++ {
		switch err := c.Connected(); {
		case err == nil:
			connected = true
		case errors.Is(err, netpoll.ErrWouldBlock):
			if err := tp.wait(c.Desc(), netpoll.Write); err != nil {
				t.Fatalf("waiting for writability: %v", err)
			}
		default:
			t.Fatalf("Connected: %v", err)
		}
	}
	if !connected {
		t.Fatalf("Connected still ErrWouldBlock after 100 write-readiness waits")
	}
	if err := c.Connected(); err != nil {
		t.Fatalf("Connected once connected: %v", err)
	}
	s := tp.accept(ln)
	defer s.Close()
	if c.LocalAddr().String() != s.RemoteAddr().String() || c.RemoteAddr().String() != ln.Addr().String() ||
		s.LocalAddr().String() != ln.Addr().String() {
		t.Errorf("addresses: dialled %v -> %v, accepted %v <- %v, listening on %v",
			c.LocalAddr(), c.RemoteAddr(), s.LocalAddr(), s.RemoteAddr(), ln.Addr())
	}
	if err := tp.writeAll(c, []byte("ping")); err != nil {
		t.Fatalf("write: %v", err)
	}
	got := make([]byte, 4)
	if err := tp.readFull(s, got); err != nil || string(got) != "ping" {
		t.Fatalf("read %q, %v", got, err)
	}
}

func TestDialToAClosedPortIsECONNREFUSED(t *testing.T) {
	tp := newTestPoller(t)
	ln, err := netpoll.Listen(tp.Poller, "tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody listens on addr now
	c, err := netpoll.Dial(tp.Poller, "tcp4", addr)
	if err != nil {
		// Refused synchronously.
		if !errors.Is(err, syscall.ECONNREFUSED) {
			t.Fatalf("Dial to a closed port: %v; want ECONNREFUSED", err)
		}
		return
	}
	defer c.Close()
	for i := 0; ; i++ {
		err = c.Connected()
		if !errors.Is(err, netpoll.ErrWouldBlock) {
			break
		}
		if i == 100 {
			t.Fatalf("Connected still ErrWouldBlock after 100 write-readiness waits")
		}
		if err := tp.wait(c.Desc(), netpoll.Write); err != nil {
			t.Fatalf("waiting for the connect: %v", err)
		}
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("Connected to a closed port: %v; want ECONNREFUSED", err)
	}
	if err2 := c.Connected(); err2 != err {
		t.Fatalf("Connected again: %v; want the same failure %v", err2, err)
	}
}

func TestListenOnAnAddressInUseIsEADDRINUSE(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	_, err := netpoll.Listen(tp.Poller, "tcp4", ln.Addr().String())
	if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second Listen on %v: %v; want EADDRINUSE", ln.Addr(), err)
	}
}

func TestAcceptWithNothingPendingIsErrWouldBlockMatchingEAGAIN(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	c, err := ln.Accept()
	if c != nil || err != netpoll.ErrWouldBlock || !errors.Is(err, syscall.EAGAIN) {
		t.Fatalf("Accept with nothing pending: %v, %v; want nil, ErrWouldBlock (matching EAGAIN)", c, err)
	}
}

func TestCloseTwiceIsErrClosedAndSoIsEveryLaterUse(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	client, server := tp.pair(ln)

	if err := server.Close(); err != nil {
		t.Fatalf("Conn.Close: %v", err)
	}
	if err := server.Close(); err != netpoll.ErrClosed {
		t.Errorf("second Conn.Close: %v; want ErrClosed", err)
	}
	if _, err := server.Read(make([]byte, 1)); err != netpoll.ErrClosed {
		t.Errorf("Read after Close: %v; want ErrClosed", err)
	}
	if _, err := server.Write([]byte("x")); err != netpoll.ErrClosed {
		t.Errorf("Write after Close: %v; want ErrClosed", err)
	}
	if err := server.CloseWrite(); err != netpoll.ErrClosed {
		t.Errorf("CloseWrite after Close: %v; want ErrClosed", err)
	}
	if err := server.SetLinger(0); err != netpoll.ErrClosed {
		t.Errorf("SetLinger after Close: %v; want ErrClosed", err)
	}
	if a := server.LocalAddr(); a != nil {
		t.Errorf("LocalAddr after Close: %v; want nil", a)
	}
	if _, err := server.Desc().PrepareWait(netpoll.Read); err != netpoll.ErrClosed {
		t.Errorf("PrepareWait after Close: %v; want ErrClosed", err)
	}
	// The socket is really closed: the peer reads EOF.
	if got, err := tp.readAll(client); err != nil || len(got) != 0 {
		t.Errorf("the peer of a closed Conn read %q, %v; want io.EOF", got, err)
	}

	if err := ln.Close(); err != nil {
		t.Fatalf("Listener.Close: %v", err)
	}
	if err := ln.Close(); err != netpoll.ErrClosed {
		t.Errorf("second Listener.Close: %v; want ErrClosed", err)
	}
	if _, err := ln.Accept(); err != netpoll.ErrClosed {
		t.Errorf("Accept after Close: %v; want ErrClosed", err)
	}
}

func TestConnCloseAfterItsDescWasClosedStillClosesTheSocket(t *testing.T) {
	tp := newTestPoller(t)
	client, server := tp.pair(tp.listen())
	if err := server.Desc().Close(); err != nil {
		t.Fatalf("Desc.Close: %v", err)
	}
	if err := server.Close(); err != nil {
		t.Fatalf("Conn.Close after Desc.Close: %v; want nil", err)
	}
	if got, err := tp.readAll(client); err != nil || len(got) != 0 {
		t.Fatalf("the peer read %q, %v; want io.EOF", got, err)
	}
}

func TestListenAndDialOverIPv6AndDualStack(t *testing.T) {
	tp := newTestPoller(t)
	ln6, err := netpoll.Listen(tp.Poller, "tcp6", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback here: %v", err)
	}
	defer ln6.Close()
	c, s := tp.pair(ln6)
	if a := c.LocalAddr().(*net.TCPAddr); a.IP.To4() != nil || !a.IP.Equal(net.IPv6loopback) {
		t.Errorf("IPv6 client bound to %v", a)
	}
	if err := tp.writeAll(c, []byte("six")); err != nil {
		t.Fatalf("write: %v", err)
	}
	got := make([]byte, 3)
	if err := tp.readFull(s, got); err != nil || string(got) != "six" {
		t.Fatalf("read %q, %v", got, err)
	}

	// "tcp" on the empty host listens on IPv6 and IPv4 at once.
	ln, err := netpoll.Listen(tp.Poller, "tcp", ":0")
	if err != nil {
		t.Fatalf("Listen tcp :0: %v", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, a := range []struct{ network, host string }{{"tcp4", "127.0.0.1"}, {"tcp6", "::1"}, {"tcp", "localhost"}} {
		c, err := tp.dial(a.network, net.JoinHostPort(a.host, strconv.Itoa(port)))
		if err != nil {
			t.Fatalf("dial %s %s to the dual-stack listener: %v", a.network, a.host, err)
		}
		tp.accept(ln).Close()
		c.Close()
	}
}

func TestListenAndDialRejectOtherNetworksAndHostNames(t *testing.T) {
	tp := newTestPoller(t)
	for _, c := range []struct{ network, address string }{
		{"udp", "127.0.0.1:0"},
		{"unix", "/tmp/x"},
		{"tcp", "example.com:80"},
		{"tcp", "127.0.0.1:http"},
		{"tcp", "127.0.0.1"},
		{"tcp4", "[::1]:80"},
		{"tcp6", "127.0.0.1:80"},
	} {
		if ln, err := netpoll.Listen(tp.Poller, c.network, c.address); err == nil {
			ln.Close()
			t.Errorf("Listen(%q, %q) succeeded", c.network, c.address)
		}
		if conn, err := netpoll.Dial(tp.Poller, c.network, c.address); err == nil {
			conn.Close()
			t.Errorf("Dial(%q, %q) succeeded", c.network, c.address)
		}
	}
}

// A Dial whose connect fails at once closes its socket: however many such
// Dials, none leaves a descriptor behind. Linux refuses a TCP connect to a
// broadcast address at once (ENETUNREACH); a system where that connect
// does not fail at once leaves the test nothing to check, and it skips.
func TestADialThatFailsAtOnceLeavesNoDescriptor(t *testing.T) {
	tp := newTestPoller(t)
	const addr = "255.255.255.255:9"
	failsAtOnce := func() bool {
		c, err := netpoll.Dial(tp.Poller, "tcp4", addr)
		if err == nil {
			c.Close()
			return false
		}
		var se *os.SyscallError
		if !errors.As(err, &se) || se.Syscall != "connect" {
			t.Fatalf("Dial to %s: %v, want a failed connect", addr, err)
		}
		return true
	}
	if !failsAtOnce() { // which also makes what only the first Dial makes
		t.Skipf("a connect to %s does not fail at once here", addr)
	}
	before := openDescriptors(t)
	for range 100 {
		failsAtOnce()
	}
	if after := openDescriptors(t); after > before {
		t.Fatalf("100 Dials whose connect failed at once left %d descriptors open", after-before)
	}
}

// openDescriptors counts the process's open file descriptors.
func openDescriptors(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count the open descriptors: %v", err)
	}
	return len(fds)
}

// A connection taken after the Poller was closed cannot be registered:
// Accept closes it and returns ErrClosed, which is no ErrTemporary, so that
// a server loop that backs off and retries on ErrTemporary stops.
func TestAcceptOnAClosedPollerIsErrClosedAndNotTemporary(t *testing.T) {
	tp := newTestPoller(t)
	ln := tp.listen()
	client, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatalf("net.Dial: %v", err)
	}
	defer client.Close()
	// The handshake may still be on its way to the accept queue; the 10 s
	// bound is a hang guard.
	pfd := []unix.PollFd{{Fd: int32(ln.Fd()), Events: unix.POLLIN}}
	if n, err := unix.Poll(pfd, 10_000); n != 1 || err != nil {
		t.Fatalf("poll on the listener: %d, %v; want it readable", n, err)
	}
	if err := tp.Close(); err != nil {
		t.Fatalf("Poller.Close: %v", err)
	}
	c, err := ln.Accept()
	if c != nil || !errors.Is(err, netpoll.ErrClosed) || errors.Is(err, netpoll.ErrTemporary) {
		t.Fatalf("Accept on a closed Poller: %v, %v; want nil and ErrClosed, not ErrTemporary", c, err)
	}
	// The connection taken was closed: its peer reads EOF (the deadline is
	// a hang guard).
	client.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := client.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("the peer of a connection Accept dropped read %d, %v; want io.EOF", n, err)
	}
}
