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

// New returns an error wrapping [ErrUnsupported]: this system has no
// poller backend yet.
func New(ready func(*Waiter)) (*Poller, error) { return nil, errNoBackend }

// Register fails on this system; see [New].
func (p *Poller) Register(fd int) (*Desc, error) { return nil, errNoBackend }

func (p *Poller) deregister(d *Desc) { p.unregister(d) }

// Poll returns list unchanged on this system; see [New].
func (p *Poller) Poll(delay time.Duration, list []*Waiter) []*Waiter { return list }

// Break does nothing on this system; see [New].
func (p *Poller) Break() {}

// Close does nothing on this system; see [New].
func (p *Poller) Close() error { return errNoBackend }
