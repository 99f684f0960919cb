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
// The machines run on one goroutine, yet they reach the interleavings that
// matter for a steal: [runq.Queue.Grab] and [runq.Queue.StealInto] take a
// pause function, called between reading runnext and the CAS that takes it,
// and the machine uses it to run an owner operation in the middle of the
// thief's. The specification then says what the thief must get: runnext if it
// is still the item the thief read (the CAS succeeds), otherwise what a
// retry observes. Every other thief step is a single atomic commit, which a
// sequential interleaving of whole operations already covers.
package proptest
