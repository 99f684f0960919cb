// Package proptest checks the scheduler's data structures against package
// spec with rapid state machines: the real code and the specification are
// driven in lock step by the same generated operations, and every result and
// every invariant is compared after each step. A failure shrinks to a short
// sequence of operations and prints the seed that replays it.
//
// The properties live in this package's non-test files so that package fuzz
// runs the very same properties under go test -fuzz.
//
// # Concurrency, deterministically
//
// The machines run on one goroutine, and whole operations interleave in the
// order the generator draws. One interleaving inside an operation is reached
// too: [runq.Queue.Grab] and [runq.Queue.StealInto] take a pause function,
// called between reading runnext and the CAS that takes it, and the machine
// uses it to run an owner operation in the middle of the thief's. The
// specification then says what the thief must get: runnext if it is still
// the item the thief read (the CAS succeeds), otherwise what a retry
// observes.
//
// That is not every interleaving. A grab reads head, then tail, copies, and
// commits by CAS; an owner operation between those steps (a stale
// observation, a torn read of head and tail) is reached here only by the
// concurrent stress tests of package runq, by the linearizability checker
// on real cores, and systematically by the explorer's runq scenarios; both
// judge the histories with the linearizability package's models, which are
// built on spec.Queue.
package proptest
