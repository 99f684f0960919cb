//go:build !linux

package netpoll

import (
	"fmt"
	"runtime"
	"time"
)

var errNoBackend = fmt.Errorf("netpoll: no poller backend for %s (only Linux's epoll so far): %w", runtime.GOOS, ErrUnsupported)

type waitFile struct{}

type eventBuf struct{}

// newPoller returns an error wrapping [ErrUnsupported]: this system has
// no poller backend yet.
func newPoller(ready func(*waiter)) (*Poller, error) { return nil, errNoBackend }

// Register fails on this system: it has no poller backend yet.
func (p *Poller) Register(fd int) (*Desc, error) { return nil, errNoBackend }

func (p *Poller) deregister(d *Desc) { p.unregister(d) }

// poll returns list unchanged on this system.
func (p *Poller) poll(delay time.Duration, list []*waiter) []*waiter { return list }

// breakPoll does nothing on this system.
func (p *Poller) breakPoll() {}

// close does nothing on this system.
func (p *Poller) close() error { return errNoBackend }
