//go:build vsched_explore

package xsync

// The explorer build: every operation is a scheduling point of
// internal/explorer while a model runs, and a plain sync/atomic operation
// otherwise (tests of other packages run in this build too). Acquire and
// release variants are sequentially consistent here, as they are in the
// default build, so each shares one body with its plain variant.

import (
	"sync/atomic"
	"unsafe"

	"github.com/vsched/vsched/internal/explorer"
)

// skip is the number of frames between explorer.Point and the caller of an
// xsync method: the shared body and the method.
const skip = 2

// Uint32 is an atomic uint32.
type Uint32 struct{ v atomic.Uint32 }

func (x *Uint32) load() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

func (x *Uint32) store(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

func (x *Uint32) cas(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

func (x *Uint32) rmw(op func() (uint32, uint32)) (old, new uint32) {
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old, new = op()
	ev.Wrote(uint64(old), uint64(new))
	return old, new
}

// Load atomically loads x (sequentially consistent).
func (x *Uint32) Load() uint32 { return x.load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint32) LoadAcq() uint32 { return x.load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint32) Store(v uint32) { x.store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint32) StoreRel(v uint32) { x.store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint32) Cas(old, new uint32) bool { return x.cas(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint32) CasRel(old, new uint32) bool { return x.cas(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Uint32) Add(delta uint32) uint32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	_, new := x.rmw(func() (uint32, uint32) { v := x.v.Add(delta); return v - delta, v })
	return new
}

// Swap atomically stores v into x and returns the previous value.
func (x *Uint32) Swap(v uint32) uint32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	old, _ := x.rmw(func() (uint32, uint32) { return x.v.Swap(v), v })
	return old
}

// Uint64 is an atomic uint64.
type Uint64 struct{ v atomic.Uint64 }

func (x *Uint64) load() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

func (x *Uint64) store(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

func (x *Uint64) cas(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

func (x *Uint64) rmw(op func() (uint64, uint64)) (old, new uint64) {
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old, new = op()
	ev.Wrote(uint64(old), uint64(new))
	return old, new
}

// Load atomically loads x (sequentially consistent).
func (x *Uint64) Load() uint64 { return x.load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint64) LoadAcq() uint64 { return x.load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Uint64) Store(v uint64) { x.store(v) }

// StoreRel atomically stores v into x with release semantics.
func (x *Uint64) StoreRel(v uint64) { x.store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint64) Cas(old, new uint64) bool { return x.cas(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint64) CasRel(old, new uint64) bool { return x.cas(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Uint64) Add(delta uint64) uint64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	_, new := x.rmw(func() (uint64, uint64) { v := x.v.Add(delta); return v - delta, v })
	return new
}

// Swap atomically stores v into x and returns the previous value.
func (x *Uint64) Swap(v uint64) uint64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	old, _ := x.rmw(func() (uint64, uint64) { return x.v.Swap(v), v })
	return old
}

// Int32 is an atomic int32.
type Int32 struct{ v atomic.Int32 }

func (x *Int32) load() int32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

func (x *Int32) store(v int32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

func (x *Int32) cas(old, new int32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

func (x *Int32) rmw(op func() (int32, int32)) (old, new int32) {
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old, new = op()
	ev.Wrote(uint64(old), uint64(new))
	return old, new
}

// Load atomically loads x (sequentially consistent).
func (x *Int32) Load() int32 { return x.load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int32) Store(v int32) { x.store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int32) Cas(old, new int32) bool { return x.cas(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Int32) Add(delta int32) int32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	_, new := x.rmw(func() (int32, int32) { v := x.v.Add(delta); return v - delta, v })
	return new
}

// Swap atomically stores v into x and returns the previous value.
func (x *Int32) Swap(v int32) int32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	old, _ := x.rmw(func() (int32, int32) { return x.v.Swap(v), v })
	return old
}

// Int64 is an atomic int64.
type Int64 struct{ v atomic.Int64 }

func (x *Int64) load() int64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.Read(uint64(v))
	return v
}

func (x *Int64) store(v int64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip).Wrote(uint64(x.v.Swap(v)), uint64(v))
}

func (x *Int64) cas(old, new int64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.Cas(uint64(x.v.Load()), uint64(old), uint64(new))
	return x.v.CompareAndSwap(old, new)
}

func (x *Int64) rmw(op func() (int64, int64)) (old, new int64) {
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip)
	old, new = op()
	ev.Wrote(uint64(old), uint64(new))
	return old, new
}

// Load atomically loads x (sequentially consistent).
func (x *Int64) Load() int64 { return x.load() }

// Store atomically stores v into x (sequentially consistent).
func (x *Int64) Store(v int64) { x.store(v) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int64) Cas(old, new int64) bool { return x.cas(old, new) }

// Add atomically adds delta to x and returns the new value.
func (x *Int64) Add(delta int64) int64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	_, new := x.rmw(func() (int64, int64) { v := x.v.Add(delta); return v - delta, v })
	return new
}

// Swap atomically stores v into x and returns the previous value.
func (x *Int64) Swap(v int64) int64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	old, _ := x.rmw(func() (int64, int64) { return x.v.Swap(v), v })
	return old
}

