//go:build linux && vsched_explore

package netpoll

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/internal/explorer"
)

// wait is epoll_wait as a model sees it. The epoll instance is real, but a
// goroutine blocked in epoll_wait would be invisible to the explorer, so a
// wait that may block polls without blocking and, finding nothing, sleeps
// on a note until a Break. A model in which readiness must end a blocked
// wait models the operating system's wakeup with a Break after the write.
// A wait with a timeout (the next deadline, or the caller's delay) is a
// timed sleep on the note: the explorer ends it by its timeout wherever
// the search allows one (explore.Config.Timeouts), moving the model's
// clock on to the deadline, and Poll then fires the timers that are due.
func (p *Poller) wait(events []unix.EpollEvent, ms int) (int, error) {
	if !explorer.Active() {
		return p.waitReal(events, ms) // a test outside a model
	}
	n, err := unix.EpollWait(p.epfd, events, 0)
	if n > 0 || err != nil || ms == 0 {
		return n, err
	}
	// Announce the sleep, then look for a break that came first: of the
	// sleeper and the breaker, whoever moves sleeping from 1 to 0 owns
	// the note's one wakeup.
	p.sleeping.Store(1)
	if p.wakeSig.Load() != 0 && p.sleeping.Cas(1, 0) {
		return unix.EpollWait(p.epfd, events, 0)
	}
	if ms < 0 {
		p.note.Sleep()
	} else if !p.note.SleepFor(time.Duration(ms)*time.Millisecond) && !p.sleeping.Cas(1, 0) {
		// The timeout came, but a breaker took the sleep back first:
		// its wakeup is on the way, and the note must be empty for the
		// next sleep.
		p.note.Sleep()
	}
	return unix.EpollWait(p.epfd, events, 0)
}

// breakHook wakes a wait that sleeps on the note.
func (p *Poller) breakHook() {
	if p.sleeping.Cas(1, 0) {
		p.note.Wakeup()
	}
}
