package runq

import (
	"fmt"

	"github.com/vsched/vsched/internal/xsync"
)

// Global is the scheduler's global run queue, a FIFO of unbounded capacity:
// the runtime's sched.runq with its globrunq* functions. The zero value is an
// empty queue.
//
// The caller serializes every method but [Global.Len] with its scheduler
// lock, as the runtime does with sched.lock (mutating the global queue
// without it was runtime issue #40457). Len may be read without the lock, as
// a hint.
//
// Items live in a growable ring buffer, so there is no per-item allocation
// once the buffer has grown to the queue's high-water mark. A queue that
// empties with a ring of more than keepRing slots lets the ring go, so that
// a burst of millions of tasks does not leave its ring behind.
type Global[T any] struct {
	buf  []*T // ring buffer; len(buf) is zero or a power of two
	head int  // index in buf of the oldest item
	n    int  // number of items
	// size mirrors n for lock-free readers.
	size xsync.Int64
}

// Put appends g to the tail of the queue; it is the runtime's globrunqput.
// The caller holds the scheduler lock. Put panics if g is nil.
func (q *Global[T]) Put(g *T) {
	if g == nil {
		panic("runq: Global.Put of a nil item")
	}
	q.grow(1)
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = g
	q.setLen(q.n + 1)
}

// PutHead pushes g to the head of the queue, so that it is the next to
// leave; it is the runtime's globrunqputhead. The caller holds the scheduler
// lock. PutHead panics if g is nil.
func (q *Global[T]) PutHead(g *T) {
	if g == nil {
		panic("runq: Global.PutHead of a nil item")
	}
	q.grow(1)
	q.head = (q.head - 1) & (len(q.buf) - 1)
	q.buf[q.head] = g
	q.setLen(q.n + 1)
}

// PutBatch appends gs to the tail in order; it is the runtime's
// globrunqputbatch. The caller holds the scheduler lock. PutBatch panics if
// an item is nil, before it changes the queue.
func (q *Global[T]) PutBatch(gs []*T) {
	for i, g := range gs {
		if g == nil {
			panic(fmt.Sprintf("runq: Global.PutBatch: item %d is nil", i))
		}
	}
	q.grow(len(gs))
	mask := len(q.buf) - 1
	for i, g := range gs {
		q.buf[(q.head+q.n+i)&mask] = g
	}
	q.setLen(q.n + len(gs))
}

// Get removes and returns the oldest item, or nil when the queue is empty; it
// is the runtime's globrunqget (Go 1.25 and later). The caller holds the
// scheduler lock.
func (q *Global[T]) Get() *T {
	if q.n == 0 {
		return nil
	}
	g := q.pop()
	q.setLen(q.n)
	return g
}

// GetBatch removes a P's fair share of the queue: it returns the oldest item
// as g and appends the next n-1, in FIFO order, to dst, where
// n = min(max, Len, Len/procs+1) and at least 1; it is the runtime's
// globrunqgetbatch, which every caller passes max = Size/2. When the queue is
// empty it returns (nil, dst). The caller holds the scheduler lock.
//
// GetBatch panics if procs < 1.
func (q *Global[T]) GetBatch(max, procs int, dst []*T) (g *T, rest []*T) {
	if procs < 1 {
		panic(fmt.Sprintf("runq: Global.GetBatch: procs = %d, must be at least 1", procs))
	}
	if q.n == 0 {
		return nil, dst
	}
	n := min(max, q.n, q.n/procs+1)
	if n < 1 { // max < 1: a non-empty queue still yields one item
		n = 1
	}
	g = q.pop()
	for range n - 1 {
		dst = append(dst, q.pop())
	}
	q.setLen(q.n)
	return g, dst
}

// Len returns the number of items. It may be called without the scheduler
// lock; the result is then a hint that may already be stale.
func (q *Global[T]) Len() int { return int(q.size.Load()) }

// pop removes the oldest item; the queue must not be empty. It leaves
// q.size to the caller, which publishes the new length once.
func (q *Global[T]) pop() *T {
	g := q.buf[q.head]
	q.buf[q.head] = nil // let the garbage collector have it once it has run
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return g
}

func (q *Global[T]) setLen(n int) {
	q.n = n
	q.size.Store(int64(n))
	if n == 0 && len(q.buf) > keepRing {
		q.buf, q.head = nil, 0
	}
}

// keepRing is the largest ring an empty Global keeps: 64 Ki slots, 512
// KiB, as many tasks as the kernel keeps free records for. A queue that
// fills and drains a ring of up to that size over and over (one task
// spawning ten thousand, say) reuses it; a ring let go at every drain
// would be grown again by every burst: for ten thousand tasks, eleven
// allocations and 128 KiB.
const keepRing = 1 << 16

// grow makes room for k more items.
func (q *Global[T]) grow(k int) {
	need := q.n + k
	if need <= len(q.buf) {
		return
	}
	size := max(len(q.buf), 16)
	for size < need {
		size *= 2
	}
	buf := make([]*T, size)
	// Unwrap the ring so the oldest item lands at index 0.
	for i := range q.n {
		buf[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
	}
	q.buf = buf
	q.head = 0
}
