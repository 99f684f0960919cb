//go:build !vsched_explore

package xsync

import (
	"sync/atomic"
	"unsafe"
)

// Uint32 is an atomic uint32.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads x (sequentially consistent).
func (x *Uint32) Load() uint32 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint32) LoadAcq() uint32 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint32) Store(v uint32) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint32) StoreRel(v uint32) { x.v.Store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint32) Cas(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint32) CasRel(old, new uint32) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Uint32) Add(delta uint32) uint32 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value.
func (x *Uint32) Swap(v uint32) uint32 { return x.v.Swap(v) }

// Uint64 is an atomic uint64.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads x (sequentially consistent).
func (x *Uint64) Load() uint64 { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint64) LoadAcq() uint64 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint64) Store(v uint64) { x.v.Store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint64) StoreRel(v uint64) { x.v.Store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint64) Cas(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint64) CasRel(old, new uint64) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Uint64) Add(delta uint64) uint64 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value.
func (x *Uint64) Swap(v uint64) uint64 { return x.v.Swap(v) }

// Int32 is an atomic int32.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads x (sequentially consistent).
func (x *Int32) Load() int32 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int32) Store(v int32) { x.v.Store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int32) Cas(old, new int32) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Int32) Add(delta int32) int32 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value.
func (x *Int32) Swap(v int32) int32 { return x.v.Swap(v) }

// Int64 is an atomic int64.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads x (sequentially consistent).
func (x *Int64) Load() int64 { return x.v.Load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int64) Store(v int64) { x.v.Store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int64) Cas(old, new int64) bool { return x.v.CompareAndSwap(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Int64) Add(delta int64) int64 { return x.v.Add(delta) }

// Swap atomically stores v into x and returns the previous value.
func (x *Int64) Swap(v int64) int64 { return x.v.Swap(v) }

// Pointer is an atomic pointer to a T.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads x (sequentially consistent).
func (x *Pointer[T]) Load() *T { return x.v.Load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Pointer[T]) LoadAcq() *T { return x.v.Load() }

// Store atomically stores p into x (sequentially consistent).
func (x *Pointer[T]) Store(p *T) { x.v.Store(p) }

// StoreRel atomically stores p into x with release semantics.
func (x *Pointer[T]) StoreRel(p *T) { x.v.Store(p) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Pointer[T]) Cas(old, new *T) bool { return x.v.CompareAndSwap(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Pointer[T]) CasRel(old, new *T) bool { return x.v.CompareAndSwap(old, new) }

// Swap atomically stores p into x and returns the previous value.
func (x *Pointer[T]) Swap(p *T) *T { return x.v.Swap(p) }

// UnsafePointer is an atomic unsafe.Pointer. Non-generic code that holds
// pointers of a type it does not know (a run queue's slots) uses it, so that
// it is compiled once with every operation inlined.
type UnsafePointer struct{ v atomic.Pointer[byte] }

// Load atomically loads x (sequentially consistent).
func (x *UnsafePointer) Load() unsafe.Pointer { return unsafe.Pointer(x.v.Load()) }

// LoadAcq atomically loads x with acquire semantics.
func (x *UnsafePointer) LoadAcq() unsafe.Pointer { return unsafe.Pointer(x.v.Load()) }

// Store atomically stores p into x (sequentially consistent).
func (x *UnsafePointer) Store(p unsafe.Pointer) { x.v.Store((*byte)(p)) }

// StoreRel atomically stores p into x with release semantics.
func (x *UnsafePointer) StoreRel(p unsafe.Pointer) { x.v.Store((*byte)(p)) }

// StoreRelaxed stores p into x with no ordering of its own (see the
// package doc): a plain store, as the runtime stores its run queue's slots,
// except under the race detector.
func (x *UnsafePointer) StoreRelaxed(p unsafe.Pointer) { storeRelaxed(x, p) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *UnsafePointer) Cas(old, new unsafe.Pointer) bool {
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *UnsafePointer) CasRel(old, new unsafe.Pointer) bool {
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// Swap atomically stores p into x and returns the previous value.
func (x *UnsafePointer) Swap(p unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(x.v.Swap((*byte)(p)))
}
