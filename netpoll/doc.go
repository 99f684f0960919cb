// Package netpoll gives the tasks of a kernel.Kernel sockets and descriptor
// readiness without a goroutine per connection. It is built the way the Go
// runtime's netpoller is (runtime/netpoll.go and netpoll_epoll.go): one
// epoll instance per [Poller], every descriptor registered once,
// edge-triggered, with a read and a write wait slot per descriptor ([Desc])
// that keeps an edge nobody waited for, so no readiness is lost between a
// try and a wait.
//
// A kernel makes its Poller at the first kernel.Kernel.Poller call and polls
// it from then on. A task works the way the net package's internal/poll
// does, "try the system call first, wait only on EAGAIN": [Listen], [Dial],
// [Listener.Accept] and the [Conn] methods work on non-blocking sockets and
// return an error matching [ErrWouldBlock] when they would block; the task
// then asks to wait with kernel.Ctx.WaitRead or kernel.Ctx.WaitWrite on the
// socket's [Desc] and returns. Its function runs again once the descriptor
// is ready, its deadline passes or it is closed, and kernel.Ctx.WaitErr says
// which. The package example serves one connection that way.
//
// A descriptor of one's own (a pipe, an eventfd, a socket made elsewhere)
// joins with [Poller.Register]; it must be in non-blocking mode, and
// [Desc.Close] ends the registration without closing it.
//
// # Deadlines
//
// Each Desc has a read and a write deadline ([Desc.SetDeadline],
// [Desc.SetReadDeadline], [Desc.SetWriteDeadline]), as a net.Conn has. A
// wait whose deadline passes ends with [ErrDeadlineExceeded], and so does
// every wait after it until the deadline is moved; a deadline in the past
// expires at once, the zero time means none. Moving a deadline before every
// wait, as a server with an idle timeout does, is cheap: it touches no timer
// heap until the old deadline comes.
//
// # System calls
//
// The system calls a busy kernel makes, a [Conn]'s reads and writes of up to
// 64 KiB, the poll that does not block and the break of a blocked poll, go
// to the operating system without the Go scheduler's system-call bracket
// (syscall.RawSyscall, not syscall.Syscall), as the runtime's own
// non-blocking poll in findRunnable does: on a non-blocking descriptor they
// never wait for data or buffer space, and the bracket woke the Go runtime's
// sysmon and let it take the caller's P, which cost an echo server at 50
// connections about 9% of its CPU. Such a call holds its Go P while it is in
// the operating system, and a stop-the-world waits for it. Larger reads and
// writes, and the collects of a wait that may block, keep the bracket. The
// file raw_linux.go gives the reasons.
//
// # Other systems
//
// On systems other than Linux, kernel.Kernel.Poller, [Listen] and [Dial]
// return an error wrapping [ErrUnsupported].
package netpoll
