//go:build vsched_explore

package xsync

// The explorer build: every operation is a scheduling point of
// internal/explorer while a model runs, and a plain sync/atomic operation
// otherwise (tests of other packages run in this build too). Acquire and
// release variants are sequentially consistent here, as they are in the
// default build.

import (
	"sync/atomic"
	"unsafe"

	"github.com/vsched/vsched/internal/explorer"
)

// skip is the number of frames between explorer.Point and the caller of an
// xsync method.
const skip = 1

// Uint32 is an atomic uint32.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads x (sequentially consistent).
func (x *Uint32) Load() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint32) LoadAcq() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// Store atomically stores v into x (sequentially consistent).
func (x *Uint32) Store(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// StoreRel atomically stores v into x with release semantics.
func (x *Uint32) StoreRel(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint32) Cas(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint32) CasRel(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta to x and returns the new value.
func (x *Uint32) Add(delta uint32) uint32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	v := x.v.Add(delta)
	ev.Wrote(uint64(v-delta), uint64(v))
	return v
}

// Swap atomically stores v into x and returns the previous value.
func (x *Uint32) Swap(v uint32) uint32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap(v)
	ev.Wrote(uint64(old), uint64(v))
	return old
}

// Uint64 is an atomic uint64.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads x (sequentially consistent).
func (x *Uint64) Load() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint64) LoadAcq() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// Store atomically stores v into x (sequentially consistent).
func (x *Uint64) Store(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// StoreRel atomically stores v into x with release semantics.
func (x *Uint64) StoreRel(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint64) Cas(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint64) CasRel(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta to x and returns the new value.
func (x *Uint64) Add(delta uint64) uint64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	v := x.v.Add(delta)
	ev.Wrote(uint64(v-delta), uint64(v))
	return v
}

// Swap atomically stores v into x and returns the previous value.
func (x *Uint64) Swap(v uint64) uint64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap(v)
	ev.Wrote(uint64(old), uint64(v))
	return old
}

// Int32 is an atomic int32.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads x (sequentially consistent).
func (x *Int32) Load() int32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// Store atomically stores v into x (sequentially consistent).
func (x *Int32) Store(v int32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int32) Cas(old, new int32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta to x and returns the new value.
func (x *Int32) Add(delta int32) int32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	v := x.v.Add(delta)
	ev.Wrote(uint64(v-delta), uint64(v))
	return v
}

// Swap atomically stores v into x and returns the previous value.
func (x *Int32) Swap(v int32) int32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap(v)
	ev.Wrote(uint64(old), uint64(v))
	return old
}

// Int64 is an atomic int64.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads x (sequentially consistent).
func (x *Int64) Load() int64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

// Store atomically stores v into x (sequentially consistent).
func (x *Int64) Store(v int64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int64) Cas(old, new int64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta to x and returns the new value.
func (x *Int64) Add(delta int64) int64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	v := x.v.Add(delta)
	ev.Wrote(uint64(v-delta), uint64(v))
	return v
}

// Swap atomically stores v into x and returns the previous value.
func (x *Int64) Swap(v int64) int64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap(v)
	ev.Wrote(uint64(old), uint64(v))
	return old
}

// Pointer is an atomic pointer of type *T.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads x (sequentially consistent).
func (x *Pointer[T]) Load() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return v
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Pointer[T]) LoadAcq() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return v
}

// Store atomically stores p into x (sequentially consistent).
func (x *Pointer[T]) Store(p *T) {
	if !explorer.Active() {
		x.v.Store(p)
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap(p)), unsafe.Pointer(p))
}

// StoreRel atomically stores p into x with release semantics.
func (x *Pointer[T]) StoreRel(p *T) {
	if !explorer.Active() {
		x.v.Store(p)
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap(p)), unsafe.Pointer(p))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Pointer[T]) Cas(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap(old, new)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Pointer[T]) CasRel(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap(old, new)
}

// Swap atomically stores p into x and returns the previous value.
func (x *Pointer[T]) Swap(p *T) *T {
	if !explorer.Active() {
		return x.v.Swap(p)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap(p)
	ev.WrotePtr(unsafe.Pointer(old), unsafe.Pointer(p))
	return old
}

// UnsafePointer is an atomic unsafe.Pointer.
type UnsafePointer struct{ v atomic.Pointer[byte] }

// Load atomically loads x (sequentially consistent).
func (x *UnsafePointer) Load() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return unsafe.Pointer(v)
}

// LoadAcq atomically loads x with acquire semantics.
func (x *UnsafePointer) LoadAcq() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return unsafe.Pointer(v)
}

// Store atomically stores p into x (sequentially consistent).
func (x *UnsafePointer) Store(p unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(p))
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap((*byte)(p))), unsafe.Pointer(p))
}

// StoreRel atomically stores p into x with release semantics.
func (x *UnsafePointer) StoreRel(p unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(p))
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap((*byte)(p))), unsafe.Pointer(p))
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *UnsafePointer) Cas(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *UnsafePointer) CasRel(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// Swap atomically stores p into x and returns the previous value.
func (x *UnsafePointer) Swap(p unsafe.Pointer) unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Swap((*byte)(p)))
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old := x.v.Swap((*byte)(p))
	ev.WrotePtr(unsafe.Pointer(old), unsafe.Pointer(p))
	return unsafe.Pointer(old)
}
