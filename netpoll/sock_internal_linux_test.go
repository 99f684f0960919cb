//go:build linux

package netpoll

import (
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestConnCloseClosesTheSocketOnlyAfterItLeftTheEpollSet holds the
// Poller's table lock, so that a Close stops just before it takes the
// socket out of the epoll instance, and checks that the socket is still
// open there. Were it closed first, a socket opened meanwhile on another
// thread could get its number and register, and the EPOLL_CTL_DEL that
// follows would end that socket's registration: its waiters would never
// hear of readiness again.
func TestConnCloseClosesTheSocketOnlyAfterItLeftTheEpollSet(t *testing.T) {
	p := newTestPoller(t)
	fd, peer := socketpair(t)
	defer unix.Close(peer)
	d, err := p.Register(fd)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	c := &Conn{s: sysfd{fd: fd, d: d}}
	var before unix.Stat_t
	if err := unix.Fstat(fd, &before); err != nil {
		t.Fatalf("fstat: %v", err)
	}

	p.mu.Lock()
	closed := make(chan error)
	go func() { closed <- c.Close() }()
	waitBlockedIn(t, "netpoll.(*Poller).deregister")
	var during unix.Stat_t
	err = unix.Fstat(fd, &during)
	p.mu.Unlock()
	if err != nil || during.Ino != before.Ino || during.Dev != before.Dev {
		t.Errorf("while Close waited to leave the epoll set, fstat of its descriptor: %v (inode %d, was %d); want the socket still open", err, during.Ino, before.Ino)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	// Closed now: its peer reads EOF.
	if n, err := unix.Read(peer, make([]byte, 1)); n != 0 || err != nil {
		t.Fatalf("the peer of the closed socket read %d, %v; want EOF", n, err)
	}
}

// waitBlockedIn returns once some goroutine is blocked on a sync.Mutex
// inside the function fn (as runtime.Stack names it). The wait is bounded
// in rounds; a goroutine that never gets there fails the test.
func waitBlockedIn(t *testing.T, fn string) {
	t.Helper()
	buf := make([]byte, 1<<20)
	for range 1_000_000 {
		stacks := string(buf[:runtime.Stack(buf, true)])
		for g := range strings.SplitSeq(stacks, "\n\n") {
			if strings.Contains(g, "[sync.Mutex.Lock") && strings.Contains(g, fn+"(") {
				return
			}
		}
		runtime.Gosched()
	}
	t.Fatalf("no goroutine blocked on a mutex in %s", fn)
}
