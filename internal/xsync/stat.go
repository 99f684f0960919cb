package xsync

import (
	"sync/atomic"
	"unsafe"
)

// Stat is an atomic counter for statistics: what a scheduler counts for its
// users and its monitor, never what it decides by. It is not a scheduling
// point in either build, so the explorer does not spend executions on
// interleavings of counters; code whose correctness depends on a value must
// use [Uint64] instead.
type Stat struct{ v atomic.Uint64 }

// Load returns the counter's value.
func (s *Stat) Load() uint64 { return s.v.Load() }

// Store sets the counter.
func (s *Stat) Store(v uint64) { s.v.Store(v) }

// StoreRelaxed sets the counter with a plain store where that cannot tear
// (see the package doc): for a counter with a single writer, which stores
// it on a hot path and does not need its readers to see it at once.
func (s *Stat) StoreRelaxed(v uint64) { storeRelaxed64(unsafe.Pointer(&s.v), v) }

// Add adds delta to the counter.
func (s *Stat) Add(delta uint64) { s.v.Add(delta) }

// Label is an atomic pointer for statistics, as [Stat] is a counter: a
// name the monitor reports, never what the scheduler decides by. It is not
// a scheduling point in either build.
type Label[T any] struct{ v atomic.Pointer[T] }

// Load returns the pointer.
func (l *Label[T]) Load() *T { return l.v.Load() }

// Store sets the pointer.
func (l *Label[T]) Store(p *T) { l.v.Store(p) }

// Hint is an atomic flag for a heuristic: what a scheduler may decide by
// only where either decision is correct, so that a stale value costs time
// and never a task. Like [Stat] it is not a scheduling point in either
// build.
type Hint struct{ v atomic.Bool }

// Load returns the flag.
func (h *Hint) Load() bool { return h.v.Load() }

// Store sets the flag.
func (h *Hint) Store(v bool) { h.v.Store(v) }
