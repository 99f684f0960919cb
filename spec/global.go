package spec

import "fmt"

// Global is the specification of the global run queue: an unbounded FIFO.
type Global[T comparable] struct {
	items []T
}

// Put models globrunqput: append g at the tail.
func (q *Global[T]) Put(g T) { q.items = append(q.items, g) }

// PutHead models globrunqputhead: push g at the head.
func (q *Global[T]) PutHead(g T) { q.items = append([]T{g}, q.items...) }

// PutBatch models globrunqputbatch: append gs at the tail, in order.
func (q *Global[T]) PutBatch(gs []T) { q.items = append(q.items, gs...) }

// Get models globrunqget: remove the oldest item; ok is false when empty.
func (q *Global[T]) Get() (g T, ok bool) {
	if len(q.items) == 0 {
		return g, false
	}
	g = q.items[0]
	q.items = q.items[1:]
	return g, true
}

// GlobalBatchSize is the number of items globrunqgetbatch takes from a queue
// of size items for a scheduler of procs Ps: min(max, size, size/procs+1),
// and at least one when the queue is not empty. It panics if procs < 1.
func GlobalBatchSize(size, max, procs int) int {
	if procs < 1 {
		panic(fmt.Sprintf("spec: GlobalBatchSize: procs = %d, must be at least 1", procs))
	}
	if size == 0 {
		return 0
	}
	return min(size, maxInt(1, min(max, size/procs+1)))
}

// GetBatch models globrunqgetbatch: it removes GlobalBatchSize items, oldest
// first, and returns them; the first is the one to run.
func (q *Global[T]) GetBatch(max, procs int) []T {
	n := GlobalBatchSize(len(q.items), max, procs)
	out := append([]T(nil), q.items[:n]...)
	q.items = q.items[n:]
	return out
}

// Len is the number of items.
func (q *Global[T]) Len() int { return len(q.items) }

// Items returns a copy of the items, oldest first.
func (q *Global[T]) Items() []T { return append([]T(nil), q.items...) }

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}
