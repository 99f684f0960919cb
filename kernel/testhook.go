package kernel

import (
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
)

// TestHookModel is an option for this module's explorer models of the
// scheduler's wakeup protocol: no monitor, so that its thread and its
// rounds add nothing to the schedules explored. (In a model the steal
// order's seed is fixed in any case.)
func TestHookModel(_ testhook.Key) Option {
	return func(k *Kernel) error {
		k.monitor = false
		return nil
	}
}

// Manual is a kernel without workers, driven by one goroutine, its caller,
// as its only M: each [Manual.Schedule] call runs findRunnable on a P the
// caller chooses and runs the task it finds, synchronously. It is for this
// module's tests, which check it step by step against spec.Scheduler. A
// Manual has no monitor, no steal pause, and never parks.
type Manual struct {
	k  *Kernel
	mp *m
}

// TestHookManual returns a [Manual] kernel of procs Ps.
func TestHookManual(_ testhook.Key, procs int, opts ...Option) (*Manual, error) {
	opts = append(opts, WithProcs(procs), WithStealPause(nil), func(k *Kernel) error {
		k.monitor, k.manual = false, true
		return nil
	})
	k, err := New(opts...)
	if err != nil {
		return nil, err
	}
	mp := &m{k: k, id: 1, gid: xsync.Getg()}
	k.lock.Lock()
	k.mcount++
	k.addm(mp)
	k.lock.Unlock()
	return &Manual{k: k, mp: mp}, nil
}

// Kernel returns the manual kernel, for Go and Stats.
func (mk *Manual) Kernel() *Kernel { return mk.k }

// Schedule runs findRunnable on P p with the steal randomness rand and, if
// it finds a task, runs it to the end of its function and carries out what
// it asked for. It reports whether a task ran and whether it inherited the
// time slice. It must be called by the goroutine that made the Manual, never
// from inside a task.
func (mk *Manual) Schedule(p int, rand func() uint32) (ran, inheritTime bool) {
	k, mp := mk.k, mk.mp
	if mp.gid != xsync.Getg() || mp.curg != nil {
		panic("kernel: Manual.Schedule from another goroutine or from inside a task")
	}
	mp.testRand = rand
	k.acquirep(mp, k.allp[p])
	defer func() {
		pp := mp.p
		pp.publish() // a manual kernel's Stats are exact after each step
		pp.m, mp.p = nil, nil
	}()
	gp, inheritTime := k.findRunnable(mp)
	if gp == nil {
		return false, false
	}
	if mp.spinning {
		mp.spinning = false
		k.nmspinning.Add(-1)
	}
	k.execute(mp, gp, inheritTime)
	return true, inheritTime
}

// Local returns the number of tasks in P p's local queue, runnext
// included.
func (mk *Manual) Local(p int) int { return mk.k.allp[p].runq.Len() }

// TestHookMonitorPoll is the monitor's netpoll for this module's explorer
// models, in most of which the monitor does not run: one pollFromMonitor,
// as if nobody had polled for pollMaxGap. It reports whether the poll woke
// a task.
func (k *Kernel) TestHookMonitorPoll(_ testhook.Key) bool {
	last := k.lastpoll.Load()
	if last == 0 {
		return false // an M blocks in the poller
	}
	return k.pollFromMonitor(last + int64(pollMaxGap))
}

// TestHookMonitorOutOfDeepSleep reports whether the monitor is not in its
// deep sleep (awake, about to run after a Wakeup, or in a timed round), for
// this module's explorer models.
func (k *Kernel) TestHookMonitorOutOfDeepSleep(_ testhook.Key) bool {
	mode := k.monMode.Load()
	return mode == monAwake || mode == monTimed
}
