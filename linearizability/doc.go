// Package linearizability checks the run queues of package runq under real
// concurrency: owner and thieves run on their own OS threads, every
// operation is recorded with its call and return time, and porcupine
// (github.com/anishathalye/porcupine) searches each history for an order of
// the operations that package spec accepts. A history for which no such
// order exists is written out as porcupine's HTML visualization.
//
// # The recorder
//
// A [Recorder] has one append-only buffer per thread and one shared atomic
// counter. A thread reads the counter immediately before an operation and
// immediately after it ([Thread.Stamp]) and appends the operation with both
// stamps to its own buffer ([Thread.Record]); nothing on that path locks or
// allocates. The stamps come from one counter, never from the clock: Go's
// atomics are sequentially consistent, so an operation that returned before
// another was called has the smaller stamp, which is all the checker relies
// on. Clock readings carry no such order and have produced false verdicts
// (porcupine issue 40). The global queue's operations are stamped while the
// caller holds the global queue's lock, as the scheduler holds sched.lock.
//
// # The models
//
// [NewModel] builds porcupine's model from package spec: a [spec.Queue] per
// P-local queue and a [spec.Global]. The operations ([Op]) are the runq
// methods: Put, PutBatch, Get, Drain, Grab, StealInto and Empty on a local
// queue, and Put, PutBatch, Get and GetBatch on the global queue. A step
// applies the specification to the operation's input and accepts it if the
// specification returns the recorded output.
//
// A steal is nondeterministic: it takes L - L/2 items for a length L it
// observed, and L may be any length the ring had while the steal ran. The
// output decides it: a steal that took k items observed 2k-1 (the shortest
// length for which [spec.StealAmount] is k), one that took nothing or
// runnext observed an empty ring, and [spec.Queue.Grab] (or
// [spec.Queue.StealInto]) with that observed length says whether that is
// possible at the step. A StealInto returns one item; its position in the
// victim's ring says how many items went with it.
//
// Empty is modeled as a read of the whole queue: it may report true only at
// a moment the queue was empty, which is stronger than runq's promise that
// it never reports true while an item stays in the queue for the whole call.
// Len is not modeled: the real Len reads head, tail and runnext at three
// moments, and a stale head can make the ring look longer than it ever was,
// so no single moment explains its result.
//
// Three owner operations take effect in two steps in the real queue (a Put
// with next that displaces runnext, a PutBatch, and the thief's side of a
// StealInto): they decide on one read of the counters and publish the items
// they append with a later store of the tail. The model lets their appended
// items wait, invisible to thieves, until the owner's next operation; see
// [NewModel].
//
// # Known gaps
//
// The model accepts some histories the real queue cannot produce (found by
// review, each shown with a history the checker accepts):
//
//   - The items of a two-step owner operation become visible at the owner's
//     next operation on that queue, not before the operation returns, so a
//     steal or an Empty after a PutBatch has returned may still miss them.
//   - A steal that took k items is taken to have observed 2k-1, and spec
//     only asks that the ring held at least that many, so a steal that
//     takes fewer than half (one item of four) passes.
//   - A steal with stealRunNext that took runnext or nothing is accepted
//     whatever the ring held.
//
// The sequential property tests (package proptest) check exact steal
// amounts, and the explorer checks conservation in every interleaving, so
// these gaps weaken this verifier, not the pyramid. The fix is to record a
// steal as two linked operations (an observation of the ring's length and
// head, and the commit that removes the items) and a two-step put with a
// companion publication inside the same interval.
//
// # Partitioning
//
// A history is linearizable if and only if the history of each object in
// it is. The global queue is one object and its operations form their own
// partition. The local queues are checked together: a StealInto moves items
// from one local queue into another, and the thief cannot see which items
// landed in its own ring without reading it, so the steal cannot be split
// into a grab on the victim and a batch put on the thief with known items.
// Conservation is checked apart from porcupine: every item that entered the
// system in a round left it exactly once ([spec.Ledger]).
//
// # The stress driver
//
// [Stress] runs rounds. In [QueueMode] an owner and [Config.Thieves] thieves
// share one queue: the owner puts, gets and drains; each thief grabs,
// steals into its own queue (which it keeps at most half full, with filler
// items that a steal gone wrong would overwrite), probes Empty, and gets
// from and drains its own queue. In [SystemMode] [Config.Procs] Ps each own
// a queue and share a global queue under a mutex: overflow goes to the
// global queue, a P with an empty queue takes a batch from the global queue
// and otherwise steals from another P, as findRunnable does. Every worker
// runs on a goroutine locked to an OS thread, GOMAXPROCS is raised to the
// number of workers for the run, and the workers start together at a
// barrier. A round ends with every queue drained, so each round is checked
// on its own from empty queues and the cost of a run grows linearly with
// its length. Rounds vary the mix of operations (runnext hand-offs, full
// rings, steals into half-full rings, Empty probes) and now and then start
// the counters just below 2^32. The first round of every QueueMode run
// wraps the victim's tail past 2^32 with its head still below, and lets
// every thief steal once from that ring (not from runnext) while the owner
// waits: a steal that misreads the length across the wrap is then
// reported in that round whatever the machine's timing. Everything is
// derived from runq.Size; the explorer build (go test -tags
// vsched_explore) shrinks the ring to 4 slots, where overflow, slot reuse
// and torn reads are frequent.
//
// # Reading a failure
//
// A failing run returns a *[Failure], which wraps [ErrNotLinearizable]
// (porcupine found no order), [ErrConservation], [ErrPanicked] or
// [ErrStuck] (an operation did not return: the queue may livelock). Of the
// failing rounds seen (the run goes on for [Config.ExtraRounds] rounds after
// the first), it reports the one with the fewest operations, shrunk to its
// shortest failing prefix that ends at a quiescent point. [Failure.HTML] is
// porcupine's visualization of that prefix: one timeline per client, and
// for an illegal history the longest order porcupine could build; hovering
// over an operation shows the model state before and after it (each local
// queue's runnext, ring and pending items, and the global queue). The file
// next to it with the extension .txt lists the same operations one per line.
// Item ids are positive; "nil" is a nil item returned by the queue.
//
// # Running long
//
// The package's tests run for a moment by default. For a campaign, set
// VSCHED_LIN_DURATION (for example 10m) or VSCHED_LIN_ROUNDS, or the test
// flags -lin.duration and -lin.rounds; VSCHED_LIN_SEED fixes the choice of
// operations, VSCHED_LIN_THIEVES and VSCHED_LIN_PROCS the concurrency, and
// VSCHED_ARTIFACTS the directory of the HTML files:
//
//	VSCHED_LIN_DURATION=10m go test -run Histories -timeout 0 ./linearizability/
//	VSCHED_LIN_DURATION=10m go test -tags vsched_explore -run Histories -timeout 0 ./linearizability/
//
// A program calls [Stress] with a [Config] (see [Config.WithEnv]).
package linearizability
