package netpoll

import (
	"time"

	"github.com/vsched/vsched/internal/pollproto"
)

// The scheduler's side of the package, exported to its own tests, which
// drive a Poller by hand where the kernel would.

type Waiter = pollproto.Waiter

func NewWaiter(task any) *Waiter { return pollproto.NewWaiter(task) }

func New(ready func(*Waiter)) (*Poller, error) { return newPoller(ready) }

func (p *Poller) Poll(delay time.Duration, list []*Waiter) []*Waiter {
	return p.poll(delay, list)
}
func (p *Poller) Expire(list []*Waiter) []*Waiter { return p.expire(list) }
func (p *Poller) Break()                          { p.breakPoll() }
func (p *Poller) Close() error                    { return p.close() }

func (d *Desc) PrepareWait(mode Mode) (bool, error)   { return d.prepareWait(mode) }
func (d *Desc) CommitWait(mode Mode, w *Waiter) bool  { return d.commitWait(mode, w) }
func (d *Desc) FinishWait(mode Mode, w *Waiter) error { return d.finishWait(mode, w) }
func (d *Desc) CancelWait(mode Mode)                  { d.cancelWait(mode) }

// Sleeping reports whether a Poll that may block has taken the time it
// sleeps towards (sleepStart) and has not returned.
func (p *Poller) Sleeping() bool {
	p.tmu.Lock()
	defer p.tmu.Unlock()
	return p.sleepUntil != 0
}
