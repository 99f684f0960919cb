//go:build vsched_explore

package explore_test

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/internal/xsync"
)

// The litmus tests check the explorer itself: tokio once shipped queue bugs
// because its model checker had one. Each known-bad model must be reported
// with the right kind of failure, and each correct one must pass.

// mustFail explores model and returns its failure, failing t unless there is
// one of the given kind.
func mustFail(t *testing.T, cfg explore.Config, kind string, model func()) *explore.Failure {
	t.Helper()
	res, err := explore.Run(cfg, model)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatalf("the explorer found no failure in %s; want a %s", explore.Summary(res), kind)
	}
	if res.Failure.Kind != kind {
		t.Fatalf("the explorer reported a %s, want a %s:\n%v", res.Failure.Kind, kind, res.Failure)
	}
	t.Logf("found as expected after %d executions:\n%v", res.Executions, res.Failure)
	return res.Failure
}

// lostUpdate increments a counter from two threads with a load and a store,
// which is not atomic.
func lostUpdate() {
	var n xsync.Int32
	inc := func() { n.Store(n.Load() + 1) }
	th := explore.Go(inc)
	inc()
	th.Join()
	explore.Assertf(n.Load() == 2, "counter is %d after two increments", n.Load())
}

func TestLitmusLostUpdateIsFound(t *testing.T) {
	f := mustFail(t, explore.Config{}, "panic", lostUpdate)
	if !strings.Contains(f.Message, "counter is 1 after two increments") {
		t.Fatalf("the failure does not name the lost update:\n%v", f)
	}
	// The trace shows both threads' loads and stores with their values.
	report := f.Error()
	for _, want := range []string{"VSCHED_REPLAY=", "T0 Load", "T1 Load", "T1 Store", "→ 0", "0 ⇒ 1", "litmus_test.go", "n.Store(n.Load() + 1)"} {
		if !strings.Contains(report, want) {
			t.Fatalf("the report lacks %q:\n%s", want, report)
		}
	}
}

func TestLitmusReplayRunsExactlyTheReportedExecution(t *testing.T) {
	f := mustFail(t, explore.Config{}, "panic", lostUpdate)
	res, err := explore.Run(explore.Config{Replay: f.Schedule}, lostUpdate)
	if err != nil {
		t.Fatal(err)
	}
	if res.Executions != 1 || res.Failure == nil || res.Failure.Message != f.Message {
		t.Fatalf("replaying %q: %d executions, failure %v; want the one failure %q", f.Schedule, res.Executions, res.Failure, f.Message)
	}
	if len(res.Failure.Trace) != len(f.Trace) {
		t.Fatalf("the replay took %d steps, the reported execution %d", len(res.Failure.Trace), len(f.Trace))
	}
	// A schedule that does not fit the model is an error, not a pass.
	if _, err := explore.Run(explore.Config{Replay: "0,5"}, lostUpdate); err == nil {
		t.Fatal("a schedule choosing a thread that does not exist replayed without error")
	}
}

func TestLitmusAtomicAddNeverLosesAnUpdate(t *testing.T) {
	res := explore.Check(t, func() {
		var n xsync.Int32
		th := explore.Go(func() { n.Add(1) })
		n.Add(1)
		th.Join()
		explore.Assertf(n.Load() == 2, "counter is %d", n.Load())
	})
	if res.Executions < 2 {
		t.Fatalf("explored %d executions, want both orders of the two adds", res.Executions)
	}
}

// storeBuffering is Dekker's pattern: under sequential consistency at least
// one thread sees the other's store.
func storeBuffering(seen map[[2]int32]bool) func() {
	return func() {
		var x, y xsync.Int32
		var r1, r2 int32
		th := explore.Go(func() {
			y.Store(1)
			r2 = x.Load()
		})
		x.Store(1)
		r1 = y.Load()
		th.Join()
		seen[[2]int32{r1, r2}] = true
		explore.Assertf(r1 == 1 || r2 == 1, "both threads read 0: not sequentially consistent")
	}
}

