package spec

// Queue is the specification of a P-local run queue: a FIFO ring of at most
// Cap items plus an optional runnext item. Items are compared with ==; the
// model assumes each item is in the queue at most once.
type Queue[T comparable] struct {
	cap     int
	ring    []T
	next    T
	hasNext bool
}

// NewQueue returns an empty Queue whose ring holds capacity items.
// capacity must be even and positive, as overflow moves half of it.
func NewQueue[T comparable](capacity int) *Queue[T] {
	if capacity < 2 || capacity%2 != 0 {
		panic("spec: NewQueue: capacity must be even and positive")
	}
	return &Queue[T]{cap: capacity}
}

// Cap returns the capacity of the ring.
func (q *Queue[T]) Cap() int { return q.cap }

// Put models runqput. With next, g becomes runnext and the previous runnext,
// if any, is appended to the ring. If the ring is full when an item is
// appended, the Cap/2 oldest ring items and the appended item leave the queue
// and are returned in FIFO order; otherwise overflow is nil.
func (q *Queue[T]) Put(g T, next bool) (overflow []T) {
	if next {
		old, had := q.next, q.hasNext
		q.next, q.hasNext = g, true
		if !had {
			return nil
		}
		g = old
	}
	if len(q.ring) < q.cap {
		q.ring = append(q.ring, g)
		return nil
	}
	half := q.cap / 2
	overflow = append(append([]T(nil), q.ring[:half]...), g)
	q.ring = append([]T(nil), q.ring[half:]...)
	return overflow
}

// PutBatch models runqputbatch: it appends as many of gs as fit and returns
// the rest (nil when all fit).
func (q *Queue[T]) PutBatch(gs []T) (rest []T) {
	n := min(len(gs), q.cap-len(q.ring))
	q.ring = append(q.ring, gs[:n]...)
	if n == len(gs) {
		return nil
	}
	return gs[n:]
}

// Get models runqget: runnext first (inheritTime true), else the oldest ring
// item; ok is false when the queue is empty.
func (q *Queue[T]) Get() (g T, ok, inheritTime bool) {
	if q.hasNext {
		g = q.next
		q.clearNext()
		return g, true, true
	}
	if len(q.ring) == 0 {
		return g, false, false
	}
	g = q.ring[0]
	q.ring = q.ring[1:]
	return g, true, false
}

// Drain models runqdrain: every item, runnext first, then the ring in FIFO
// order.
func (q *Queue[T]) Drain() []T {
	var out []T
	if q.hasNext {
		out = append(out, q.next)
		q.clearNext()
	}
	out = append(out, q.ring...)
	q.ring = nil
	return out
}

// StealAmount is the number of ring items a steal takes when it observed a
// ring of length observed: observed - observed/2, that is ceil(observed/2).
func StealAmount(observed int) int { return observed - observed/2 }

// Grab models runqgrab for a thief that observed a ring of length observed.
// With observed >= 1 it removes and returns the oldest StealAmount(observed)
// ring items. With observed == 0 (the ring looked empty) it removes and
// returns runnext when stealRunNext is set and runnext holds an item, and
// nothing otherwise; this holds even if the ring has filled since, because
// the thief's decision was made on what it observed.
//
// Grab returns a *Violation, and changes nothing, when observed is not a
// length the ring can have had when the steal committed: negative, or above
// the current ring length (a successful steal commits while head is where
// the thief read it, and the tail only grows, so the ring is at least as long
// as observed). Since the ring never holds more than Cap items, a legal
// observation never steals more than Cap/2; a torn read of head and tail,
// which could suggest more, is one the code must retry.
//
// A grab without stealRunNext that observed an empty ring commits when it
// reads the tail: it read head first and head never passes tail, so the
// ring was empty at that moment. Grab(0, false) on a non-empty ring is
// therefore a violation. With stealRunNext it is not: the thief reads
// runnext after the tail, and the owner may meanwhile append to the ring and
// take runnext, so a grab can find nothing in a queue that never was empty.
func (q *Queue[T]) Grab(observed int, stealRunNext bool) ([]T, error) {
	if observed < 0 || observed > len(q.ring) {
		return nil, violation("steal amount", "observed length %d is impossible for a ring of %d items", observed, len(q.ring))
	}
	if observed == 0 && !stealRunNext && len(q.ring) > 0 {
		return nil, violation("steal amount", "a grab without stealRunNext took nothing from a ring of %d items; it commits when it reads the tail, and the ring was empty then", len(q.ring))
	}
	n := StealAmount(observed)
	if n == 0 {
		if !stealRunNext || !q.hasNext {
			return nil, nil
		}
		g := q.next
		q.clearNext()
		return []T{g}, nil
	}
	got := append([]T(nil), q.ring[:n]...)
	q.ring = q.ring[n:]
	return got, nil
}

// GrabOutcomes returns every result a concurrent Grab could legally return in
// the current state, one per possible observed length, without changing q:
// for each observed length 1..RingLen() the oldest StealAmount(observed) ring
// items, plus, for observed length 0, runnext alone (if stealRunNext and
// runnext is set) or nothing (if stealRunNext or the ring is empty; see
// Grab).
func (q *Queue[T]) GrabOutcomes(stealRunNext bool) [][]T {
	var outs [][]T
	switch {
	case stealRunNext && q.hasNext:
		outs = append(outs, []T{q.next})
	case stealRunNext || len(q.ring) == 0:
		outs = append(outs, nil)
	}
	for observed := 1; observed <= len(q.ring); observed++ {
		n := StealAmount(observed)
		if observed > 1 && n == StealAmount(observed-1) {
			continue // same outcome as the shorter observation
		}
		outs = append(outs, append([]T(nil), q.ring[:n]...))
	}
	return outs
}

// StealInto models runqsteal: a Grab by the owner of dst for the observed
// length, whose last item is returned and whose other items are appended to
// dst's ring in FIFO order. ok is false when nothing was taken.
//
// It returns a *Violation, and changes nothing, if the observation is
// impossible (see Grab) or dst lacks room for what may be stolen.
func (q *Queue[T]) StealInto(dst *Queue[T], observed int, stealRunNext bool) (g T, ok bool, err error) {
	if len(dst.ring) > dst.cap/2 {
		return g, false, violation("bounds", "steal destination holds %d ring items, more than Cap/2 = %d", len(dst.ring), dst.cap/2)
	}
	got, err := q.Grab(observed, stealRunNext)
	if err != nil || len(got) == 0 {
		return g, false, err
	}
	last := len(got) - 1
	dst.ring = append(dst.ring, got[:last]...)
	return got[last], true, nil
}

// Empty models runqempty: no ring item and no runnext.
func (q *Queue[T]) Empty() bool { return len(q.ring) == 0 && !q.hasNext }

// Len is the number of ring items plus one if runnext is set.
func (q *Queue[T]) Len() int {
	if q.hasNext {
		return len(q.ring) + 1
	}
	return len(q.ring)
}

// RingLen is the number of ring items.
func (q *Queue[T]) RingLen() int { return len(q.ring) }

// Ring returns a copy of the ring items, oldest first.
func (q *Queue[T]) Ring() []T { return append([]T(nil), q.ring...) }

// RunNext returns runnext and whether it is set.
func (q *Queue[T]) RunNext() (g T, ok bool) { return q.next, q.hasNext }

// Clone returns an independent copy of q.
func (q *Queue[T]) Clone() *Queue[T] {
	c := *q
	c.ring = q.Ring()
	return &c
}

func (q *Queue[T]) clearNext() {
	var zero T
	q.next, q.hasNext = zero, false
}
