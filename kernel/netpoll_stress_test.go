//go:build linux

package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// reviewHang bounds every wait of these tests: one that waits longer has
// lost a wakeup. It is a bound on failure, never a timing assertion.
const reviewHang = 20 * time.Second

// reviewBudget bounds the loops of the stress tests.
const reviewBudget = 3 * time.Second

const reviewChildEnv = "VSCHED_REVIEW_CHILD"

// inChild runs body in a fresh test process, so that a crash of the
// kernel (a throw or a panic outside a task) fails this test instead of
// killing the whole binary.
func inChild(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(reviewChildEnv) == t.Name() {
		body(t)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v", "-test.timeout=60s")
	cmd.Env = append(os.Environ(), reviewChildEnv+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if errors.Is(err, unix.ENOEXEC) {
		// An emulated test binary (see skipIfExecFormat in kernel_test.go).
		t.Skipf("cannot run this test binary in a child process: %v (an emulated binary and no binfmt_misc)", err)
	}
	if err != nil {
		if len(out) > 4000 {
			out = out[:4000]
		}
		t.Errorf("the child process failed: %v\n%s", err, out)
	}
}

// await receives from ch, or fails the test after reviewHang.
func await[T any](t *testing.T, k *kernel.Kernel, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(reviewHang):
		t.Fatalf("%s: lost (no report in %v); stats %+v", what, reviewHang, k.Stats())
	}
	var zero T
	return zero
}

// socketpairDescs returns both ends of a socketpair, registered.
func socketpairDescs(t *testing.T, np *netpoll.Poller) (*netpoll.Desc, *netpoll.Desc) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	require.NoError(t, err)
	a, err := np.Register(fds[0])
	require.NoError(t, err)
	b, err := np.Register(fds[1])
	require.NoError(t, err)
	t.Cleanup(func() {
		a.Close()
		b.Close()
		unix.Close(fds[0])
		unix.Close(fds[1])
	})
	return a, b
}

// --- Findings -------------------------------------------------------------

// A task woken by a deadline that was then moved has not run yet when a
// second task waits on the same slot: WaitRead does not say ErrBusy, the
// second task parks. The first task's run must not take the second one's
// waiter out of the slot. With one P the order is fixed: the woken task is
// in runnext behind the task that woke it.
func TestAWokenTaskAndANewWaiterOnTheSameSlotBothEndWell(t *testing.T) {
	inChild(t, func(t *testing.T) {
		k, err := kernel.New(kernel.WithProcs(1))
		require.NoError(t, err)
		d, peer := pipePair(t, k)
		first := make(chan error, 1)
		runs1 := 0
		require.NoError(t, k.Go(func(c *kernel.Ctx) {
			runs1++
			if runs1 == 1 {
				require.NoError(t, c.WaitRead(d))
				return
			}
			first <- c.WaitErr()
		}))
		waitIOWaiting(t, k, 1)
		second := make(chan error, 1)
		runs2 := 0
		require.NoError(t, k.Go(func(c *kernel.Ctx) {
			runs2++
			if runs2 == 1 {
				require.NoError(t, d.SetReadDeadline(time.Now().Add(-time.Second))) // wakes the first task
				require.NoError(t, d.SetReadDeadline(time.Time{}))
				if err := c.WaitRead(d); err != nil {
					second <- err // ErrBusy would be fine
				}
				return
			}
			second <- c.WaitErr()
		}))
		t.Logf("first task: %v", await(t, k, first, "the first task"))
		_, err = unix.Write(peer, []byte("x"))
		require.NoError(t, err)
		t.Logf("second task: %v", await(t, k, second, "the second task"))
		shutdown(t, k)
		s := k.Stats()
		require.Equal(t, 0, s.IOWaitingTasks)
		require.Equal(t, 0, s.ParkedTasks)
	})
}

