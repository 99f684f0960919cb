// Package resp is a minimal Redis-protocol server, served two ways: on the
// kernel with its netpoll.Poller ([ServeKernel]: an accept task and a task
// per connection, each a continuation that waits for readiness and returns)
// and on the net package ([ServeNet]: a goroutine per connection), so that
// the two can be measured against each other with redis-benchmark
// (bench/resp.sh).
//
// The protocol is RESP2: a command is an array of bulk strings, or an
// inline command line ([ParseCommand]). The commands are PING, ECHO, SET,
// GET and DEL on an in-memory [Store] of sharded maps under mutexes
// ([Store.Exec]); anything else is an -ERR reply. A connection may
// pipeline: every command that has fully arrived is run and the replies of
// one read go out in one write, and a command split across reads waits for
// the rest. A protocol error is answered with -ERR and the connection is
// closed, as Redis does.
//
// Both servers share everything but the I/O loop: [ParseCommand], the
// Store, and a session (a connection's unparsed input and unwritten
// replies).
//
// # Limits
//
//   - Clients: [WithMaxClients], as Redis's maxclients. A client over the
//     limit gets "-ERR max number of clients reached" and is closed. The
//     command's -maxclients defaults to Redis's 10000 and, like Redis, is
//     lowered to fit the process's descriptor limit (less 32 kept for the
//     process).
//   - Input: [MaxArgs] arguments, [MaxBulkLen] bytes an argument,
//     [MaxInline] bytes an inline command, [MaxQueryBuffer] bytes of a
//     command still arriving. Over a limit the client gets Redis's -ERR
//     reply, and the connection lingers while the client is still sending
//     (up to 2 s and 64 MiB), so that it reads the reply rather than a
//     reset; then it is closed. [WithProtoLimits] (the command's
//     -proto-max-bulk-len and -client-query-buffer-limit, Redis's names)
//     sets the argument and query limits. Parsing resumes where the last
//     read stopped, so a command costs time linear in its size however
//     many reads bring it.
//   - Replies: [WithOutputLimits], as Redis's client-output-buffer-limit.
//     While a client's unwritten replies are over the soft limit (64 MiB)
//     its commands wait, unexecuted, and run as it reads; a reply that
//     takes them over the hard limit (256 MiB) closes the client. So a
//     pipeline of GETs of big values holds at most the soft limit and one
//     reply per connection, however long it is. Unlike Redis, a client
//     over the soft limit is not closed after a time: it just waits. The
//     command's -output-soft-limit and -output-hard-limit set them.
//   - Accept failures: an accept that fails for want of a resource
//     (descriptors, buffers, memory) is logged once and retried 5 ms later,
//     doubling up to 1 s, until it works, when that is logged too; clients
//     wait in the listen backlog meanwhile. Any other accept error stops
//     accepting at once, is logged, and is returned by [Server.Close].
package resp
