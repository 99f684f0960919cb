package xsync

import "time"

// sleepFor is the channel-and-timer body of Note.SleepFor, the same in both
// builds (the explorer build does not model time).
func (n *Note) sleepFor(d time.Duration) bool {
	n.init()
	if n.timer == nil {
		n.timer = time.NewTimer(d)
	} else {
		n.timer.Reset(d)
	}
	select {
	case <-n.ch:
		n.timer.Stop()
		return true
	case <-n.timer.C:
		return false
	}
}