func TestLitmusStoreBufferingNeverShowsBothZero(t *testing.T) {
	for _, cfg := range []explore.Config{{}, {NoReduction: true}, {MaxPreemptions: explore.Unbounded}} {
		seen := map[[2]int32]bool{}
		res := cfg.Check(t, storeBuffering(seen))
		// Every outcome sequential consistency allows must show up, or
		// the explorer is not exploring.
		for _, want := range [][2]int32{{0, 1}, {1, 0}, {1, 1}} {
			if !seen[want] {
				t.Fatalf("%+v: outcome r1=%d r2=%d never explored (%s); seen %v", cfg, want[0], want[1], explore.Summary(res), seen)
			}
		}
	}
}

func TestLitmusMutexProtectedCounterIsExact(t *testing.T) {
	const threads, incs = 3, 2
	explore.Check(t, func() {
		var mu xsync.Mutex
		n := 0 // plain memory, guarded by mu
		inc := func() {
			for range incs {
				mu.Lock()
				n++
				mu.Unlock()
			}
		}
		var ths []*explore.Thread
		for range threads - 1 {
			ths = append(ths, explore.Go(inc))
		}
		inc()
		for _, th := range ths {
			th.Join()
		}
		explore.Assertf(n == threads*incs, "counter %d, want %d", n, threads*incs)
	})
}

func TestLitmusCounterWithLoadStoreInsideAndOutsideTheMutexIsFound(t *testing.T) {
	// One thread takes the lock, the other forgets it: the update is lost.
	mustFail(t, explore.Config{}, "panic", func() {
		var mu xsync.Mutex
		var n xsync.Int32
		th := explore.Go(func() { n.Store(n.Load() + 1) })
		mu.Lock()
		n.Store(n.Load() + 1)
		mu.Unlock()
		th.Join()
		explore.Assertf(n.Load() == 2, "counter is %d", n.Load())
	})
}

// checkThenPark is the waiting protocol of an idle worker: the sleeper
// parks unless work is there, the waker publishes work and wakes a
// registered sleeper. Without the recheck after registering, a wakeup is
// lost.
func checkThenPark(recheck bool) func() {
	return func() {
		var work, waiting xsync.Int32
		var note xsync.Note
		waker := explore.Go(func() {
			work.Store(1)
			if waiting.Load() == 1 {
				note.Wakeup()
			}
		})
		if recheck {
			waiting.Store(1)
			if work.Load() == 0 {
				note.Sleep()
			}
		} else if work.Load() == 0 {
			waiting.Store(1)
			note.Sleep()
		}
		waker.Join()
	}
}

func TestLitmusCheckThenParkWithoutRecheckIsADeadlock(t *testing.T) {
	f := mustFail(t, explore.Config{}, "deadlock", checkThenPark(false))
	if !strings.Contains(f.Message, "sleeps on note") {
		t.Fatalf("the deadlock report does not name the sleeping thread:\n%v", f)
	}
}

func TestLitmusCheckThenParkWithRecheckNeverLosesTheWakeup(t *testing.T) {
	explore.Check(t, checkThenPark(true))
}

func TestLitmusSpinOnAFlagNobodySetsIsALivelock(t *testing.T) {
	mustFail(t, explore.Config{MaxSteps: 200}, "livelock", func() {
		var flag xsync.Int32
		th := explore.Go(func() {
			for flag.Load() == 0 {
				xsync.Spin()
			}
		})
		th.Join()
	})
}

func TestLitmusSpinUntilAnotherThreadSetsTheFlagTerminates(t *testing.T) {
	explore.Check(t, func() {
		var flag xsync.Int32
		th := explore.Go(func() {
			for flag.Load() == 0 {
				xsync.Spin()
			}
		})
		flag.Store(1)
		th.Join()
	})
}