// Pointer is an atomic pointer of type *T.
type Pointer[T any] struct{ v atomic.Pointer[T] }

func (x *Pointer[T]) load() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return v
}

func (x *Pointer[T]) store(p *T) {
	if !explorer.Active() {
		x.v.Store(p)
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap(p)), unsafe.Pointer(p))
}

func (x *Pointer[T]) cas(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap(old, new)
}

// Load atomically loads x (sequentially consistent).
func (x *Pointer[T]) Load() *T { return x.load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *Pointer[T]) LoadAcq() *T { return x.load() }

// Store atomically stores p into x (sequentially consistent).
func (x *Pointer[T]) Store(p *T) { x.store(p) }

// StoreRel atomically stores p into x with release semantics.
func (x *Pointer[T]) StoreRel(p *T) { x.store(p) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Pointer[T]) Cas(old, new *T) bool { return x.cas(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Pointer[T]) CasRel(old, new *T) bool { return x.cas(old, new) }

// Swap atomically stores p into x and returns the previous value.
func (x *Pointer[T]) Swap(p *T) *T {
	if !explorer.Active() {
		return x.v.Swap(p)
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip-1)
	old := x.v.Swap(p)
	ev.WrotePtr(unsafe.Pointer(old), unsafe.Pointer(p))
	return old
}

// UnsafePointer is an atomic unsafe.Pointer.
type UnsafePointer struct{ v atomic.Pointer[byte] }

func (x *UnsafePointer) load() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	ev := explorer.Point(explorer.OpLoad, unsafe.Pointer(x), skip)
	v := x.v.Load()
	ev.ReadPtr(unsafe.Pointer(v))
	return unsafe.Pointer(v)
}

func (x *UnsafePointer) store(p unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(p))
		return
	}
	ev := explorer.Point(explorer.OpStore, unsafe.Pointer(x), skip)
	ev.WrotePtr(unsafe.Pointer(x.v.Swap((*byte)(p))), unsafe.Pointer(p))
}

func (x *UnsafePointer) cas(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	ev := explorer.Point(explorer.OpCas, unsafe.Pointer(x), skip)
	ev.CasPtr(unsafe.Pointer(x.v.Load()), unsafe.Pointer(old), unsafe.Pointer(new))
	return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
}

// Load atomically loads x (sequentially consistent).
func (x *UnsafePointer) Load() unsafe.Pointer { return x.load() }

// LoadAcq atomically loads x with acquire semantics.
func (x *UnsafePointer) LoadAcq() unsafe.Pointer { return x.load() }

// Store atomically stores p into x (sequentially consistent).
func (x *UnsafePointer) Store(p unsafe.Pointer) { x.store(p) }

// StoreRel atomically stores p into x with release semantics.
func (x *UnsafePointer) StoreRel(p unsafe.Pointer) { x.store(p) }

// StoreRelaxed stores p into x with no ordering of its own. The explorer
// runs it as a sequentially consistent store, a scheduling point like Store.
func (x *UnsafePointer) StoreRelaxed(p unsafe.Pointer) { x.store(p) }

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *UnsafePointer) Cas(old, new unsafe.Pointer) bool { return x.cas(old, new) }

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *UnsafePointer) CasRel(old, new unsafe.Pointer) bool { return x.cas(old, new) }

// Swap atomically stores p into x and returns the previous value.
func (x *UnsafePointer) Swap(p unsafe.Pointer) unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Swap((*byte)(p)))
	}
	ev := explorer.Point(explorer.OpRMW, unsafe.Pointer(x), skip-1)
	old := x.v.Swap((*byte)(p))
	ev.WrotePtr(unsafe.Pointer(old), unsafe.Pointer(p))
	return unsafe.Pointer(old)
}
