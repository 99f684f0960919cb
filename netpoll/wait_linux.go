//go:build linux

package netpoll

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/internal/xsync"
)

// waitFile is the epoll instance as a file of the Go runtime's own
// netpoller: an epoll descriptor is readable while it has events, so a
// blocking wait parks the polling goroutine in the Go runtime instead of
// holding a thread, and its Go P, in epoll_wait. The Go runtime hands the P
// on at once, and when the readiness comes from a goroutine of the same
// process it often wakes the poller on the thread that wrote, with no
// thread wakeup at all.
type waitFile struct {
	f  *os.File
	rc syscall.RawConn
	// deadline is the read deadline set on f last (the zero time: none),
	// so that a run of waits without a limit sets it once. Guarded by
	// Poller.tmu.
	deadline time.Time
	// collect is the function rc.Read calls, made once (a closure per wait
	// would be an allocation per wait), and what it reads and sets.
	wmu      xsync.Mutex
	collect  func(fd uintptr) bool
	events   []unix.EpollEvent
	n        int
	err      error
	collects int // the calls of collect in this wait
}

// initWait makes the epoll descriptor non-blocking and hands it to the Go
// runtime's poller; from then on f owns it.
func (p *Poller) initWait() error {
	if err := unix.SetNonblock(p.epfd, true); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(p.epfd), "netpoll-epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return err
	}
	p.wf = waitFile{f: f, rc: rc}
	p.wf.collect = func(fd uintptr) bool {
		// Not rawEpollWait: this collect cannot sleep, but it is part
		// of a wait that may, and its system-call bracket wakes the Go
		// runtime's sysmon as a goroutine's blocking read would (see
		// raw_linux.go for what that is worth).
		w := &p.wf
		w.collects++
		w.n, w.err = unix.EpollWait(int(fd), w.events, 0)
		return w.n != 0 || w.err != nil && w.err != unix.EINTR
	}
	return nil
}

// closeWait closes the epoll descriptor, through its file.
func (p *Poller) closeWait() error { return p.wf.f.Close() }

// waitReal is epoll_wait for at most ms milliseconds (-1: no limit). A wait
// that may block waits for the descriptor's readability in the Go runtime's
// poller and then collects the events without blocking; it returns no
// events, and no error, when its time is up.
func (p *Poller) waitReal(events []unix.EpollEvent, ms int) (int, error) {
	if ms == 0 {
		return rawEpollWait(p.epfd, events)
	}
	var deadline time.Time
	if ms > 0 {
		deadline = time.Now().Add(time.Duration(ms) * time.Millisecond)
	}
	p.tmu.Lock()
	if deadline != p.wf.deadline {
		if err := p.wf.f.SetReadDeadline(deadline); err != nil {
			p.tmu.Unlock()
			return 0, unix.EBADF // closed
		}
		p.wf.deadline = deadline
	}
	p.tmu.Unlock()
	// Blocking waits take turns (rc.Read would serialize them anyway);
	// wmu guards the fields collect uses.
	p.wf.wmu.Lock()
	defer p.wf.wmu.Unlock()
	p.wf.events = events
	p.wf.collects = 0
	err := p.wf.rc.Read(p.wf.collect)
	n, werr := p.wf.n, p.wf.err
	p.wf.events = nil
	// Slept unless the first collect found events.
	p.slept.Store(p.wf.collects != 1 || n == 0)
	switch {
	case werr != nil:
		return n, werr
	case errors.Is(err, os.ErrDeadlineExceeded):
		return 0, nil
	case err != nil:
		return 0, unix.EBADF // closed under the wait
	}
	return n, nil
}
