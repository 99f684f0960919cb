package runq

import (
	"fmt"

	"golang.org/x/sys/cpu"

	"github.com/vsched/vsched/internal/testhook"
	"github.com/vsched/vsched/internal/xsync"
)

// Queue is a P-local run queue: a single-producer, multi-consumer lock-free
// ring of [Size] slots plus a runnext slot, the runtime's p.runq, p.runqhead,
// p.runqtail and p.runnext. The zero value is an empty queue.
//
// Its total capacity is Size+1: Size in the ring and one in runnext. See the
// package documentation for who may call which method and why the protocol
// is safe.
type Queue[T any] struct {
	_ cpu.CacheLinePad
	// head is the index of the oldest ring item. Consumers (the owner and
	// thieves) move it forward by CAS.
	head xsync.Uint32
	_    cpu.CacheLinePad
	// tail is the index one past the newest ring item. Only the owner
	// stores it.
	tail xsync.Uint32
	_    cpu.CacheLinePad
	// runnext is the item to run next, or nil. Only the owner stores a
	// non-nil value; thieves may CAS it to nil.
	runnext xsync.Pointer[T]
	_       cpu.CacheLinePad
	ring    [Size]xsync.Pointer[T]
	// overflow holds the batch the last overflowing Put returned. Only the
	// owner touches it.
	overflow [Size/2 + 1]*T
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
	if g == nil {
		panic("runq: Queue.Put of a nil item")
	}
	if next {
		// Only the owner stores non-nil into runnext, so the loop ends as
		// soon as no thief has taken the old runnext in between.
		old := q.runnext.Load()
		for !q.runnext.Cas(old, g) {
			old = q.runnext.Load()
		}
		if old == nil {
			return nil
		}
		// Kick the old runnext out to the regular ring.
		g = old
	}
	for {
		h := q.head.LoadAcq() // load-acquire, synchronize with consumers
		t := q.tail.Load()    // only the owner writes tail
		if t-h < Size {
			q.ring[t%Size].Store(g)
			q.tail.StoreRel(t + 1) // store-release, makes the item available for consumption
			return nil
		}
		if batch := q.putSlow(g, h, t); batch != nil {
			return batch
		}
		// A consumer moved head after we read it: the ring has room now.
	}
}

// putSlow moves the oldest half of a full ring, plus g, into q.overflow; it
// is the runtime's runqputslow. It returns nil when its CAS on head lost to a
// consumer, in which case the ring is no longer full. Executed only by the
// owner.
func (q *Queue[T]) putSlow(g *T, h, t uint32) []*T {
	n := (t - h) / 2
	if n != Size/2 {
		panic(fmt.Sprintf("runq: putSlow: queue is not full (head %d, tail %d)", h, t))
	}
	batch := q.overflow[:n+1]
	for i := range n {
		batch[i] = q.ring[(h+i)%Size].Load()
	}
	if !q.head.CasRel(h, h+n) { // cas-release, commits consume
		return nil
	}
	batch[n] = g
	return batch
}

// PutBatch appends gs to the ring in order, as many as fit, and publishes
// them with one release store of the tail; it is the runtime's runqputbatch
// (Go 1.25 and later). It returns the items that did not fit, or nil.
// Executed only by the owner.
//
// PutBatch panics if an item is nil; the queue is then unchanged.
func (q *Queue[T]) PutBatch(gs []*T) (rest []*T) {
	h := q.head.LoadAcq() // load-acquire, synchronize with consumers
	t := q.tail.Load()
	n := 0
	for n < len(gs) && t-h < Size {
		g := gs[n]
		if g == nil {
			// Nothing is published yet, so the queue is unchanged.
			panic(fmt.Sprintf("runq: Queue.PutBatch: item %d is nil", n))
		}
		q.ring[t%Size].Store(g)
		t++
		n++
	}
	if n > 0 {
		q.tail.StoreRel(t) // store-release, makes the items available for consumption
	}
	if n == len(gs) {
		return nil
	}
	return gs[n:]
}

// Get removes and returns the next item to run; it is the runtime's runqget.
// runnext comes first, and inheritTime reports that g came from runnext and
// should share the current time slice. Otherwise Get takes the oldest ring
// item. It returns (nil, false) when the queue is empty. Executed only by the
// owner.
func (q *Queue[T]) Get() (g *T, inheritTime bool) {
	// If a CAS on runnext fails, only a thief can have cleared it, since
	// only the owner sets it non-nil, so there is no retry.
	if next := q.runnext.Load(); next != nil && q.runnext.Cas(next, nil) {
		return next, true
	}
	for {
		h := q.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := q.tail.Load()
		if t == h {
			return nil, false
		}
		g := q.ring[h%Size].Load()
		if q.head.CasRel(h, h+1) { // cas-release, commits consume
			return g, false
		}
	}
}