// A switch away from a thread that spins is free: it does not count
// against the preemption bound. The spinner's count reaches 3 when it
// spins before the setter exists and again after, then once more between
// the setter's two stores (the one preemption of bound 1, back into the
// spinner after the first); charged for the switches away from the
// spinner too, the counts above 1 would take more than one.
func TestLitmusSwitchingAwayFromASpinnerIsFree(t *testing.T) {
	seen := map[int]bool{}
	explore.Config{MaxPreemptions: 1}.Check(t, func() {
		var flag xsync.Int32
		spins := 0
		spinner := explore.Go(func() {
			for flag.Load() < 2 {
				spins++
				xsync.Spin()
			}
		})
		setter := explore.Go(func() {
			flag.Store(1)
			flag.Store(2)
		})
		spinner.Join()
		setter.Join()
		seen[spins] = true
	})
	if want := map[int]bool{0: true, 1: true, 2: true, 3: true}; !maps.Equal(seen, want) {
		t.Fatalf("spins seen at bound 1: %v, want %v", seen, want)
	}
}

func TestLitmusPanicInAThreadIsReported(t *testing.T) {
	f := mustFail(t, explore.Config{}, "panic", func() {
		var x xsync.Int32
		th := explore.Go(func() {
			if x.Load() == 1 {
				panic("thread saw the store")
			}
		})
		x.Store(1)
		th.Join()
	})
	if f.Thread != 1 || !strings.Contains(f.Message, "thread saw the store") {
		t.Fatalf("want T1's panic, got:\n%v", f)
	}
}

func TestLitmusNondeterministicModelIsReported(t *testing.T) {
	runs := 0
	mustFail(t, explore.Config{}, "nondeterminism", func() {
		runs++
		var x xsync.Int32
		th := explore.Go(func() { x.Store(1) })
		if runs > 1 {
			// A second thread appears only in later runs.
			explore.Go(func() { x.Store(2) }).Join()
		}
		x.Load()
		th.Join()
	})
}

// threePreemptions fails only where T0 sees T1's first store and then its
// second before the third: the threads alternate three times while T1
// still has work left.
func threePreemptions() {
	var a xsync.Int32
	th := explore.Go(func() {
		a.Store(1)
		a.Store(2)
		a.Store(3)
	})
	first := a.Load()
	second := a.Load()
	th.Join()
	explore.Assertf(first != 1 || second != 2, "saw both stores one at a time")
}

// TestLitmusPreemptionBoundIsRespected needs three preemptions to fail: T0
// must see T1's first store and then its second before the third, so the
// threads alternate three times while T1 still has work left. A bound of 2
// must pass it, and a bound of 3 must find it.
func TestLitmusPreemptionBoundIsRespected(t *testing.T) {
	model := threePreemptions
	if res := (explore.Config{MaxPreemptions: 2}).Check(t, model); !res.Complete {
		t.Fatalf("bound 2 did not complete: %s", explore.Summary(res))
	}
	f := mustFail(t, explore.Config{MaxPreemptions: 3}, "panic", model)
	if f.Preemptions != 3 {
		t.Fatalf("the failing schedule has %d preemptions, want 3", f.Preemptions)
	}
	mustFail(t, explore.Config{MaxPreemptions: explore.Unbounded}, "panic", model)
}

func TestLitmusSleepSetsPruneIndependentOrders(t *testing.T) {
	// Three threads each touch their own address: every order is
	// equivalent, and sleep sets should explore far fewer of them.
	model := func() {
		var a, b, c xsync.Int32
		t1 := explore.Go(func() { a.Store(1); a.Store(2) })
		t2 := explore.Go(func() { b.Store(1); b.Store(2) })
		c.Store(1)
		c.Store(2)
		t1.Join()
		t2.Join()
	}
	full := explore.Config{NoReduction: true, MaxPreemptions: explore.Unbounded}.Check(t, model)
	reduced := explore.Config{MaxPreemptions: explore.Unbounded}.Check(t, model)
	if reduced.Executions*4 > full.Executions {
		t.Fatalf("sleep sets explored %d executions of %d; want a reduction of at least 4x", reduced.Executions, full.Executions)
	}
}

