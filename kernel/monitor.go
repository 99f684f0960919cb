package kernel

import (
	"github.com/vsched/vsched/internal/pollproto"
	"time"

	"github.com/vsched/vsched/internal/xsync"
)

// The monitor's sleep modes, in Kernel.monMode. Whoever moves it from a
// sleeping mode to monAwake owns the one Wakeup of monNote, unless it is
// the monitor itself taking back a sleep it announced, which it then does
// not sleep.
const (
	monAwake = iota
	monDeep  // asleep until a P starts running
	monTimed // asleep for its delay
)

// Stall describes a task that has run past the stall threshold without
// returning; see [WithStall].
type Stall struct {
	P       int           // the P it runs on
	Running time.Duration // how long it has run, as the monitor measured it
	// Kind is the task's kind (see [NewKind]), or nil if it was spawned
	// without one.
	Kind *Kind
}

// monitorState is what the monitor remembers between its rounds (the
// runtime's sysmontick per P).
type monitorState struct {
	ps      []monitorP
	pollBuf []*pollproto.Waiter
	pollG   []*g
}

type monitorP struct {
	ticks       uint64 // p.ticks at the last change the monitor saw
	tickWhen    int64  // when it saw schedtick change
	runWhen     int64  // when it saw runseq change
	reported    bool   // this run was reported as a stall
	syscalltick uint64
	syscallWhen int64
}

// sysmon is the monitor goroutine (the runtime's sysmon). While any P runs
// it wakes every 20 µs to 10 ms and retakes Ps from Ms stuck in Block,
// breaks runnext chains that hold a P for a whole time slice, reports
// stalled tasks, and polls the netpoller if nobody has for 10 ms. Its sleep
// doubles after monitorIdleRounds rounds that did none of this (a poll
// that found no I/O counts as none), and drops back to 20 µs after one
// that did. With every P idle and no M in Block for a whole round, in
// which no task ran, it sleeps until a P starts running, so an idle kernel
// uses no CPU. The round first is what keeps a kernel that goes idle and
// busy again many times a millisecond (one connection's request and
// reply) from waking the monitor each time: that wake cost a goroutine
// wakeup per request, and doubled one connection's p99 round trip. A
// deep sleep shorter than monitorRestartAfter leaves the back-off as it
// was; a longer one starts the monitor over at 20 µs. Differs from the
// runtime: DESIGN.md §3.4.
func (k *Kernel) sysmon() {
	delay, idle := monitorMinDelay, 0
	woke := false // the next timed round is the first after a deep sleep
	// The monitor saw the kernel quiet at its last look, with runs the
	// sum of the Ps' run counts then.
	quietBefore, quietRuns := false, uint64(0)
	k.forgetRuns(xsync.Nanotime())
	for {
		if k.state.Load() == stateStopped {
			k.lock.Lock()
			k.monitorRun = false
			k.maybeExitedLocked()
			k.lock.Unlock()
			return
		}
		quiet := k.quiet()
		if quiet {
			runs := k.runsSoFar()
			quiet = quietBefore && runs == quietRuns
			quietBefore, quietRuns = !quiet, runs
		} else {
			quietBefore = false
		}
		if quiet {
			k.monWokeDelay.Store(0)
			k.monMode.Store(monDeep)
			slept := xsync.Nanotime()
			// Look again after announcing the sleep: pidleget takes a P,
			// and a stop stores the state, before looking at monMode, so
			// one of the two sides sees the other. Taking the sleep back
			// counts as a deep sleep that ended at once.
			if !((k.state.Load() == stateStopped || !k.quiet()) && k.monMode.Cas(monDeep, monAwake)) {
				k.monNote.Sleep()
			}
			now := xsync.Nanotime()
			if now-slept >= int64(k.monRestart) {
				delay, idle = monitorMinDelay, 0
			}
			k.forgetRuns(now)
			woke = true
			continue
		}
		if idle > monitorIdleRounds {
			delay = min(2*delay, monitorMaxDelay)
		} else {
			delay = monitorMinDelay
		}
		k.monDelay.Store(int64(delay))
		if woke {
			k.monWokeDelay.Store(int64(delay))
			woke = false
		}
		k.monMode.Store(monTimed)
		// Look at the state again after announcing the sleep, as before
		// the deep sleep: a stop stores the state before it looks at
		// monMode, so one of the two sides sees the other. A stop that
		// found monAwake sent no Wakeup, and without this look Shutdown
		// waited for the round's timeout, up to monitorMaxDelay.
		if k.state.Load() == stateStopped && k.monMode.Cas(monTimed, monAwake) {
			continue
		}
		if !k.monNote.SleepFor(delay) && !k.monMode.Cas(monTimed, monAwake) {
			// Somebody took the sleep over and is waking us: consume
			// that wakeup, so that the note is clean.
			k.monNote.Sleep()
		}
		now := xsync.Nanotime()
		// Retake Ps, and poll if nobody has for pollMaxGap, so that a
		// kernel whose Ps are all busy still sees I/O.
		if k.retake(now) || k.pollFromMonitor(now) {
			idle = 0
		} else {
			idle++
		}
	}
}

