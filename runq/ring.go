package runq

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/cpu"

	"github.com/vsched/vsched/internal/xsync"
)

// ring is the algorithm behind [Queue], on untyped item pointers. Each method
// is the runtime function it names; [Queue] documents the behaviour and who
// may call what.
type ring struct {
	_ cpu.CacheLinePad
	// head is the index of the oldest ring item. Consumers (the owner and
	// thieves) move it forward by CAS-release, so that a reader of the new
	// head also sees the tail that brought those items (relaxed, Empty can
	// call a queue empty that is not; see the minimality table in
	// docs/VERIFICATION.md). Its loads are acquire, as in the runtime:
	// RC11 would let them be relaxed (it has no load buffering, so a
	// thief's read of a slot cannot see the owner's later overwrite), C11
	// and compilers that drop control dependencies would not. Empty and
	// Len load it SC (see Empty).
	head xsync.Uint32
	_    cpu.CacheLinePad
	// tail is the index one past the newest ring item. Only the owner
	// stores it, with release, publishing the slots (relaxed, a thief may
	// read a slot before its item: mutants put-tail-relaxed and the like);
	// the owner reads it relaxed, as its only writer; a thief acquires it
	// (grab-tail-relaxed); Empty and Len load it SC.
	tail xsync.Uint32
	_    cpu.CacheLinePad
	// runnext is the item to run next, or nil. Only the owner stores a
	// non-nil value, by an SC swap; consumers take it by an SC CAS (no runq
	// scenario fails with acq_rel, relaxed fails: get-runnext-relaxed).
	// The default build has no cheaper swap or CAS to give.
	runnext xsync.UnsafePointer
	_       cpu.CacheLinePad
	// slots hold the items. Only the owner writes them, relaxed (a plain
	// store in the default build), and reads them relaxed; a thief reads
	// them relaxed too, after the acquire of tail that published them.
	slots [Size]xsync.UnsafePointer
	// overflow holds the batch the last overflowing put returned. Only the
	// owner touches it.
	overflow [Size/2 + 1]unsafe.Pointer
}

// put is runqput. Executed only by the owner.
func (r *ring) put(g unsafe.Pointer, next bool) []unsafe.Pointer {
	if g == nil {
		panic("runq: Queue.Put of a nil item")
	}
	if next {
		// Only the owner stores non-nil into runnext and thieves only
		// take it, so one swap does what the runtime's CAS loop does: it
		// returns the old runnext, or nil if a thief took it first. It
		// also asks for the cache line once, where a load and then a CAS
		// ask twice when a thief has just read it.
		old := r.runnext.Swap(g)
		if old == nil {
			return nil
		}
		// Kick the old runnext out to the regular ring.
		g = old
	}
	for {
		h := r.head.LoadAcq() // load-acquire, synchronize with consumers
		t := r.tail.LoadRelaxed()
		if t-h < Size {
			r.slots[t%Size].StoreRelaxed(g)
			r.tail.StoreRel(t + 1) // store-release, makes the item available for consumption
			return nil
		}
		if batch := r.putSlow(g, h, t); batch != nil {
			return batch
		}
		// A consumer moved head after we read it: the ring has room now.
	}
}

// putSlow is runqputslow: it moves the oldest half of a full ring, plus g,
// into r.overflow. It returns nil when its CAS on head lost to a consumer, in
// which case the ring is no longer full. Executed only by the owner.
func (r *ring) putSlow(g unsafe.Pointer, h, t uint32) []unsafe.Pointer {
	n := (t - h) / 2
	if n != Size/2 {
		panic(fmt.Sprintf("runq: putSlow: queue is not full (head %d, tail %d)", h, t))
	}
	batch := r.overflow[:n+1]
	for i := range n {
		batch[i] = r.slots[(h+i)%Size].LoadRelaxed()
	}
	if !r.head.CasRel(h, h+n) { // cas-release, commits consume
		return nil
	}
	batch[n] = g
	return batch
}

// putBatch is runqputbatch (Go 1.25 and later). Executed only by the owner.
func (r *ring) putBatch(gs []unsafe.Pointer) []unsafe.Pointer {
	// Refuse a nil anywhere in the batch, also among the items that will
	// not fit and go back to the caller, before anything is written.
	for i, g := range gs {
		if g == nil {
			panic(fmt.Sprintf("runq: Queue.PutBatch: item %d is nil", i))
		}
	}
	h := r.head.LoadAcq() // load-acquire, synchronize with consumers
	t := r.tail.LoadRelaxed()
	n := 0
	for n < len(gs) && t-h < Size {
		r.slots[t%Size].StoreRelaxed(gs[n])
		t++
		n++
	}
	if n > 0 {
		r.tail.StoreRel(t) // store-release, makes the items available for consumption
	}
	if n == len(gs) {
		return nil
	}
	return gs[n:]
}