// The same race as it happens in a program: several tasks read one
// descriptor (acceptors on one listener, say), waiting when a read would
// block and yielding on ErrBusy. Every byte must be read, and the kernel
// must not crash.
func TestStressSeveralReadersOfOneDesc(t *testing.T) {
	inChild(t, func(t *testing.T) {
		k, err := kernel.New(kernel.WithProcs(4))
		require.NoError(t, err)
		d, peer := pipePair(t, k)
		const total = 20_000
		var got atomic.Int64
		done := make(chan struct{})
		var once sync.Once
		for range 4 {
			require.NoError(t, k.Go(func(c *kernel.Ctx) {
				if errors.Is(c.WaitErr(), netpoll.ErrDeadlineExceeded) {
					return // the writer has stopped and ended the waits
				}
				var b [1]byte
				for got.Load() < total {
					_, err := unix.Read(d.Fd(), b[:])
					if err == unix.EAGAIN {
						if err := c.WaitRead(d); errors.Is(err, netpoll.ErrBusy) {
							c.Yield()
						} else if err != nil {
							t.Errorf("WaitRead: %v", err)
						}
						return
					}
					if err != nil {
						t.Errorf("read: %v", err)
						return
					}
					if got.Add(1) == total {
						once.Do(func() { close(done) })
					}
				}
			}))
		}
		end := time.Now().Add(reviewBudget)
		for i := 0; i < total; i++ {
			for {
				_, err := unix.Write(peer, []byte{1})
				if err == nil {
					break
				}
				require.ErrorIs(t, err, unix.EAGAIN)
				runtime.Gosched()
			}
			if i%64 == 0 && time.Now().After(end) {
				t.Logf("budget spent after %d bytes", i)
				break
			}
			if i%8 == 0 {
				runtime.Gosched()
			}
		}
		d.SetReadDeadline(time.Now().Add(-time.Second)) // end the readers still waiting
		_ = done
		ctx, cancel := context.WithTimeout(context.Background(), reviewHang)
		defer cancel()
		require.NoError(t, k.Shutdown(ctx))
		t.Logf("read %d bytes; stats %+v", got.Load(), k.Stats())
	})
}

// Ctx.WaitRead's documentation: it panics when the task already asked to
// park, wait or yield in this run. The converse misuse, Yield or Park after
// WaitRead in the same run, must be reported too.
func TestYieldAfterWaitReadIsReportedAsMisuse(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	d, _ := pipePair(t, k)
	res := make(chan any, 2)
	runs := 0
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		runs++
		if runs > 1 {
			res <- fmt.Sprintf("run %d, WaitErr %v", runs, c.WaitErr())
			return
		}
		require.NoError(t, c.WaitRead(d))
		var pv any
		func() {
			defer func() { pv = recover() }()
			c.Yield()
		}()
		res <- pv
		// Whatever happened, end the armed wait so that the next run does
		// not find the slot still in wait (which crashes the kernel, see
		// TestYieldAfterWaitReadDoesNotCrashTheKernel).
		d.Close()
	}))
	pv := await(t, k, res, "the task")
	t.Logf("then: %v", await(t, k, res, "the second run"))
	shutdown(t, k)
	if pv == nil {
		t.Errorf("Ctx.Yield after Ctx.WaitRead in the same run did not panic")
	}
}

func TestYieldAfterWaitReadDoesNotCrashTheKernel(t *testing.T) {
	inChild(t, func(t *testing.T) {
		var panics atomic.Int32
		k, err := kernel.New(kernel.WithProcs(1), kernel.WithPanicHandler(func(v any, _ []byte) {
			panics.Add(1)
			t.Logf("task panic (reported misuse): %v", v)
		}))
		require.NoError(t, err)
		d, _ := pipePair(t, k)
		done := make(chan struct{})
		runs := 0
		require.NoError(t, k.Go(func(c *kernel.Ctx) {
			runs++
			if runs > 1 {
				close(done)
				return
			}
			defer func() {
				if runs == 1 {
					select {
					case <-done:
					default:
						close(done)
					}
				}
			}()
			if c.WaitRead(d) == nil {
				c.Yield()
			}
		}))
		await(t, k, done, "the task")
		shutdown(t, k)
	})
}