// runsSoFar is the sum of the Ps' run counts (p.ticks' runseq), which
// changes whenever a task ran since the monitor last looked (a sum that
// came back to the same value would need 2^32 runs in one round).
func (k *Kernel) runsSoFar() uint64 {
	var n uint64
	for _, pp := range k.allp {
		n += pp.ticks.Load() >> 32
	}
	return n
}

// forgetRuns makes the monitor take what each P runs next as a new run,
// measured from now: after its deep sleep, what it remembered of the Ps is
// old, and a P that started running meanwhile would otherwise look as if
// one task had run the whole time.
func (k *Kernel) forgetRuns(now int64) {
	for i := range k.mon.ps {
		k.forgetRun(i, now)
	}
}

// forgetRun is forgetRuns for P i, also done whenever the monitor finds it
// idle: no task runs there, so none is stalled.
func (k *Kernel) forgetRun(i int, now int64) {
	s := &k.mon.ps[i]
	s.ticks = k.allp[i].ticks.Load()
	s.runWhen, s.tickWhen, s.reported = now, now, false
}

// quiet reports whether there is nothing for the monitor to watch.
func (k *Kernel) quiet() bool {
	return int(k.npidle.Load()) == k.procs && k.nmsys.Load() == 0
}

// retake is one round of the monitor over the Ps (the runtime's retake).
// It reports whether it did anything. Executed only by the monitor.
// Differs from the runtime: DESIGN.md §3.1 and §3.4.
func (k *Kernel) retake(now int64) bool {
	did := false
	for i, pp := range k.allp {
		s := &k.mon.ps[i]
		switch pp.status.Load() {
		case pSyscall:
			s.runWhen = now // time in Block is not a stall
			t := pp.syscalltick.Load()
			if s.syscalltick != t {
				s.syscalltick, s.syscallWhen = t, now
				continue
			}
			// Leave the P with its M if it has no work queued, other Ms
			// look for work elsewhere, no M back from Block waits for a
			// P, and the Block is young.
			if pp.runq.Empty() && k.nmspinning.Load()+k.npidle.Load() > 0 && k.nsyswait.Load() == 0 &&
				now-s.syscallWhen < int64(forcePreempt) {
				continue
			}
			if pp.status.Cas(pSyscall, pIdle) {
				k.handoffs.Add(1)
				k.handoffp(pp)
				did = true
			}
		case pIdle:
			k.forgetRun(i, now)
		case pRunning:
			ticks := pp.ticks.Load()
			if uint32(ticks) != uint32(s.ticks) {
				s.tickWhen = now
				if pp.preempt.Load() != 0 {
					pp.preempt.Store(0) // a new time slice began
				}
			} else if now-s.tickWhen >= int64(forcePreempt) {
				// One time slice for a whole runnext chain: break it.
				pp.preempt.Store(1)
				s.tickWhen = now
				did = true
			}
			if ticks>>32 != s.ticks>>32 {
				s.runWhen, s.reported = now, false
			} else if !s.reported && now-s.runWhen >= int64(k.stallThreshold) {
				s.reported = true
				k.stalls.Add(1)
				if k.stallHook != nil {
					k.stallHook(Stall{P: i, Running: time.Duration(now - s.runWhen), Kind: pp.kind.Load()})
				}
				did = true
			}
			s.ticks = ticks
		}
	}
	return did
}
