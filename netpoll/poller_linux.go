//go:build linux

package netpoll

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/internal/xsync"
)

// newPoller makes a Poller: an epoll instance and its break eventfd. ready
// is called with every waiter woken outside poll (by [Desc.Close], or
// a deadline set in the past), from the goroutine that woke it; the
// scheduler makes the waiter's task runnable. It must not block.
func newPoller(ready func(*waiter)) (*Poller, error) {
	if ready == nil {
		return nil, errors.New("netpoll: a poller with a nil ready function")
	}
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	evfd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, os.NewSyscallError("eventfd", err)
	}
	// The break eventfd is level-triggered: it stays readable until a
	// blocking Poll drains it.
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: -1}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, evfd, &ev); err != nil {
		unix.Close(evfd)
		unix.Close(epfd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	p := &Poller{epfd: epfd, evfd: evfd, ready: ready}
	if err := p.initWait(); err != nil {
		unix.Close(evfd)
		return nil, err
	}
	return p, nil
}

// Register adds fd to the epoll instance, edge-triggered for
// EPOLLIN|EPOLLOUT|EPOLLRDHUP|EPOLLPRI, once for its whole life (the runtime's
// netpollopen), and returns its Desc. fd should be non-blocking; it stays
// the caller's to close, after [Desc.Close].
func (p *Poller) Register(fd int) (*Desc, error) {
	if p.closed.Load() != 0 {
		return nil, ErrClosed
	}
	d := &Desc{p: p, fd: fd}
	d.rt.idx, d.wt.idx = -1, -1
	p.register(d)
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLPRI | unix.EPOLLET,
		Fd: int32(d.idx), Pad: int32(d.seq)}
	// Under the table's lock, so that Close does not close the epoll
	// descriptor in between (its number could be reused).
	p.mu.Lock()
	err := ErrClosed
	if p.closed.Load() == 0 {
		err = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd, &ev)
		if err != nil {
			err = os.NewSyscallError("epoll_ctl", err)
		}
	}
	p.mu.Unlock()
	if err != nil {
		p.unregister(d)
		return nil, err
	}
	return d, nil
}

// deregister removes d from the epoll instance and the table.
func (p *Poller) deregister(d *Desc) {
	p.mu.Lock()
	if p.epfd >= 0 && p.closed.Load() == 0 {
		// The descriptor may be closed already: nothing to do then.
		_ = unix.EpollCtl(p.epfd, unix.EPOLL_CTL_DEL, d.fd, nil)
	}
	p.mu.Unlock()
	p.unregister(d)
}

