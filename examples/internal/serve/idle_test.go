//go:build linux

package serve_test

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/vsched/vsched/examples/internal/serve"
	"github.com/vsched/vsched/kernel"
)

// idleEcho is an echo session that reports each Idle on idled, with
// whether output was pending then.
type idleEcho struct {
	echoSession
	idled chan bool
}

func (s *idleEcho) Idle() { s.idled <- len(s.out) > 0 }

// TestKernelServerIdlesASessionBeforeItWaitsForInput: after each round
// trip the kernel server calls Idle before the connection waits for more
// input, never with output pending; the session's next read works.
func TestKernelServerIdlesASessionBeforeItWaitsForInput(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(2))
	if err != nil {
		t.Fatal(err)
	}
	idled := make(chan bool, 16)
	srv, err := serve.Kernel(k, "127.0.0.1:0", "idle", func() serve.Session {
		return &idleEcho{echoSession: echoSession{buf: make([]byte, 512)}, idled: idled}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.Close()
		k.Shutdown(context.Background())
	})
	conn, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute))
	for i := range 3 {
		msg := []byte{'a' + byte(i), '\n'}
		if _, err := conn.Write(msg); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(conn, got); err != nil || string(got) != string(msg) {
			t.Fatalf("round trip %d: got %q, %v", i, got, err)
		}
		select {
		case pending := <-idled:
			if pending {
				t.Fatalf("round trip %d: Idle with output pending", i)
			}
		case <-time.After(time.Minute): // a bound, not a synchronization
			t.Fatalf("round trip %d: the server waits for input without calling Idle", i)
		}
	}
}
