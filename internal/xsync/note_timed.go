package xsync

import (
	"runtime"
	"time"
)

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

// spinSleep is the body of Note.SpinSleep, the same in both builds outside
// a model.
func (n *Note) spinSleep(d time.Duration) {
	n.init()
	if d > 0 && n.spin(d) {
		return
	}
	<-n.ch
}

// spin is the first part of spinSleep: it looks for a Wakeup until d has passed, yielding the thread to
// other goroutines between looks, and reports whether it consumed one.
func (n *Note) spin(d time.Duration) bool {
	end := Nanotime() + int64(d)
	for {
		select {
		case <-n.ch:
			return true
		default:
		}
		if Nanotime() >= end {
			return false
		}
		runtime.Gosched()
	}
}