func TestParkAfterWaitReadIsReportedAsMisuse(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	d, peer := pipePair(t, k)
	res := make(chan any, 1)
	ended := make(chan int, 1)
	runs := 0
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		runs++
		if runs > 1 {
			ended <- runs // and return: the task is done
			return
		}
		require.NoError(t, c.WaitRead(d))
		var pv any
		func() {
			defer func() { pv = recover() }()
			c.Park()
		}()
		res <- pv
	}))
	pv := await(t, k, res, "the task")
	waitIOWaiting(t, k, 1)
	_, err = unix.Write(peer, []byte("x"))
	require.NoError(t, err)
	await(t, k, ended, "the second run")
	shutdown(t, k)
	s := k.Stats()
	if pv == nil {
		t.Errorf("Ctx.Park after Ctx.WaitRead in the same run did not panic")
	}
	if s.ParkedTasks != 0 {
		t.Errorf("the task returned without asking for anything after its I/O wait, yet Stats.ParkedTasks = %d: its stale Park parked it for good", s.ParkedTasks)
	}
}

// --- Stress ---------------------------------------------------------------

// pinger is one side of a ping-pong over a socketpair: it writes a byte
// when it is its turn and waits for the peer's byte, rounds times.
func pinger(d *netpoll.Desc, starts bool, rounds int, done chan<- error) func(*kernel.Ctx) {
	sent, recv := 0, 0
	var b [1]byte
	return func(c *kernel.Ctx) {
		if err := c.WaitErr(); err != nil {
			done <- err
			return
		}
		for {
			if recv == rounds && sent == rounds {
				done <- nil
				return
			}
			if sent == recv && (starts || recv > 0) || !starts && sent < recv {
				if _, err := unix.Write(d.Fd(), []byte{1}); err != nil {
					done <- err
					return
				}
				sent++
				continue
			}
			_, err := unix.Read(d.Fd(), b[:])
			if err == unix.EAGAIN {
				if err := c.WaitRead(d); err != nil {
					done <- err
				}
				return
			}
			if err != nil {
				done <- err
				return
			}
			recv++
		}
	}
}

func collect(t *testing.T, k *kernel.Kernel, done <-chan error, n int, what string) (errs int) {
	t.Helper()
	for i := 0; i < n; i++ {
		if err := await(t, k, done, fmt.Sprintf("%s %d of %d", what, i+1, n)); err != nil {
			errs++
			if errs < 5 {
				t.Logf("%s: %v", what, err)
			}
		}
	}
	return errs
}

func TestStressPingPongOverManySocketpairs(t *testing.T) {
	for _, procs := range []int{1, 2, runtime.GOMAXPROCS(0)} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			k, err := kernel.New(kernel.WithProcs(procs))
			require.NoError(t, err)
			np, err := k.Poller()
			require.NoError(t, err)
			const pairs, rounds = 128, 100
			done := make(chan error, 2*pairs)
			for range pairs {
				a, b := socketpairDescs(t, np)
				require.NoError(t, k.Go(pinger(a, true, rounds, done)))
				require.NoError(t, k.Go(pinger(b, false, rounds, done)))
			}
			require.Zero(t, collect(t, k, done, 2*pairs, "pinger"))
			shutdown(t, k)
			s := k.Stats()
			require.Equal(t, 0, s.IOWaitingTasks)
			require.Equal(t, 0, s.ParkedTasks)
			require.Greater(t, s.IODriverReadyCount, uint64(0))
		})
	}
}

