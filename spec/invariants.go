package spec

// The safety properties of the runtime reference, section 7, as executable
// checks of what a checker observes from outside. Items 4 (ring FIFO) and 6
// (runnext rules) are also what the Queue model computes, so an
// implementation that returns the model's results satisfies them.

// Ledger checks conservation (item 1): every item that enters the system
// leaves it exactly once. It tracks items between Enter and Leave wherever
// they are (a ring, runnext, the global queue, a thief's hands).
type Ledger[T comparable] struct {
	live map[T]bool // true: in the system; false: left it
}

// Enter records that g was submitted. Submitting an item that is already in
// the system is a violation.
func (l *Ledger[T]) Enter(g T) error {
	if l.live == nil {
		l.live = make(map[T]bool)
	}
	if l.live[g] {
		return violation("conservation", "item %v submitted while it is still queued", g)
	}
	l.live[g] = true
	return nil
}

// Leave records that g was handed to a consumer. Handing out an item that
// was never submitted, or one that was already handed out (a duplication),
// is a violation.
func (l *Ledger[T]) Leave(g T) error {
	live, known := l.live[g]
	switch {
	case !known:
		return violation("conservation", "item %v handed out but never submitted", g)
	case !live:
		return violation("conservation", "item %v handed out twice", g)
	}
	l.live[g] = false
	return nil
}

// Live returns the number of items submitted and not yet handed out. Once a
// system is drained, Live must be 0, or an item was lost.
func (l *Ledger[T]) Live() int {
	n := 0
	for _, in := range l.live {
		if in {
			n++
		}
	}
	return n
}

// CheckCounters checks the bounds of item 2 on a ring's free-running
// counters: 0 <= tail-head <= capacity, in uint32 arithmetic.
func CheckCounters(capacity int, head, tail uint32) error {
	if tail-head > uint32(capacity) {
		return violation("bounds", "tail-head = %d (head %d, tail %d) exceeds the capacity %d", tail-head, head, tail, capacity)
	}
	return nil
}

// CheckMonotonic checks item 3: head and tail never move backwards, in
// uint32 arithmetic (a forward move is less than 2^31).
func CheckMonotonic(prevHead, prevTail, head, tail uint32) error {
	if head-prevHead >= 1<<31 {
		return violation("monotonicity", "head moved back from %d to %d", prevHead, head)
	}
	if tail-prevTail >= 1<<31 {
		return violation("monotonicity", "tail moved back from %d to %d", prevTail, tail)
	}
	return nil
}

// CheckOverflow checks the overflow bound of item 2: a put with a ring of
// ringLen items (before the put) moves capacity/2+1 items out exactly when
// the ring was full, and none otherwise.
func CheckOverflow(capacity, ringLen, overflowLen int) error {
	want := 0
	if ringLen == capacity {
		want = capacity/2 + 1
	}
	if overflowLen != want {
		return violation("bounds", "a put on a ring of %d/%d items overflowed %d items, want %d", ringLen, capacity, overflowLen, want)
	}
	return nil
}

// CheckGrab checks the steal bounds of items 2 and 5 that hold whatever the
// observed length was: a grab takes at most capacity/2 ring items, and a
// runnext steal takes exactly one item.
func CheckGrab(capacity, took int, tookRunNext bool) error {
	switch {
	case took < 0 || took > capacity/2:
		return violation("steal amount", "a grab took %d items, the bound is capacity/2 = %d", took, capacity/2)
	case tookRunNext && took != 1:
		return violation("steal amount", "a runnext steal took %d items, want 1", took)
	}
	return nil
}

// CheckPrefix checks item 4 for a consumer: the items taken are the oldest
// items of the ring before the operation, in order.
func CheckPrefix[T comparable](ringBefore, taken []T) error {
	if len(taken) > len(ringBefore) {
		return violation("ring FIFO", "took %d items from a ring of %d", len(taken), len(ringBefore))
	}
	for i, g := range taken {
		if ringBefore[i] != g {
			return violation("ring FIFO", "item %d taken is %v, the ring's item %d is %v", i, g, i, ringBefore[i])
		}
	}
	return nil
}

// CheckRunNextSteal checks the thief's side of item 6: a steal takes runnext
// only when runnext stealing was asked for and the ring looked empty
// (observedRingLen == 0).
func CheckRunNextSteal(tookRunNext, stealRunNext bool, observedRingLen int) error {
	if tookRunNext && (!stealRunNext || observedRingLen != 0) {
		return violation("runnext rules", "a steal took runnext (stealRunNext %v) though the ring looked %d items long", stealRunNext, observedRingLen)
	}
	return nil
}

// CheckEmpty checks item 7: Empty never reports true while an item stays in
// the queue for the whole call.
func CheckEmpty(reported, occupiedThroughout bool) error {
	if reported && occupiedThroughout {
		return violation("empty never falsely true", "Empty reported true while an item was in the queue for the whole call")
	}
	return nil
}

// CheckGlobalBatch checks item 9's batch rule: a batch from a global queue of
// size items holds GlobalBatchSize(size, max, procs) items.
func CheckGlobalBatch(size, max, procs, got int) error {
	if want := GlobalBatchSize(size, max, procs); got != want {
		return violation("global batch", "a batch from %d items (max %d, procs %d) took %d, want %d", size, max, procs, got, want)
	}
	return nil
}

// CheckGlobalLen checks item 9: the size a global queue reports equals the
// number of items in it.
func CheckGlobalLen(reported, actual int) error {
	if reported != actual {
		return violation("global size", "the global queue reports %d items and holds %d", reported, actual)
	}
	return nil
}
