// Package echo is a TCP echo server, served two ways: on the kernel with
// its netpoll.Poller ([ServeKernel]: an accept task and a task per
// connection) and on the net package ([ServeNet]: a goroutine per
// connection). bench/netbench measures the two side by side.
//
// A kernel task cannot block, so a connection task is a continuation: each
// run reads until the socket would block, writing back what it read, then
// asks the kernel to wait for readiness (Ctx.WaitRead, or Ctx.WaitWrite
// while output is pending) and returns. The kernel runs the same function
// again when the socket is ready; the buffer and the unwritten output live
// in the closure. This is the net package's loop, "try the syscall first,
// wait only on EAGAIN", with the wait turned inside out.
//
// An accept that fails for want of a resource (descriptors, above all) is
// logged and retried after a back-off (5 ms doubling up to 1 s), never
// fatal; [WithMaxConns] bounds the connections served at once, and the
// command's -maxclients (10000 by default, lowered to fit the descriptor
// limit) sets it.
package echo