// Readers that never get data wait with deadlines that a goroutine moves
// concurrently (far, near, none, past); in the end every deadline is set
// near, and every reader must end with ErrDeadlineExceeded.
func TestStressDeadlinesMovedConcurrently(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(4))
	require.NoError(t, err)
	np, err := k.Poller()
	require.NoError(t, err)
	const n = 200
	ds := make([]*netpoll.Desc, n)
	done := make(chan error, n)
	for i := range ds {
		ds[i], _ = socketpairDescs(t, np)
		require.NoError(t, k.Go(reader(ds[i], 1, done)))
	}
	end := time.Now().Add(reviewBudget / 2)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; time.Now().Before(end) && i < 200_000; i++ {
				d := ds[r.IntN(n)]
				switch r.IntN(4) {
				case 0:
					d.SetReadDeadline(time.Now().Add(time.Hour))
				case 1:
					d.SetReadDeadline(time.Now().Add(time.Duration(r.IntN(2000)) * time.Microsecond))
				case 2:
					d.SetReadDeadline(time.Time{})
				case 3:
					// An expired deadline ends the reader: set it back at
					// once, so that most readers survive to the end.
					d.SetReadDeadline(time.Now().Add(-time.Millisecond))
					d.SetReadDeadline(time.Time{})
				}
			}
		}()
	}
	wg.Wait()
	for _, d := range ds {
		require.NoError(t, d.SetReadDeadline(time.Now().Add(time.Millisecond)))
	}
	for i := 0; i < n; i++ {
		err := await(t, k, done, fmt.Sprintf("reader %d of %d", i+1, n))
		require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	}
	shutdown(t, k)
	s := k.Stats()
	require.Equal(t, 0, s.IOWaitingTasks)
	require.Equal(t, 0, s.ParkedTasks)
}

// Readers wait on descriptors that writers feed and closers close at random
// moments: every reader must end with ErrClosed.
func TestStressCloseRacingWaits(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(4))
	require.NoError(t, err)
	np, err := k.Poller()
	require.NoError(t, err)
	const n = 300
	type pair struct {
		d    *netpoll.Desc
		peer int
	}
	ps := make([]pair, n)
	done := make(chan error, n)
	for i := range ps {
		fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		require.NoError(t, err)
		t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
		d, err := np.Register(fds[0])
		require.NoError(t, err)
		ps[i] = pair{d, fds[1]}
		// A reader that reads forever, until its wait ends with an error.
		require.NoError(t, k.Go(reader(d, math.MaxInt, done)))
	}
	var wg sync.WaitGroup
	var closed atomic.Int32
	order := rand.Perm(n)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 11))
			for i := g; i < n; i += 4 {
				for range r.IntN(20) {
					unix.Write(ps[r.IntN(n)].peer, []byte("xy"))
					runtime.Gosched()
				}
				ps[order[i]].d.Close()
				closed.Add(1)
			}
		}()
	}
	wg.Wait()
	for i := 0; i < n; i++ {
		err := await(t, k, done, fmt.Sprintf("reader %d of %d", i+1, n))
		require.ErrorIs(t, err, netpoll.ErrClosed)
	}
	shutdown(t, k)
	s := k.Stats()
	require.Equal(t, 0, s.IOWaitingTasks)
	require.Equal(t, 0, s.ParkedTasks)
}

// Shutdown (or Close) while ping-pongs are in flight and other tasks wait
// for data that never comes: it must return; once every descriptor is
// closed, every task either finished or was dropped, and no task is
// counted parked or waiting.
func TestStressStopRacingIOWaiters(t *testing.T) {
	for _, useClose := range []bool{false, true} {
		name := "Shutdown"
		if useClose {
			name = "Close"
		}
		t.Run(name, func(t *testing.T) {
			end := time.Now().Add(reviewBudget / 2)
			for iter := 0; iter < 50 && time.Now().Before(end); iter++ {
				k, err := kernel.New(kernel.WithProcs(1 + iter%4))
				require.NoError(t, err)
				np, err := k.Poller()
				require.NoError(t, err)
				const pairs, idle = 16, 16
				total := 2*pairs + idle
				done := make(chan error, total)
				var descs []*netpoll.Desc
				for range pairs {
					a, b := socketpairDescs(t, np)
					descs = append(descs, a, b)
					require.NoError(t, k.Go(pinger(a, true, 1000, done)))
					require.NoError(t, k.Go(pinger(b, false, 1000, done)))
				}
				for range idle {
					a, _ := socketpairDescs(t, np)
					descs = append(descs, a)
					require.NoError(t, k.Go(reader(a, 1, done)))
				}
				for i := 0; i < iter%5; i++ {
					runtime.Gosched()
				}
				stopped := make(chan error, 1)
				go func() {
					if useClose {
						stopped <- k.Close()
						return
					}
					ctx, cancel := context.WithTimeout(context.Background(), reviewHang)
					defer cancel()
					stopped <- k.Shutdown(ctx)
				}()
				serr := await(t, k, stopped, "the stop")
				if !useClose {
					require.NoError(t, serr)
				}
				for _, d := range descs {
					d.Close()
				}
				finished := 0
				for len(done) > 0 {
					<-done
					finished++
				}
				s := k.Stats()
				if s.IOWaitingTasks != 0 || s.ParkedTasks != 0 || uint64(finished)+s.DroppedCount != uint64(total) {
					t.Fatalf("iteration %d: after the stop and every Close: %d tasks finished, Dropped %d, of %d; IOWaiting %d, Parked %d",
						iter, finished, s.DroppedCount, total, s.IOWaitingTasks, s.ParkedTasks)
				}
			}
		})
	}
}

