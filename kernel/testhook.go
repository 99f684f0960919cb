package kernel

import (
	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
)

// The test hooks of internal/testhook; their docs are there.
func init() {
	testhook.KernelModel = Option(func(k *Kernel) error {
		k.monitor = false // in a model the steal order's seed is fixed in any case
		return nil
	})
	testhook.NewManual = func(procs int) (testhook.Manual, error) { return newManual(procs) }
	testhook.MonitorPoll = func(k any) bool { return k.(*Kernel).monitorPollNow() }
	testhook.MonitorOutOfDeepSleep = func(k any) bool { return k.(*Kernel).monitorOutOfDeepSleep() }
	testhook.GroupStateOf = func(g any) testhook.GroupState { return g.(*Group).state() }
}

// state reads g's state for testhook.GroupStateOf.
func (g *Group) state() testhook.GroupState {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := testhook.GroupState{Pending: g.pending.Load() & pendingMask, Limited: g.pending.Load()&pendingLimited != 0, Err: g.errLocked()}
	if g.joinThen != nil {
		st.Joins++
	}
	if m := g.groupMore; m != nil {
		st.Active, st.Queued, st.Waiters = m.active, len(m.queue)-m.qhead, len(m.waiters)
		st.RoomWaiters = len(m.roomWaiters)
		st.Joins += len(m.joins)
	}
	return st
}

// manual is testhook.Manual: a kernel without workers, driven by its
// caller as its only M.
type manual struct {
	k  *Kernel
	mp *m
}

func newManual(procs int) (*manual, error) {
	k, err := New(WithProcs(procs), WithStealPause(nil), func(k *Kernel) error {
		k.monitor, k.manual = false, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	mp := &m{k: k, id: 1, gid: xsync.Getg()}
	k.lock.Lock()
	k.mcount++
	k.addm(mp)
	k.lock.Unlock()
	return &manual{k: k, mp: mp}, nil
}

func (mk *manual) Kernel() any { return mk.k }

func (mk *manual) Schedule(p int, rand func() uint32) (ran, inheritTime bool) {
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

func (mk *manual) Local(p int) int { return mk.k.allp[p].runq.Len() }

// monitorPollNow is one pollFromMonitor, as if nobody had polled for
// pollMaxGap.
func (k *Kernel) monitorPollNow() bool {
	last := k.lastpoll.Load()
	if last == 0 {
		return false // an M blocks in the poller
	}
	return k.pollFromMonitor(last + int64(pollMaxGap))
}

func (k *Kernel) monitorOutOfDeepSleep() bool {
	mode := k.monMode.Load()
	return mode == monAwake || mode == monTimed
}
