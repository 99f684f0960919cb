//go:build !vsched_explore

package xsync

import (
	"sync/atomic"
	"unsafe"
)

// FenceSC is a sequentially consistent fence: no memory access of the
// calling goroutine after it is ordered before one before it, and the fences
// of all goroutines are in one total order that agrees with what they see.
// It states where an algorithm needs a StoreLoad barrier between weaker
// operations. In the default build every operation here but StoreRelaxed
// is sequentially consistent already (sync/atomic), so the fence has
// nothing to add and compiles to nothing; it does not order a
// StoreRelaxed, a plain store (see the package doc). The explorer's weak
// memory model (RC11) gives it its meaning.
func FenceSC() {}

// Uint32 is an atomic uint32.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads x (sequentially consistent).
func (x *Uint32) Load() uint32 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint32) LoadAcq() uint32 { return x.v.Load() }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Uint32) LoadRelaxed() uint32 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint32) Store(v uint32) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint32) StoreRel(v uint32) { x.v.Store(v) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *Uint32) StoreRelaxed(v uint32) { storeRelaxed32(unsafe.Pointer(x), uint32(v)) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint32) Cas(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint32) CasRel(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Uint32) CasRelaxed(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Uint32) Add(delta uint32) uint32 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Uint32) Swap(v uint32) uint32 { return x.v.Swap(v) }

// Uint64 is an atomic uint64.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads x (sequentially consistent).
func (x *Uint64) Load() uint64 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint64) LoadAcq() uint64 { return x.v.Load() }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Uint64) LoadRelaxed() uint64 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint64) Store(v uint64) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint64) StoreRel(v uint64) { x.v.Store(v) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *Uint64) StoreRelaxed(v uint64) { storeRelaxed64(unsafe.Pointer(x), uint64(v)) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint64) Cas(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint64) CasRel(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Uint64) CasRelaxed(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Uint64) Add(delta uint64) uint64 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Uint64) Swap(v uint64) uint64 { return x.v.Swap(v) }

// Int32 is an atomic int32.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads x (sequentially consistent).
func (x *Int32) Load() int32 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Int32) LoadAcq() int32 { return x.v.Load() }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Int32) LoadRelaxed() int32 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int32) Store(v int32) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Int32) StoreRel(v int32) { x.v.Store(v) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *Int32) StoreRelaxed(v int32) { storeRelaxed32(unsafe.Pointer(x), uint32(v)) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int32) Cas(old, new int32) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Int32) CasRel(old, new int32) bool { return x.v.CompareAndSwap(old, new) }

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Int32) CasRelaxed(old, new int32) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Int32) Add(delta int32) int32 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Int32) Swap(v int32) int32 { return x.v.Swap(v) }

// Int64 is an atomic int64.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads x (sequentially consistent).
func (x *Int64) Load() int64 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Int64) LoadAcq() int64 { return x.v.Load() }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Int64) LoadRelaxed() int64 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int64) Store(v int64) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Int64) StoreRel(v int64) { x.v.Store(v) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *Int64) StoreRelaxed(v int64) { storeRelaxed64(unsafe.Pointer(x), uint64(v)) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int64) Cas(old, new int64) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Int64) CasRel(old, new int64) bool { return x.v.CompareAndSwap(old, new) }

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Int64) CasRelaxed(old, new int64) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Int64) Add(delta int64) int64 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Int64) Swap(v int64) int64 { return x.v.Swap(v) }

// Pointer is an atomic pointer to a T.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads x (sequentially consistent).
func (x *Pointer[T]) Load() *T { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Pointer[T]) LoadAcq() *T { return x.v.Load() }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Pointer[T]) LoadRelaxed() *T { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Pointer[T]) Store(v *T) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Pointer[T]) StoreRel(v *T) { x.v.Store(v) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *Pointer[T]) StoreRelaxed(v *T) { storeRelaxedPtr(unsafe.Pointer(x), unsafe.Pointer(v)) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Pointer[T]) Cas(old, new *T) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Pointer[T]) CasRel(old, new *T) bool { return x.v.CompareAndSwap(old, new) }

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Pointer[T]) CasRelaxed(old, new *T) bool { return x.v.CompareAndSwap(old, new) }

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Pointer[T]) Swap(v *T) *T { return x.v.Swap(v) }

// UnsafePointer is an atomic unsafe.Pointer. Non-generic code that holds
// pointers of a type it does not know (a run queue's slots) uses it, so that
// it is compiled once with every operation inlined.
type UnsafePointer struct{ v atomic.Pointer[byte] }

// Load atomically loads x (sequentially consistent).
func (x *UnsafePointer) Load() unsafe.Pointer { return unsafe.Pointer(x.v.Load()) }

// LoadAcq atomically loads x with acquire semantics.
func (x *UnsafePointer) LoadAcq() unsafe.Pointer { return unsafe.Pointer(x.v.Load()) }

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *UnsafePointer) LoadRelaxed() unsafe.Pointer { return unsafe.Pointer(x.v.Load()) }

// Store atomically stores v into x (sequentially consistent).
func (x *UnsafePointer) Store(v unsafe.Pointer) { x.v.Store((*byte)(v)) }

// StoreRel atomically stores v into x with release semantics.
func (x *UnsafePointer) StoreRel(v unsafe.Pointer) { x.v.Store((*byte)(v)) }

// StoreRelaxed stores v into x with no ordering of its own, for a
// location with a single writer: a plain store (see the package doc), except
// under the race detector.
func (x *UnsafePointer) StoreRelaxed(v unsafe.Pointer) {
	storeRelaxedPtr(unsafe.Pointer(x), unsafe.Pointer(v))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *UnsafePointer) Cas(old, new unsafe.Pointer) bool {
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *UnsafePointer) CasRel(old, new unsafe.Pointer) bool {
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *UnsafePointer) CasRelaxed(old, new unsafe.Pointer) bool {
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *UnsafePointer) Swap(v unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(x.v.Swap((*byte)(v)))
}