// A task that yields forever keeps the only P (or every P) busy; I/O
// ping-pongs must still make progress (the monitor's poll).
func TestStressBusyKernelWithYieldersStillDoesIO(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprintf("procs=%d", procs), func(t *testing.T) {
			k, err := kernel.New(kernel.WithProcs(procs))
			require.NoError(t, err)
			np, err := k.Poller()
			require.NoError(t, err)
			var stop atomic.Bool
			for range procs {
				require.NoError(t, k.Go(func(c *kernel.Ctx) {
					if !stop.Load() {
						c.Yield()
					}
				}))
			}
			const pairs, rounds = 8, 20
			done := make(chan error, 2*pairs)
			for range pairs {
				a, b := socketpairDescs(t, np)
				require.NoError(t, k.Go(pinger(a, true, rounds, done)))
				require.NoError(t, k.Go(pinger(b, false, rounds, done)))
			}
			errs := collect(t, k, done, 2*pairs, "pinger")
			stop.Store(true)
			require.Zero(t, errs)
			shutdown(t, k)
		})
	}
}

// A ping-pong through the kernel allocates nothing per round trip once it
// is warm (WaitRead, the commit, the polls, the injection).
func TestPingPongThroughTheKernelDoesNotAllocate(t *testing.T) {
	if raceOn() {
		t.Skip("the race detector's instrumentation makes buffers escape")
	}
	k, err := kernel.New(kernel.WithProcs(2))
	require.NoError(t, err)
	np, err := k.Poller()
	require.NoError(t, err)
	a, b := socketpairDescs(t, np)
	const warm, rounds = 200, 5000
	done := make(chan error, 2)
	var ms0, ms1 runtime.MemStats
	var mark atomic.Int32
	sent, recv := 0, 0
	var buf [1]byte
	one := []byte{1}
	var fnA func(c *kernel.Ctx)
	fnA = func(c *kernel.Ctx) {
		for {
			if recv == warm && mark.Load() == 0 {
				runtime.ReadMemStats(&ms0)
				mark.Store(1)
			}
			if recv == warm+rounds {
				runtime.ReadMemStats(&ms1)
				done <- nil
				return
			}
			if sent == recv {
				unix.Write(a.Fd(), one)
				sent++
				continue
			}
			if _, err := unix.Read(a.Fd(), buf[:]); err == unix.EAGAIN {
				c.WaitRead(a)
				return
			}
			recv++
		}
	}
	var bbuf [1]byte
	bn := 0
	fnB := func(c *kernel.Ctx) {
		for {
			if bn == warm+rounds {
				done <- nil
				return
			}
			if _, err := unix.Read(b.Fd(), bbuf[:]); err == unix.EAGAIN {
				c.WaitRead(b)
				return
			}
			bn++
			unix.Write(b.Fd(), one)
		}
	}
	require.NoError(t, k.Go(fnA))
	require.NoError(t, k.Go(fnB))
	require.Zero(t, collect(t, k, done, 2, "pinger"))
	shutdown(t, k)
	per := float64(ms1.Mallocs-ms0.Mallocs) / rounds
	t.Logf("%.3f allocations per round trip", per)
	if per > 0.05 {
		t.Errorf("a kernel ping-pong allocates %.3f times per round trip", per)
	}
}

