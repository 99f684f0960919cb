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
// The names follow the Go runtime's internal/runtime/atomic package:
//
//   - LoadAcq is a load-acquire: no later memory access of the calling
//     goroutine may be ordered before it. It pairs with a release store or a
//     release CAS of another goroutine, and makes everything that goroutine
//     wrote before that store visible.
//   - StoreRel is a store-release: no earlier memory access of the calling
//     goroutine may be ordered after it.
//   - CasRel is a compare-and-swap with release semantics on success.
//   - Load, Store, Cas, Add and Swap are sequentially consistent.
//   - StoreRelaxed ([UnsafePointer.StoreRelaxed], [Stat.StoreRelaxed]) is a
//     store with no ordering of its own, for a location with a single
//     writer: a plain store in the default build, as the runtime stores the
//     slots of its run queue and its schedtick. A racing load sees the old
//     or the new value; a reader that must see the new one learns of it
//     through a later synchronizing operation of the writer (the queue's
//     tail StoreRel). Under the race detector it is atomic, so that the
//     races the algorithms tolerate (a thief reading a slot the owner
//     overwrites, then losing its CAS) are not reported.
//
// The names document what an algorithm needs. The default build cannot give
// less than sequential consistency: Go's sync/atomic operations "behave as
// though executed in some sequentially consistent order" (the Go memory
// model), and user code has no acquire-only or release-only operation. So
// every operation here is sequentially consistent in the default build, which
// is at least as strong as each name promises. On amd64 that also matches the
// runtime's own code: its StoreRel is an XCHG and its LoadAcq a plain MOV,
// exactly what sync/atomic's Store and Load compile to.
//
// A plain MOV would be a release store on amd64, but StoreRel stays an
// XCHG on purpose: the kernel's submit-then-check handshake (publish a task
// with the tail's StoreRel, then load nmspinning) needs the StoreLoad
// barrier that the XCHG implies, exactly as the runtime's runqput and
// wakep do. With a MOV the load could pass the store, and a spinning M
// going idle could miss the task: a lost wakeup the explorer, which runs
// every operation sequentially consistent, would not see.
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