// poll waits for readiness, for at most delay: a negative delay blocks
// until an event, a deadline or a breakPoll; zero does not block. It
// never sleeps past the earliest deadline; a wait that deadline limits
// ends short of it only by the rounding of the wait down to whole
// milliseconds, so that an idle scheduler polls about once per deadline. It collects at most
// [MaxEvents] events, fires the deadlines that are due, and returns the
// waiters whose waits ended appended to list (the runtime's netpoll). An
// interrupted wait (EINTR) returns what the deadlines gave, so that the
// caller can look at the time again. A poll on a closed Poller returns list
// unchanged.
func (p *Poller) poll(delay time.Duration, list []*waiter) []*waiter {
	if p.closed.Load() != 0 {
		return list
	}
	// While no deadline is set (the usual case) the poll runs no timers,
	// with no clock read and no timer lock: a deadline set after this load
	// is one set after the poll began, and a blocking poll looks again in
	// sleepStart, under the lock.
	var now int64
	if p.next.Load() != 0 {
		now = xsync.Nanotime()
		list = p.runTimers(now, list)
	}
	d := int64(delay)
	if d < 0 {
		d = -1
	}
	if len(list) > 0 {
		d = 0 // something to run already
	}
	if d != 0 {
		d = p.sleepStart(now, d)
	}
	var ms int
	switch {
	case d < 0:
		ms = -1
	case d == 0:
		ms = 0
	case d < int64(time.Millisecond):
		ms = 1
	case d < 1e9*int64(time.Millisecond):
		ms = int(d / int64(time.Millisecond))
	default:
		ms = 1e9
	}
	events := p.getEvents()
	defer p.putEvents(events)
	n, err := p.wait(events[:], ms)
	if ms != 0 {
		p.sleepEnd()
	}
	if err != nil {
		if err != unix.EINTR && err != unix.EBADF && p.closed.Load() == 0 {
			panic(fmt.Sprintf("netpoll: epoll_wait on fd %d failed: %v", p.epfd, err))
		}
		return p.runTimers(xsync.Nanotime(), list)
	}
	p.mu.Lock()
	if p.closed.Load() != 0 {
		// Closed while this Poll waited: the descriptors' numbers may
		// belong to other files now.
		p.mu.Unlock()
		return list
	}
	for i := range n {
		ev := &events[i]
		if ev.Fd == -1 {
			// A Break. Only a Poll that may block drains it; one that
			// does not leaves it for the blocked one (netpollBreak).
			if ms != 0 {
				_, _ = rawRead(p.evfd, p.drain[:])
				p.wakeSig.Store(0)
			}
			continue
		}
		d := p.lookupLocked(uint32(ev.Fd), uint32(ev.Pad))
		if d == nil {
			continue // the registration ended: a stale event
		}
		if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLPRI) != 0 && !d.Exceptional() {
			d.exc.Store(1) // before the read waiter can run: see Exceptional
		}
		if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR|unix.EPOLLPRI) != 0 {
			if w := d.unblock(Read, true); w != nil {
				list = append(list, w)
			}
		}
		if ev.Events&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
			if w := d.unblock(Write, true); w != nil {
				list = append(list, w)
			}
		}
	}
	p.mu.Unlock()
	if ms != 0 && p.next.Load() != 0 {
		list = p.runTimers(xsync.Nanotime(), list)
	}
	return list
}

// eventBuf holds the events of one Poll.
type eventBuf = [MaxEvents]unix.EpollEvent

// breakOne is the eventfd increment of a Break; it is only ever read.
var breakOne = [8]byte{1}

// getEvents returns a buffer for one Poll's events: Polls may run
// concurrently, and a buffer on the stack would escape to the heap
// through the system call.
func (p *Poller) getEvents() *eventBuf {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	if n := len(p.evbufs); n > 0 {
		b := p.evbufs[n-1]
		p.evbufs = p.evbufs[:n-1]
		return b
	}
	return new(eventBuf)
}

func (p *Poller) putEvents(b *eventBuf) {
	p.tmu.Lock()
	p.evbufs = append(p.evbufs, b)
	p.tmu.Unlock()
}

// breakPoll makes a blocked poll return (the runtime's
// netpollBreak). While one break is pending, others do nothing.
func (p *Poller) breakPoll() {
	if !p.wakeSig.Cas(0, 1) {
		return
	}
	// Under the table's lock, so that a Close in between cannot hand the
	// eventfd's number to another file.
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Load() != 0 {
		return
	}
	for {
		_, err := rawWrite(p.evfd, breakOne[:])
		if err == nil || err == unix.EAGAIN || err == unix.EBADF {
			p.breakHook()
			return
		}
		if err != unix.EINTR {
			panic(fmt.Sprintf("netpoll: writing the break eventfd failed: %v", err))
		}
	}
}

// close closes the epoll instance and the eventfd. Registered descriptors
// stay open; their waiters are not woken. Later polls return nothing and
// Register fails with [ErrClosed]. close must not be called while a poll
// blocks; break it first.
func (p *Poller) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed.Cas(0, 1) {
		return ErrClosed
	}
	err := p.closeWait()
	if err2 := unix.Close(p.evfd); err == nil {
		err = err2
	}
	return err
}