func raceOn() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

// Shutdown is graceful: it runs what is queued and what woken tasks spawn,
// and Stats.DroppedCount counts only tasks that Close (or a Wake after the stop)
// dropped. A task that the poller has already taken out of its wait slot
// (woken, counted in IODriverReadyCount) must not be dropped by a Shutdown that
// returns nil. Here a task writes to the peer of a descriptor on which
// another task waits, and Shutdown is called at once.
func TestShutdownNeverDropsATaskThePollerWoke(t *testing.T) {
	end := time.Now().Add(reviewBudget)
	dropped, stillWaiting, ran, iters := 0, 0, 0, 0
	for i := 0; i < 300 && time.Now().Before(end); i++ {
		iters++
		k, err := kernel.New(kernel.WithProcs(1))
		require.NoError(t, err)
		d, peer := pipePair(t, k)
		done := make(chan error, 1)
		require.NoError(t, k.Go(reader(d, 1, done)))
		waitIOWaiting(t, k, 1)
		require.NoError(t, k.Go(func(c *kernel.Ctx) { unix.Write(peer, []byte("x")) }))
		ctx, cancel := context.WithTimeout(context.Background(), reviewHang)
		require.NoError(t, k.Shutdown(ctx))
		cancel()
		s := k.Stats()
		switch {
		case s.DroppedCount > 0:
			dropped++
		case s.IOWaitingTasks == 1:
			stillWaiting++
		default:
			ran++
		}
		d.Close()
	}
	t.Logf("%d rounds: the woken reader ran %d times, was still waiting %d times, was dropped %d times", iters, ran, stillWaiting, dropped)
	if dropped > 0 {
		t.Errorf("a Shutdown that returned nil dropped a task the poller had woken, %d times in %d rounds", dropped, iters)
	}
}

// A wait that ends before its commit (an expired deadline, a close, a
// latched edge) runs the task again at once from the P's resume slot,
// inheriting the time slice. A task that waits again every run (here it
// ignores an expired deadline, as a retry loop would) must not hold its P
// for good: the monitor breaks runnext chains after 10 ms, and a resume
// chain must be broken as well, or the other tasks of the P never run.
func TestAResumeChainOfFailedWaitCommitsDoesNotStarveThePsOtherTasks(t *testing.T) {
	k, err := kernel.New(kernel.WithProcs(1))
	require.NoError(t, err)
	d, _ := pipePair(t, k)
	require.NoError(t, d.SetReadDeadline(time.Now().Add(-time.Second)))
	var otherRan atomic.Bool
	spins := 0
	// The monitor breaks the chain within tens of milliseconds unless the
	// machine starves its thread: the task gives up after 10 s (looking
	// at the clock every 1,024 runs) or 10^9 runs, whichever is first.
	const maxSpins = 1_000_000_000
	giveUp := time.Now().Add(10 * time.Second)
	gaveUp := false
	done := make(chan int, 1)
	require.NoError(t, k.Go(func(c *kernel.Ctx) {
		if spins == 0 {
			// Queue a task behind this one on the same P.
			c.Go(func(*kernel.Ctx) { otherRan.Store(true) })
		}
		spins++
		if spins%1024 == 0 && time.Now().After(giveUp) || spins >= maxSpins {
			gaveUp = true
		}
		if otherRan.Load() || gaveUp {
			done <- spins
			return
		}
		c.WaitRead(d) // ends at once with ErrDeadlineExceeded: resume
	}))
	n := await(t, k, done, "the spinning task")
	t.Logf("the spinning task resumed %d times; the other task ran: %v", n, otherRan.Load())
	shutdown(t, k)
	if gaveUp {
		t.Errorf("the other task on the P never ran while a task resumed %d times through failed wait commits (it ran only once that task gave up)", n)
	}
}