// TestLitmusDeferredUnlockOfALeavingThreadIsHarmless: a thread that is
// stopped because its execution ended (pruned, or another thread failed)
// runs its deferred calls; an Unlock among them must not touch the next
// execution or the search.
func TestLitmusDeferredUnlockOfALeavingThreadIsHarmless(t *testing.T) {
	for range 20 {
		explore.Config{MaxSteps: 50}.Check(t, func() {
			var mu xsync.Mutex
			var flag xsync.Int32
			th := explore.Go(func() {
				mu.Lock()
				defer mu.Unlock()
				for flag.Load() == 0 {
					xsync.Spin()
				}
			})
			flag.Store(1)
			th.Join()
		})
	}
}

func TestLitmusReplayCountsPreemptionsAndRejectsALongerSchedule(t *testing.T) {
	model := threePreemptions
	f := mustFail(t, explore.Config{MaxPreemptions: 3}, "panic", model)
	res, err := explore.Run(explore.Config{Replay: f.Schedule}, model)
	if err != nil || res.Failure == nil {
		t.Fatalf("replay: %v, %v", err, res.Failure)
	}
	if res.Failure.Preemptions != f.Preemptions {
		t.Fatalf("the replay counted %d preemptions, the search %d", res.Failure.Preemptions, f.Preemptions)
	}
	if _, err := explore.Run(explore.Config{Replay: f.Schedule + ",0:5"}, model); err == nil {
		t.Fatal("a schedule longer than its execution replayed without error")
	}
}

func TestLitmusGoexitInAModelIsNamed(t *testing.T) {
	f := mustFail(t, explore.Config{}, "panic", func() {
		explore.Go(func() { runtime.Goexit() }).Join()
	})
	if !strings.Contains(f.Message, "runtime.Goexit") {
		t.Fatalf("a Goexit was reported as %q", f.Message)
	}
}

// timedSleep: a thread sleeps on a note with a timeout while another may
// wake it; seen collects how the sleep ended and how far the clock moved
// (each reading of the clock moves it on by 1 ns).
func timedSleep(seen map[string]bool, wake bool) func() {
	return func() {
		var n xsync.Note
		var how string
		th := explore.Go(func() {
			start := xsync.Nanotime()
			woken := n.SleepFor(5 * time.Millisecond)
			how = fmt.Sprintf("woken=%v after %v", woken, time.Duration(xsync.Nanotime()-start))
		})
		if wake {
			n.Wakeup()
		}
		th.Join()
		seen[how] = true
	}
}

// In a model, Now and Until read the clock that timeouts move, as Nanotime
// does: a deadline set 5 ms ahead has passed once a sleep of 5 ms has
// ended by its timeout.
func TestLitmusNowAndUntilReadTheClockThatTimeoutsMove(t *testing.T) {
	seen := map[string]bool{}
	explore.Config{Timeouts: 1}.Check(t, func() {
		var n xsync.Note
		deadline := xsync.Now().Add(5 * time.Millisecond)
		woken := n.SleepFor(5 * time.Millisecond) // nobody wakes it
		seen[fmt.Sprintf("woken=%v passed=%v", woken, xsync.Until(deadline) <= 0)] = true
	})
	if want := map[string]bool{"woken=false passed=true": true}; !maps.Equal(seen, want) {
		t.Fatalf("outcomes %v, want %v", seen, want)
	}
}

func TestLitmusTimeoutsEndATimedSleepAndMoveTheClock(t *testing.T) {
	seen := map[string]bool{}
	explore.Config{Timeouts: 1}.Check(t, timedSleep(seen, true))
	want := map[string]bool{"woken=true after 1ns": true, "woken=false after 5.000001ms": true}
	if !maps.Equal(seen, want) {
		t.Fatalf("outcomes %v, want %v", seen, want)
	}
	// Without a timeout, the sleep ends only by the wakeup.
	clear(seen)
	explore.Check(t, timedSleep(seen, true))
	if want := map[string]bool{"woken=true after 1ns": true}; !maps.Equal(seen, want) {
		t.Fatalf("outcomes without timeouts %v, want %v", seen, want)
	}
	// With nobody to wake it and time passing, it ends by its timeout.
	clear(seen)
	explore.Config{Timeouts: 1}.Check(t, timedSleep(seen, false))
	if want := map[string]bool{"woken=false after 5.000001ms": true}; !maps.Equal(seen, want) {
		t.Fatalf("outcomes with nobody to wake the sleeper %v, want %v", seen, want)
	}
	// With nobody to wake it and time not passing, it is a deadlock.
	f := mustFail(t, explore.Config{}, "deadlock", timedSleep(map[string]bool{}, false))
	if !strings.Contains(f.Message, "time does not pass") {
		t.Fatalf("the deadlock does not say that time does not pass:\n%v", f)
	}
}

