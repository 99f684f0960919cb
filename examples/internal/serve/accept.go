package serve

import (
	"errors"
	"log"
	"syscall"
	"time"

	"github.com/vsched/vsched/netpoll"
)

// An Option configures a server made by [Kernel] or [Net].
type Option func(*config)

type config struct {
	maxConns int
	refusal  []byte
	logf     func(format string, args ...any)
}

func newConfig(opts []Option) config {
	c := config{logf: log.Printf}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// WithMaxConns sets the most connections served at once (Redis's
// maxclients); n <= 0, the default, means no limit. A client over the
// limit is sent the refusal ([WithRefusal]) and closed, so that a server
// under a descriptor limit refuses clients instead of running out of
// descriptors and failing its accepts.
func WithMaxConns(n int) Option { return func(c *config) { c.maxConns = n } }

// WithRefusal sets what a client over the connection limit is sent before
// it is closed: the protocol's error reply. The default sends nothing.
func WithRefusal(msg []byte) Option { return func(c *config) { c.refusal = msg } }

// WithLogf sets the server's logger; the default is log.Printf. The server
// logs what stops or pauses its accepting.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(c *config) { c.logf = logf }
}

// A connection whose session is closing (its protocol error's reply is
// written) lingers: the server shuts its side down and discards what the
// client still sends, for at most lingerTime and lingerBytes, before it
// closes, so that a client in the middle of a large write gets the reply
// rather than a reset (an HTTP server's lingering close).
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 64 << 20
)

// The back-off after an accept that failed for want of a resource: net/http's,
// 5 ms doubling up to 1 s.
const (
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// temporary reports whether an accept failed for want of a resource
// (descriptors, buffers, memory): the listener is fine, and accepting works
// again once the resource frees.
func temporary(err error) bool {
	return errors.Is(err, netpoll.ErrTemporary) ||
		errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM)
}

// backoff is the accept loop's state between failures: the delay before
// the next try, 0 while accepting works.
type backoff struct {
	delay time.Duration
}

// failed records a temporary failure, logging the first of a run of them,
// and returns how long to wait before trying again.
func (b *backoff) failed(name string, logf func(string, ...any), err error) time.Duration {
	if b.delay == 0 {
		logf("%s: accepting: %v; retrying, %v to %v apart, until it works", name, err, minBackoff, maxBackoff)
		b.delay = minBackoff
	} else {
		b.delay = min(2*b.delay, maxBackoff)
	}
	return b.delay
}

// succeeded records an accept that worked, logging the end of a run of
// failures.
func (b *backoff) succeeded(name string, logf func(string, ...any)) {
	if b.delay != 0 {
		logf("%s: accepting again", name)
		b.delay = 0
	}
}
