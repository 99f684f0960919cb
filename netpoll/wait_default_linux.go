//go:build linux && !vsched_explore

package netpoll

import "golang.org/x/sys/unix"

// wait is epoll_wait for at most ms milliseconds (-1: no limit); see
// waitReal.
func (p *Poller) wait(events []unix.EpollEvent, ms int) (int, error) {
	return p.waitReal(events, ms)
}

// breakHook is what Break does after writing the eventfd: nothing here;
// the explorer build wakes a modelled sleeper.
func (p *Poller) breakHook() {}