// get is runqget. Executed only by the owner.
func (r *ring) get() (unsafe.Pointer, bool) {
	// If a CAS on runnext fails, only a thief can have cleared it, since
	// only the owner sets it non-nil, so there is no retry.
	if next := r.runnext.Load(); next != nil && r.runnext.Cas(next, nil) {
		return next, true
	}
	for {
		h := r.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := r.tail.LoadRelaxed()
		if t == h {
			return nil, false
		}
		g := r.slots[h%Size].LoadRelaxed()
		if r.head.CasRel(h, h+1) { // cas-release, commits consume
			return g, false
		}
	}
}

// drain is runqdrain. Executed only by the owner.
func (r *ring) drain(dst []unsafe.Pointer) []unsafe.Pointer {
	if next := r.runnext.Load(); next != nil && r.runnext.Cas(next, nil) {
		dst = append(dst, next)
	}
	for {
		h := r.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := r.tail.LoadRelaxed()
		n := t - h
		if n == 0 {
			return dst
		}
		if n > Size { // read inconsistent h and t
			continue
		}
		if r.head.CasRel(h, t) { // cas-release, commits consume
			for i := range n {
				dst = append(dst, r.slots[(h+i)%Size].LoadRelaxed())
			}
			return dst
		}
	}
}

// grab is runqgrab. It copies the grabbed items either into dst's slots
// starting at index dstHead (when dst is non-nil, for steal) or into batch.
// Executed by any goroutine but the owner.
func (r *ring) grab(dst *ring, dstHead uint32, batch []unsafe.Pointer, stealRunNext bool, pause func()) uint32 {
	for {
		h := r.head.LoadAcq() // load-acquire, synchronize with other consumers
		t := r.tail.LoadAcq() // load-acquire, synchronize with the producer
		n := t - h
		n -= n / 2
		if n == 0 {
			if !stealRunNext {
				return 0
			}
			next := r.runnext.Load()
			if next == nil {
				return 0
			}
			// The owner may be about to run its own runnext: give it the
			// chance, so that two tasks handing off to each other are
			// not pulled apart (the runtime sleeps 3µs here).
			if pause != nil {
				pause()
			}
			if !r.runnext.Cas(next, nil) {
				continue
			}
			if dst != nil {
				dst.slots[dstHead%Size].StoreRelaxed(next)
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
				dst.slots[(dstHead+i)%Size].StoreRelaxed(r.slots[(h+i)%Size].LoadRelaxed())
			}
		} else {
			for i := range n {
				batch[i] = r.slots[(h+i)%Size].LoadRelaxed()
			}
		}
		if r.head.CasRel(h, h+n) { // cas-release, commits consume
			return n
		}
	}
}

// steal is runqsteal, with the room check moved before the grab. Executed
// only by the owner of dst.
func (r *ring) steal(dst *ring, stealRunNext bool, pause func()) unsafe.Pointer {
	t := dst.tail.LoadRelaxed()
	if used := t - dst.head.LoadAcq(); used > Size/2 {
		panic(fmt.Sprintf("runq: Queue.StealInto: destination lacks room: it holds %d ring items, a steal may bring Size/2 = %d", used, Size/2))
	}
	n := r.grab(dst, t, nil, stealRunNext, pause)
	if n == 0 {
		return nil
	}
	n--
	g := dst.slots[(t+n)%Size].LoadRelaxed()
	if n == 0 {
		return g
	}
	// The room check above keeps t-head+n < Size: the runtime's
	// "runqsteal: runq overflow" cannot happen.
	dst.tail.StoreRel(t + n) // store-release, makes the items available for consumption
	return g
}

// empty is runqempty. Can be executed by any goroutine. Its loads are SC:
// a spinning M that gives up decrements nmspinning (an SC read-modify-write)
// and then asks Empty of every queue, and only SC loads stay ordered after
// the decrement (mutant empty-loads-acquire).
func (r *ring) empty() bool {
	for {
		h := r.head.Load()
		t := r.tail.Load()
		next := r.runnext.Load()
		if t == r.tail.Load() {
			return h == t && next == nil
		}
	}
}

// len counts the ring items and runnext. Can be executed by any goroutine.
func (r *ring) len() int {
	for {
		h := r.head.Load()
		t := r.tail.Load()
		next := r.runnext.Load()
		if t != r.tail.Load() {
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
