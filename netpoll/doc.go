// Package netpoll is the kernel's I/O readiness layer, built the way the Go
// runtime's netpoller is (runtime/netpoll.go and netpoll_epoll.go): one
// epoll instance per [Poller], every descriptor registered once,
// edge-triggered, for EPOLLIN|EPOLLOUT|EPOLLRDHUP (and EPOLLPRI, which the
// runtime leaves out, for [Desc.Exceptional]), and a read and a write wait
// slot per descriptor ([Desc]) that latch an edge nobody waited for.
//
// # Wait slots
//
// A slot holds one of four states, as the runtime's pollDesc.rg and wg do:
//
//   - nil: nothing pending, nobody waiting;
//   - ready: an edge arrived that nobody has consumed yet;
//   - wait: a task announced that it will park but has not committed;
//   - a *[Waiter]: the task parked on it.
//
// The scheduler's side ([Desc.PrepareWait], [Desc.CommitWait],
// [Desc.FinishWait]) is netpollblock split at gopark, with one difference:
// the runtime's woken goroutine clears its slot with a swap, which is safe
// because its fdMutex keeps a second reader out; here another task may
// wait on the slot as soon as a wait ended, so FinishWait only consumes a
// latched edge, and the notifier records in the [Waiter] how the wait
// ended. As in the runtime, PrepareWait checks for close and an expired
// deadline, consumes a latched edge or moves nil to wait, and then checks
// for close and deadline again;
// the scheduler commits the park later, after the task's function has
// returned, by a CAS from wait to the waiter. If readiness, a deadline or
// Close changed the slot in between, the CAS fails and the task runs again
// at once, so no edge is lost however the two race. The notifier's side is
// netpollunblock: readiness moves any state but ready to ready, a deadline
// or Close moves wait or a waiter to nil, and whoever replaces a waiter
// returns it to be made runnable, exactly once.
//
// The ordering that makes close and deadlines safe is the runtime's: the
// waiter stores wait and then loads the error word; Close and a deadline
// store the error word and then load the slot. Every one of these is a
// sequentially consistent xsync operation, so one side sees the other.
//
// [Poller.Waiters] counts the tasks parked on slots: it rises when a commit
// succeeds and falls when a notifier takes a waiter out, so it is exact
// whenever nothing is in flight. The scheduler polls only while it is
// non-zero.
//
// # Deadlines
//
// Each Desc has a read and a write deadline. A deadline is a timer in the
// Poller's heap, which [Poller.Poll] runs: Poll never sleeps past the
// earliest deadline, and setting a deadline earlier than the one a blocked
// Poll sleeps towards breaks that Poll. [Poller.Expire] fires the passed
// deadlines without polling, for a scheduler that looks at them more often
// than it polls (the runtime's checkTimers). Every change of a deadline bumps
// its sequence number, and a timer that fires with an older one expires
// nothing, so a stale timer never expires a new deadline. A deadline in the
// past expires at once.
//
// A deadline moved later while its timer is armed leaves the timer where it
// is, as the runtime's timer.modify leaves a timer in its heap: the move
// takes only the Desc's lock, not the Poller's timer lock, and touches no
// heap. The timer fires at the old time, finds its sequence number stale
// and the timer still armed, and goes back into the heap at the new
// deadline. A server that moves an idle timeout before every wait so pays a
// pop and a push once per timeout period instead of a heap fix per
// request, and its tasks on different Ps do not meet at the timer lock; a
// blocked Poll may wake once at the old time for nothing.
//
// # Stale events
//
// The epoll data word of a registration holds the Desc's index in the
// Poller's table and a sequence number unique to the registration; an event
// whose sequence no longer matches (the descriptor was closed, perhaps
// reused) is dropped. Go's garbage collector cannot see pointers held by
// the operating system, so the data word holds no pointer.
//
// # Breaks
//
// [Poller.Break] writes to an eventfd registered with the epoll instance; a
// flag suppresses duplicate writes while one is pending, and only a Poll
// that blocks drains it, as netpollBreak does.
//
// # System calls
//
// The system calls a busy kernel makes, a [Conn]'s reads and writes of up
// to 64 KiB, the poll that does not block and a [Poller.Break], go to the
// operating system without the Go scheduler's system-call bracket
// (syscall.RawSyscall, not syscall.Syscall), as the runtime's own
// non-blocking poll in findRunnable does: on a non-blocking descriptor
// they never wait for data or buffer space, and the bracket woke the Go
// runtime's sysmon and let it take the caller's P, which cost an echo
// server at 50 connections about 9% of its CPU. Such a call holds its
// Go P while it is in the operating system, and a stop-the-world waits for
// it. Larger reads and writes, and the collects of a wait that may block,
// keep the bracket. The file raw_linux.go gives the reasons.
//
// # Other systems
//
// On systems other than Linux, [New] returns an error wrapping
// [ErrUnsupported]; nothing else in this package works there.
//
// # Sockets
//
// [Listen], [Dial], [Listener.Accept] and the [Conn] methods work on
// non-blocking sockets made with golang.org/x/sys/unix, so a task on the
// kernel serves TCP without the net package's own poller: an operation that
// would block returns an error matching [ErrWouldBlock], and the task waits
// for readiness of its Desc and tries again, "try the syscall first, wait
// only on EAGAIN", as internal/poll does.
package netpoll