// A timeout taken while every other thread is blocked is free: it does
// not spend Config.Timeouts. The sleeper's first sleep ends that way (the
// main thread waits for it), so the budget of one is still there for its
// second sleep to end by its timeout before the main thread's wakeup,
// while the main thread could step.
func TestLitmusATimeoutWhileAllOthersAreBlockedSpendsNoBudget(t *testing.T) {
	seen := map[string]bool{}
	explore.Config{Timeouts: 1}.Check(t, func() {
		var first, ready, second xsync.Note
		var how string
		th := explore.Go(func() {
			first.SleepFor(time.Millisecond) // nobody wakes it: time passes
			ready.Wakeup()
			how = fmt.Sprintf("second sleep woken=%v", second.SleepFor(time.Millisecond))
		})
		ready.Sleep()
		second.Wakeup()
		th.Join()
		seen[how] = true
	})
	want := map[string]bool{"second sleep woken=true": true, "second sleep woken=false": true}
	if !maps.Equal(seen, want) {
		t.Fatalf("outcomes %v, want %v", seen, want)
	}
}

// A thread that sleeps with a timeout, round after round, while every
// other thread waits for a wakeup nobody sends is a deadlock once a few
// rounds in a row woke nobody, however many timeouts the budget has.
func TestLitmusTimedRoundsThatWakeNobodyAreADeadlock(t *testing.T) {
	f := mustFail(t, explore.Config{Timeouts: 5}, "deadlock", func() {
		var never, tick xsync.Note
		explore.Go(func() {
			for {
				tick.SleepFor(time.Millisecond)
			}
		})
		never.Sleep()
	})
	if !strings.Contains(f.Message, "in a row woke nobody") {
		t.Fatalf("the deadlock does not name the timed rounds:\n%v", f)
	}
}

func TestLitmusCleanupRunsOnceAfterEveryExecutionHoweverItEnded(t *testing.T) {
	cleanups := 0
	res, err := explore.Run(explore.Config{MaxPreemptions: 1}, func() {
		explore.Cleanup(func() {
			explore.Assertf(!xsync.InModel(), "a cleanup ran inside the model")
			cleanups++
		})
		lostUpdate()
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failure == nil {
		t.Fatal("the lost update was not found")
	}
	// Finished, pruned and failed executions, and the traced replay of
	// the failure.
	if want := res.Executions + res.Pruned + 1; cleanups != want {
		t.Fatalf("%d cleanups ran, want one per execution: %d", cleanups, want)
	}
}

// recordingT is a testing.TB that records failures instead of stopping.
type recordingT struct {
	testing.TB
	failures []string
}

func (r *recordingT) Helper()                         {}
func (r *recordingT) Name() string                    { return r.TB.Name() }
func (r *recordingT) Logf(format string, args ...any) {}
func (r *recordingT) Fatal(args ...any)               { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recordingT) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

// Check must report a model that leaks a descriptor per execution, and
// say CAPPED for a search stopped by the cap it was given.
func TestCheckReportsLeaksAndSaysCapped(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descriptors are counted from /proc/self/fd")
	}
	var fds []*os.File
	t.Cleanup(func() {
		for _, f := range fds {
			f.Close()
		}
	})
	rt := &recordingT{TB: t}
	explore.Config{MaxPreemptions: 1}.Check(rt, func() {
		r, w, err := os.Pipe()
		if err != nil {
			panic(err)
		}
		fds = append(fds, r, w)
		lostUpdateFixed()
	})
	if len(rt.failures) != 1 || !strings.Contains(rt.failures[0], "open descriptors") {
		t.Fatalf("a model that leaks a pipe per execution was reported as %q", rt.failures)
	}

	rt = &recordingT{TB: t}
	explore.Config{MaxPreemptions: explore.Unbounded}.Check(rt, manySchedules)
	if len(rt.failures) != 0 {
		t.Fatalf("a search that completed failed: %q", rt.failures)
	}
	res := explore.Config{MaxPreemptions: explore.Unbounded, MaxExecutions: 2}.Check(rt, manySchedules)
	if len(rt.failures) != 0 || res.Capped != "executions" || !strings.HasPrefix(explore.Summary(res), "CAPPED") {
		t.Fatalf("a search capped as asked: failures %q, %s", rt.failures, explore.Summary(res))
	}
}

// A model whose first execution opens a descriptor that no execution
// closes leaves one open over the whole exploration: Check must report
// that one too.
func TestCheckReportsOneDescriptorLeftOpen(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("descriptors are counted from /proc/self/fd")
	}
	var f *os.File
	t.Cleanup(func() {
		if f != nil {
			f.Close()
		}
	})
	rt := &recordingT{TB: t}
	explore.Config{MaxPreemptions: 1}.Check(rt, func() {
		if f == nil {
			var err error
			if f, err = os.Open(os.DevNull); err != nil {
				panic(err)
			}
		}
		lostUpdateFixed()
	})
	if len(rt.failures) != 1 || !strings.Contains(rt.failures[0], "1 open descriptors (") {
		t.Fatalf("a model that leaves one descriptor open was reported as %q", rt.failures)
	}
}