// Drain removes every item from the queue and appends them to dst, runnext
// first, then the ring in FIFO order; it is the runtime's runqdrain.
// Executed only by the owner.
//
// As in the runtime, head moves past the items before their slots are read:
// an item is handed on only once no thief can win it any more.
func (q *Queue[T]) Drain(dst []*T) []*T {
	if next := q.runnext.Load(); next != nil && q.runnext.Cas(next, nil) {
		dst = append(dst, next)
	}
	for {
		h := q.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := q.tail.Load()
		n := t - h
		if n == 0 {
			return dst
		}
		if n > Size { // read inconsistent h and t
			continue
		}
		if q.head.CasRel(h, t) { // cas-release, commits consume
			for i := range n {
				dst = append(dst, q.ring[(h+i)%Size].Load())
			}
			return dst
		}
	}
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
	return int(q.grab(nil, 0, batch, stealRunNext, pause))
}

// grab is runqgrab. It copies the grabbed items either into dst's ring
// starting at index dstHead (when dst is non-nil) or into batch.
func (q *Queue[T]) grab(dst *Queue[T], dstHead uint32, batch []*T, stealRunNext bool, pause func()) uint32 {
	for {
		h := q.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := q.tail.LoadAcq() // load-acquire, synchronize with the producer
		n := t - h
		n -= n / 2
		if n == 0 {
			if !stealRunNext {
				return 0
			}
			next := q.runnext.Load()
			if next == nil {
				return 0
			}
			// The owner may be about to run its own runnext: give it the
			// chance, so that two tasks handing off to each other are
			// not pulled apart (the runtime sleeps 3µs here).
			if pause != nil {
				pause()
			}
			if !q.runnext.Cas(next, nil) {
				continue
			}
			if dst != nil {
				dst.ring[dstHead%Size].Store(next)
			} else {
				batch[0] = next
			}
			return 1
		}
		if n > Size/2 { // read inconsistent h and t
			continue
		}
		if dst != nil {
			for i := range n {
				dst.ring[(dstHead+i)%Size].Store(q.ring[(h+i)%Size].Load())
			}
		} else {
			for i := range n {
				batch[i] = q.ring[(h+i)%Size].Load()
			}
		}
		if q.head.CasRel(h, h+n) { // cas-release, commits consume
			return n
		}
	}
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
// items, since a steal may bring Size/2.
func (q *Queue[T]) StealInto(dst *Queue[T], stealRunNext bool, pause func()) *T {
	if dst == q {
		panic("runq: Queue.StealInto: a queue cannot steal from itself")
	}
	t := dst.tail.Load()
	if used := t - dst.head.LoadAcq(); used > Size/2 {
		panic(fmt.Sprintf("runq: Queue.StealInto: destination lacks room: it holds %d ring items, a steal may bring Size/2 = %d", used, Size/2))
	}
	n := q.grab(dst, t, nil, stealRunNext, pause)
	if n == 0 {
		return nil
	}
	n--
	g := dst.ring[(t+n)%Size].Load()
	if n == 0 {
		return g
	}
	// The room check above keeps t-head+n < Size: the runtime's
	// "runqsteal: runq overflow" cannot happen.
	dst.tail.StoreRel(t + n) // store-release, makes the items available for consumption
	return g
}

// Empty reports whether the queue has no items; it is the runtime's
// runqempty. Can be executed by any goroutine.
//
// It never reports true while an item stays in the queue for the whole call:
// the owner may move an item from runnext to the ring (Put with next) and then
// take runnext (Get) between a reader's loads of head, tail and runnext, so
// Empty reads the tail again and retries if it moved. It may report false for
// a queue that has just been emptied.
func (q *Queue[T]) Empty() bool {
	for {
		h := q.head.Load()
		t := q.tail.Load()
		next := q.runnext.Load()
		if t == q.tail.Load() {
			return h == t && next == nil
		}
	}
}

// Len returns the number of items in the ring plus runnext. Can be executed
// by any goroutine; under concurrency the result is a snapshot that may
// already be stale, and it never exceeds Size+1.
func (q *Queue[T]) Len() int {
	for {
		h := q.head.Load()
		t := q.tail.Load()
		next := q.runnext.Load()
		if t != q.tail.Load() {
			continue
		}
		// head was read first, so a stale head can make the ring look
		// longer than it ever was.
		n := min(int(t-h), Size)
		if next != nil {
			n++
		}
		return n
	}
}

// TestHookStartAt makes an empty queue start its free-running head and tail
// counters at n, so that tests reach uint32 wraparound in a few operations.
// It is for this module's tests only. It panics if the queue is not empty.
func (q *Queue[T]) TestHookStartAt(_ testhook.Key, n uint32) {
	if !q.Empty() {
		panic("runq: TestHookStartAt on a non-empty queue")
	}
	q.head.Store(n)
	q.tail.Store(n)
}

// TestHookCounters returns the head and tail counters, for this module's
// tests and verifiers, which check that they stay within Size of each other
// and never move backwards. Executed only by the owner or in a quiescent
// state.
func (q *Queue[T]) TestHookCounters(_ testhook.Key) (head, tail uint32) {
	return q.head.Load(), q.tail.Load()
}
