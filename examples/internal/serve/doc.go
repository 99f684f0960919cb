// Package serve is the server half that examples/echo and examples/resp
// share: the accept loop, the connection registry, Close, and the I/O loop
// of a connection, served two ways: on the kernel with its netpoll.Poller
// ([Kernel]: an accept task and a task per connection) and on the net
// package ([Net]: a goroutine per connection). What differs between the
// examples is the protocol, a [Session] per connection: what is read goes
// in, what is to be written comes out.
//
// A kernel task cannot block, so a connection task is a continuation: each
// run writes the session's pending output, then reads until the socket
// would block, then asks the kernel to wait for readiness (Ctx.WaitRead, or
// Ctx.WaitWrite while output is pending) and returns. The kernel runs the
// same function again when the socket is ready; the session lives in the
// closure. This is the net package's loop, "try the syscall first, wait
// only on EAGAIN", with the wait turned inside out.
//
// Every socket of a kernel server is closed by its own task, never by
// [Server.Close]: Close expires the deadlines of the open sockets, which
// ends every wait with an error, and waits for the tasks to see it.
//
// Accepting survives running out of resources: an accept that fails with
// EMFILE, ENFILE, ENOBUFS or ENOMEM (netpoll's ErrTemporary) is logged once
// and retried after a back-off of 5 ms, doubling up to 1 s (net/http's),
// while clients wait in the listen backlog; the kernel server's accept task
// waits for the back-off as a read deadline on the listener, so a task
// never blocks. Any other accept error stops accepting, is logged at once
// and is what [Server.Close] returns. [WithMaxConns] refuses clients over a
// limit (with the protocol's error, [WithRefusal]) before descriptors run
// out.
//
// A connection whose session is closing (a protocol error, its reply
// written) lingers before it is closed: the server shuts its side down and
// discards what the client still sends, for up to 2 s and 64 MiB, so that
// a client in the middle of a large write reads the reply, not a reset.
//
// [Main] is the main function of the examples' commands.
package serve
