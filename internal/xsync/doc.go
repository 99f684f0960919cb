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
// # Cost
//
// In the default build every method is a one-line wrapper around sync/atomic
// and is inlined by the compiler; check with
//
//	go build -gcflags=-m ./internal/xsync 2>&1 | grep 'can inline'
//
// The zero value of every type is ready to use and must not be copied after
// first use.
package xsync