// Check must fail a test whose exploration found a deadlock, not only one
// that found a panic: a lost wakeup ends in a deadlock, not a panic.
func TestCheckFailsOnADeadlock(t *testing.T) {
	rt := &recordingT{TB: t}
	explore.Config{MaxPreemptions: 1}.Check(rt, func() {
		var n xsync.Note
		n.Sleep() // no thread wakes it
	})
	if len(rt.failures) != 1 || !strings.Contains(rt.failures[0], "deadlock") {
		t.Fatalf("a model that sleeps for ever was reported as %q", rt.failures)
	}
}

// Check must fail a search that stopped at the default cap, which its
// caller did not ask for: the test stands for the complete search. The
// result is a real search's, capped at 2 executions and marked as the
// default cap's (10,000,000 executions take too long for a test).
func TestCheckFailsASearchStoppedAtTheDefaultCap(t *testing.T) {
	explore.StubSearch(t, func(_ explore.Config, model func()) (explore.Result, error) {
		res, err := explore.Run(explore.Config{MaxPreemptions: explore.Unbounded, MaxExecutions: 2}, model)
		res.DefaultCap = res.Capped == "executions"
		return res, err
	})
	rt := &recordingT{TB: t}
	explore.Check(rt, manySchedules)
	if len(rt.failures) != 1 || !strings.Contains(rt.failures[0], "stopped at the default cap") {
		t.Fatalf("a search stopped at the default cap was reported as %q", rt.failures)
	}
}

// lostUpdateFixed is lostUpdate with an atomic increment.
func lostUpdateFixed() {
	var n xsync.Int32
	th := explore.Go(func() { n.Add(1) })
	n.Add(1)
	th.Join()
}

// manySchedules has a few dozen executions unbounded.
func manySchedules() {
	var a, b xsync.Int32
	th := explore.Go(func() {
		a.Store(1)
		b.Store(1)
	})
	b.Store(2)
	a.Store(2)
	th.Join()
}

// A search runs its model on one P and puts GOMAXPROCS back when it
// returns (the package doc, "The search").
func TestASearchRunsOnOnePAndPutsGOMAXPROCSBack(t *testing.T) {
	before := max(runtime.NumCPU(), runtime.GOMAXPROCS(0)) + 1 // neither a default nor 1
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(before))
	inside := 0
	explore.Check(t, func() {
		th := explore.Go(func() {})
		inside = runtime.GOMAXPROCS(0)
		th.Join()
	})
	if after := runtime.GOMAXPROCS(0); inside != 1 || after != before {
		t.Errorf("GOMAXPROCS was %d in the model and %d after the search, from %d before; want 1 and %d", inside, after, before, before)
	}
}
