package runq

import (
	"fmt"
	"unsafe"

	"github.com/vsched/vsched/internal/testhook"
)

// Queue is a P-local run queue: a single-producer, multi-consumer lock-free
// ring of [Size] slots plus a runnext slot, the runtime's p.runq, p.runqhead,
// p.runqtail and p.runnext. The zero value is an empty queue.
//
// Its total capacity is Size+1: Size in the ring and one in runnext. See the
// package documentation for who may call which method and why the protocol
// is safe.
//
// Queue is a typed view of an untyped ring of pointers: its methods are
// small enough to inline and the algorithm itself is compiled once, with
// every atomic operation inlined, whatever T is.
type Queue[T any] struct {
	r ring
}

// Put adds g to the queue; it is the runtime's runqput, and its overflow path
// is runqputslow. Executed only by the owner.
//
// With next, g goes into runnext, and the item it displaces, if any, is
// appended to the ring instead. Without next, g is appended to the ring.
//
// When the ring is full, the Size/2 oldest ring items and the item being
// appended leave the queue and are returned in FIFO order (Size/2+1 items);
// the ring keeps the newer Size/2. The caller must put the returned batch on
// the global queue. The batch lives in a buffer inside q, so overflow
// allocates nothing; it stays valid until the owner's next call to Put.
// When nothing overflows, Put returns nil.
//
// Put panics if g is nil.
func (q *Queue[T]) Put(g *T, next bool) (overflow []*T) {
	return typed[T](q.r.put(unsafe.Pointer(g), next))
}

// PutBatch appends gs to the ring in order, as many as fit, and publishes
// them with one release store of the tail; it is the runtime's runqputbatch
// (Go 1.25 and later). It returns the items that did not fit, or nil.
// Executed only by the owner.
//
// PutBatch panics if an item is nil; the queue is then unchanged.
func (q *Queue[T]) PutBatch(gs []*T) (rest []*T) {
	return typed[T](q.r.putBatch(untyped(gs)))
}

// Get removes and returns the next item to run; it is the runtime's runqget.
// runnext comes first, and inheritTime reports that g came from runnext and
// should share the current time slice. Otherwise Get takes the oldest ring
// item. It returns (nil, false) when the queue is empty. Executed only by the
// owner.
func (q *Queue[T]) Get() (g *T, inheritTime bool) {
	p, inheritTime := q.r.get()
	return (*T)(p), inheritTime
}

// Drain removes every item from the queue and appends them to dst, runnext
// first, then the ring in FIFO order; it is the runtime's runqdrain.
// Executed only by the owner.
//
// As in the runtime, head moves past the items before their slots are read:
// an item is handed on only once no thief can win it any more.
func (q *Queue[T]) Drain(dst []*T) []*T {
	return typed[T](q.r.drain(untyped(dst)))
}

// Grab takes about half of the queue's items into batch and returns how many
// it took; it is the runtime's runqgrab. Can be executed by any goroutine but
// the owner.
//
// For an observed ring length L it takes the oldest L - L/2 items (ceil(L/2),
// at most Size/2) into batch[:n], in FIFO order. When the ring looked empty,
// stealRunNext is set and runnext holds an item, it calls pause (if non-nil)
// and then takes runnext alone (n == 1). Otherwise it returns 0.
//
// Grab panics if len(batch) < Size/2.
func (q *Queue[T]) Grab(batch []*T, stealRunNext bool, pause func()) int {
	if len(batch) < Size/2 {
		panic(fmt.Sprintf("runq: Queue.Grab: batch has %d slots, needs Size/2 = %d", len(batch), Size/2))
	}
	return int(q.r.grab(nil, 0, untyped(batch), stealRunNext, pause))
}

// StealInto moves about half of q's items into dst and returns one of them to
// run, or nil when it took nothing; it is the runtime's runqsteal. Executed
// only by the owner of dst, which must not be q.
//
// The items are grabbed as by [Queue.Grab], straight into dst's ring. The
// returned item is the last one grabbed; the others are published in dst
// with one release store, in q's FIFO order.
//
// StealInto panics, before taking anything, if dst holds more than Size/2
// ring items, since a steal may bring Size/2.
func (q *Queue[T]) StealInto(dst *Queue[T], stealRunNext bool, pause func()) *T {
	if dst == q {
		panic("runq: Queue.StealInto: a queue cannot steal from itself")
	}
	return (*T)(q.r.steal(&dst.r, stealRunNext, pause))
}

// Empty reports whether the queue has no items; it is the runtime's
// runqempty. Can be executed by any goroutine.
//
// It never reports true while an item stays in the queue for the whole call:
// the owner may move an item from runnext to the ring (Put with next) and then
// take runnext (Get) between a reader's loads of head, tail and runnext, so
// Empty reads the tail again and retries if it moved. It may report false for
// a queue that has just been emptied.
func (q *Queue[T]) Empty() bool { return q.r.empty() }

// Len returns the number of items in the ring plus runnext. Can be executed
// by any goroutine; under concurrency the result is a snapshot that may
// already be stale, and it never exceeds Size+1.
func (q *Queue[T]) Len() int { return q.r.len() }

// The test hooks of internal/testhook; their docs are there.
func init() {
	testhook.RunqStartAt = func(q any, n uint32) { q.(ringOwner).ownRing().startAt(n) }
	testhook.RunqCounters = func(q any) (uint32, uint32) { return q.(ringOwner).ownRing().counters() }
}

// ringOwner is a Queue[T] of any T, seen by its ring.
type ringOwner interface{ ownRing() *ring }

func (q *Queue[T]) ownRing() *ring { return &q.r }

// startAt makes an empty ring start its free-running head and tail
// counters at n.
func (r *ring) startAt(n uint32) {
	if !r.empty() {
		panic("runq: startAt on a non-empty queue")
	}
	r.head.Store(n)
	r.tail.Store(n)
}

// counters returns the head and tail counters.
func (r *ring) counters() (head, tail uint32) { return r.head.Load(), r.tail.Load() }

// typed views a slice of untyped item pointers as the *T they are. The two
// slice types have the same layout; a nil slice stays nil.
func typed[T any](s []unsafe.Pointer) []*T {
	return unsafe.Slice((**T)(unsafe.Pointer(unsafe.SliceData(s))), cap(s))[:len(s)]
}

// untyped views a slice of *T as untyped pointers; a nil slice stays nil.
func untyped[T any](s []*T) []unsafe.Pointer {
	return unsafe.Slice((*unsafe.Pointer)(unsafe.Pointer(unsafe.SliceData(s))), cap(s))[:len(s)]
}
