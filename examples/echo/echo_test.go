package echo_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"

	"github.com/vsched/vsched/examples/echo"
	"github.com/vsched/vsched/examples/internal/serve/servetest"
)

// servers starts both implementations on loopback and closes them when
// the test ends.
func servers(t *testing.T) map[string]*echo.Server {
	t.Helper()
	return servetest.Servers(t, echo.ServeKernel, echo.ServeNet)
}

func dial(t *testing.T, addr net.Addr) *net.TCPConn {
	t.Helper()
	return servetest.Dial(t, addr)
}

// Several clients at once send messages from one byte to a megabyte, the
// largest far beyond the socket buffers, so that the server's writes would
// block and it must keep its output until the client reads; each gets
// back exactly the bytes it sent.
func TestServersEchoEveryByte(t *testing.T) {
	const clients = 6
	sizes := []int{1, 64, 1000, 16 << 10, 100_000, 1 << 20}
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for id := range clients {
				conn := dial(t, srv.Addr())
				wg.Go(func() {
					rng := rand.New(rand.NewPCG(uint64(id), 1))
					for _, size := range sizes {
						msg := make([]byte, size)
						for i := range msg {
							msg[i] = byte(rng.Uint32())
						}
						if err := roundTrip(conn, msg); err != nil {
							errs <- fmt.Errorf("client %d, %d bytes: %w", id, size, err)
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// roundTrip writes msg while it reads the echo, so that neither side
// waits for the other with full buffers, and checks the echo.
func roundTrip(conn net.Conn, msg []byte) error {
	written := make(chan error, 1)
	go func() {
		_, err := conn.Write(msg)
		written <- err
	}()
	got := make([]byte, len(msg))
	_, rerr := io.ReadFull(conn, got)
	if err := <-written; err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if rerr != nil {
		return fmt.Errorf("read: %w", rerr)
	}
	if !bytes.Equal(got, msg) {
		return fmt.Errorf("echo differs from the message")
	}
	return nil
}

// A client that half-closes gets back everything it sent, then EOF: the
// server writes out what it read before it closes on EOF.
func TestServersEchoUntilTheClientHalfCloses(t *testing.T) {
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			conn := dial(t, srv.Addr())
			msg := bytes.Repeat([]byte("half-close "), 1000)
			if _, err := conn.Write(msg); err != nil {
				t.Fatal(err)
			}
			if err := conn.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(conn)
			if err != nil {
				t.Fatalf("ReadAll: %v", err)
			}
			if !bytes.Equal(got, msg) {
				t.Fatalf("got %d bytes back, want the %d sent", len(got), len(msg))
			}
		})
	}
}

// Close returns while clients are still connected, and they see the
// connection end.
func TestServerCloseEndsOpenConnections(t *testing.T) {
	for impl, srv := range servers(t) {
		t.Run(impl, func(t *testing.T) {
			conns := []*net.TCPConn{dial(t, srv.Addr()), dial(t, srv.Addr())}
			for _, conn := range conns {
				if err := roundTrip(conn, []byte("ping")); err != nil {
					t.Fatal(err)
				}
			}
			if err := srv.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			for _, conn := range conns {
				if n, err := conn.Read(make([]byte, 1)); err == nil {
					t.Fatalf("after Close: read %d bytes, want an error", n)
				}
			}
		})
	}
}
