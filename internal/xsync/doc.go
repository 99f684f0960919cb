// Package xsync holds every synchronizing operation the scheduler performs:
// atomics named by the memory order they promise, a mutex, a one-shot
// park/unpark note, a spin hint and goroutine start.
//
// Nothing above this package imports sync/atomic or locks a sync.Mutex on
// shared scheduler state. That rule is what lets a second build of this
// package (build tag vsched_explore) turn every operation into a scheduling
// point of a controlled scheduler, so that a model checker sees each
// synchronizing step of the real code and can choose what runs next.
//
// # Memory orders
//
// The names follow the Go runtime's internal/runtime/atomic package, with
// the relaxed operations of C/C++ beside them:
//
//   - Load, Store, Cas, Add and Swap are sequentially consistent (SC).
//   - LoadAcq is a load-acquire: no later memory access of the calling
//     goroutine may be ordered before it. It pairs with a release store or a
//     release CAS of another goroutine, and makes everything that goroutine
//     wrote before that store visible.
//   - StoreRel is a store-release: no earlier memory access of the calling
//     goroutine may be ordered after it. CasRel is a compare-and-swap with
//     release semantics on success.
//   - LoadRelaxed, StoreRelaxed and CasRelaxed are atomic and order
//     nothing else. StoreRelaxed is for a location with a single writer: a
//     plain store in the default build, as the runtime stores the slots of
//     its run queue and its schedtick. A racing load sees the old or the
//     new value; a reader that must see the new one learns of it through a
//     later synchronizing operation of the writer (the queue's tail
//     StoreRel). Under the race detector it is atomic, so that the races
//     the algorithms tolerate (a thief reading a slot the owner overwrites,
//     then losing its CAS) are not reported.
//   - [FenceSC] is a sequentially consistent fence, for a StoreLoad
//     barrier between weaker operations.
//
// # The two builds
//
// The names document what an algorithm needs; the builds give it in two
// ways.
//
// The default build cannot give less than sequential consistency: Go's
// sync/atomic operations "behave as though executed in some sequentially
// consistent order" (the Go memory model), and user code has no
// acquire-only or release-only operation. So every operation here but
// StoreRelaxed is SC in the default build, at least as strong as its name
// promises, and FenceSC compiles to nothing: between SC operations it has
// nothing to add. That is sound only because StoreRelaxed, a plain store,
// is never the store side of a StoreLoad handshake; a call site that
// needed one there would need a real barrier. On amd64 this matches the
// runtime's own code: its StoreRel is an XCHG and its LoadAcq a plain MOV,
// exactly what sync/atomic's Store and Load compile to.
//
// The explorer build (tag vsched_explore) runs the code under the memory
// model chosen for the search: sequentially consistent, or RC11, the
// repaired C/C++ model, in which each operation gets exactly the order its
// name says, a load may read an older store that the model allows, and
// FenceSC has its C/C++ meaning. So a weaker order than an algorithm
// needs is a failure the explorer reports (the runq scenarios and the
// kernel and wait-slot models run under both), not a difference between
// the two builds that no test sees. The kernel's submit-then-check
// handshake is the example: a task published with the tail's StoreRel and
// then a load of nmspinning are not ordered in RC11, so wakep has a
// FenceSC between them, and without it the RC11 kernel models report a
// lost wakeup.
//
// # Cost
//
// In the default build every method is a one-line wrapper around sync/atomic
// (StoreRelaxed around a plain store)
// and is inlined by the compiler; check with
//
//	go build -gcflags=-m ./internal/xsync 2>&1 | grep 'can inline'
//
// The zero value of every type is ready to use and must not be copied after
// first use.
package xsync
