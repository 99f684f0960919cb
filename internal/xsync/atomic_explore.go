//go:build vsched_explore

package xsync

// The explorer build: every operation is a scheduling point of
// internal/explorer while a model runs, and a plain sync/atomic operation
// otherwise (tests of other packages run in this build too). The explorer
// carries out the operation itself, with the memory order it names: under
// its sequentially consistent model every order is the same, under its weak
// model (RC11) a load may read an older store, as far as the order allows.

import (
	"sync/atomic"
	"unsafe"

	"github.com/vsched/vsched/internal/explorer"
)

// skip is the number of frames between the explorer's entry point and the
// caller of an xsync method: the method.
const skip = 1

// FenceSC is a sequentially consistent fence; see the default build.
func FenceSC() {
	if explorer.Active() {
		explorer.Fence(skip)
	}
}

// Uint32 is an atomic uint32.
type Uint32 struct{ v atomic.Uint32 }

// Load atomically loads x (sequentially consistent).
func (x *Uint32) Load() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, skip)
	return uint32(r.U)
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint32) LoadAcq() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.Acquire, skip)
	return uint32(r.U)
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Uint32) LoadRelaxed() uint32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, skip)
	return uint32(r.U)
}

// Store atomically stores v into x (sequentially consistent).
func (x *Uint32) Store(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.Value{U: uint64(v)}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *Uint32) StoreRel(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.Release, explorer.Value{U: uint64(v)}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *Uint32) StoreRelaxed(v uint32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, explorer.Value{U: uint64(v)}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint32) Cas(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint32) CasRel(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.Release, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Uint32) CasRelaxed(old, new uint32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Uint32) Add(delta uint32) uint32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.AddOp, explorer.Value{U: uint64(delta)}, skip)
	return uint32(r.U) + delta
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Uint32) Swap(v uint32) uint32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.SwapOp, explorer.Value{U: uint64(v)}, skip)
	return uint32(r.U)
}

// Uint64 is an atomic uint64.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads x (sequentially consistent).
func (x *Uint64) Load() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, skip)
	return r.U
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Uint64) LoadAcq() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.Acquire, skip)
	return r.U
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Uint64) LoadRelaxed() uint64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, skip)
	return r.U
}

// Store atomically stores v into x (sequentially consistent).
func (x *Uint64) Store(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.Value{U: v}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *Uint64) StoreRel(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.Release, explorer.Value{U: v}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *Uint64) StoreRelaxed(v uint64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, explorer.Value{U: v}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Uint64) Cas(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.Value{U: old}, explorer.Value{U: new}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Uint64) CasRel(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.Release, explorer.Value{U: old}, explorer.Value{U: new}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Uint64) CasRelaxed(old, new uint64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, explorer.Value{U: old}, explorer.Value{U: new}, skip)
}

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Uint64) Add(delta uint64) uint64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.AddOp, explorer.Value{U: delta}, skip)
	return r.U + delta
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Uint64) Swap(v uint64) uint64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.SwapOp, explorer.Value{U: v}, skip)
	return r.U
}

// Int32 is an atomic int32.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads x (sequentially consistent).
func (x *Int32) Load() int32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, skip)
	return int32(uint32(r.U))
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Int32) LoadAcq() int32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.Acquire, skip)
	return int32(uint32(r.U))
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Int32) LoadRelaxed() int32 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, skip)
	return int32(uint32(r.U))
}

// Store atomically stores v into x (sequentially consistent).
func (x *Int32) Store(v int32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.Value{U: uint64(uint32(v))}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *Int32) StoreRel(v int32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.Release, explorer.Value{U: uint64(uint32(v))}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *Int32) StoreRelaxed(v int32) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, explorer.Value{U: uint64(uint32(v))}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int32) Cas(old, new int32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.Value{U: uint64(uint32(old))}, explorer.Value{U: uint64(uint32(new))}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Int32) CasRel(old, new int32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.Release, explorer.Value{U: uint64(uint32(old))}, explorer.Value{U: uint64(uint32(new))}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Int32) CasRelaxed(old, new int32) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word32, explorer.Relaxed, explorer.Value{U: uint64(uint32(old))}, explorer.Value{U: uint64(uint32(new))}, skip)
}

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Int32) Add(delta int32) int32 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.AddOp, explorer.Value{U: uint64(uint32(delta))}, skip)
	return int32(uint32(r.U)) + delta
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Int32) Swap(v int32) int32 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word32, explorer.SeqCst, explorer.SwapOp, explorer.Value{U: uint64(uint32(v))}, skip)
	return int32(uint32(r.U))
}

// Int64 is an atomic int64.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads x (sequentially consistent).
func (x *Int64) Load() int64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, skip)
	return int64(r.U)
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Int64) LoadAcq() int64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.Acquire, skip)
	return int64(r.U)
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Int64) LoadRelaxed() int64 {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, skip)
	return int64(r.U)
}

// Store atomically stores v into x (sequentially consistent).
func (x *Int64) Store(v int64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.Value{U: uint64(v)}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *Int64) StoreRel(v int64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.Release, explorer.Value{U: uint64(v)}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *Int64) StoreRelaxed(v int64) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, explorer.Value{U: uint64(v)}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Int64) Cas(old, new int64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Int64) CasRel(old, new int64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.Release, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Int64) CasRelaxed(old, new int64) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Word64, explorer.Relaxed, explorer.Value{U: uint64(old)}, explorer.Value{U: uint64(new)}, skip)
}

// Add atomically adds delta to x and returns the new value
// (sequentially consistent).
func (x *Int64) Add(delta int64) int64 {
	if !explorer.Active() {
		return x.v.Add(delta)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.AddOp, explorer.Value{U: uint64(delta)}, skip)
	return int64(r.U) + delta
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Int64) Swap(v int64) int64 {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Word64, explorer.SeqCst, explorer.SwapOp, explorer.Value{U: uint64(v)}, skip)
	return int64(r.U)
}

// Pointer is an atomic pointer to a T.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads x (sequentially consistent).
func (x *Pointer[T]) Load() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, skip)
	return (*T)(r.P)
}

// LoadAcq atomically loads x with acquire semantics.
func (x *Pointer[T]) LoadAcq() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.Acquire, skip)
	return (*T)(r.P)
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *Pointer[T]) LoadRelaxed() *T {
	if !explorer.Active() {
		return x.v.Load()
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, skip)
	return (*T)(r.P)
}

// Store atomically stores v into x (sequentially consistent).
func (x *Pointer[T]) Store(v *T) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.Value{P: unsafe.Pointer(v)}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *Pointer[T]) StoreRel(v *T) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.Release, explorer.Value{P: unsafe.Pointer(v)}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *Pointer[T]) StoreRelaxed(v *T) {
	if !explorer.Active() {
		x.v.Store(v)
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, explorer.Value{P: unsafe.Pointer(v)}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *Pointer[T]) Cas(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.Value{P: unsafe.Pointer(old)}, explorer.Value{P: unsafe.Pointer(new)}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *Pointer[T]) CasRel(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.Release, explorer.Value{P: unsafe.Pointer(old)}, explorer.Value{P: unsafe.Pointer(new)}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *Pointer[T]) CasRelaxed(old, new *T) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap(old, new)
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, explorer.Value{P: unsafe.Pointer(old)}, explorer.Value{P: unsafe.Pointer(new)}, skip)
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *Pointer[T]) Swap(v *T) *T {
	if !explorer.Active() {
		return x.v.Swap(v)
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.SwapOp, explorer.Value{P: unsafe.Pointer(v)}, skip)
	return (*T)(r.P)
}

// UnsafePointer is an atomic unsafe.Pointer. Non-generic code that holds
// pointers of a type it does not know (a run queue's slots) uses it, so that
// it is compiled once with every operation inlined.
type UnsafePointer struct{ v atomic.Pointer[byte] }

// Load atomically loads x (sequentially consistent).
func (x *UnsafePointer) Load() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, skip)
	return r.P
}

// LoadAcq atomically loads x with acquire semantics.
func (x *UnsafePointer) LoadAcq() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.Acquire, skip)
	return r.P
}

// LoadRelaxed atomically loads x with no ordering of its own.
func (x *UnsafePointer) LoadRelaxed() unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Load())
	}
	r := explorer.Load(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, skip)
	return r.P
}

// Store atomically stores v into x (sequentially consistent).
func (x *UnsafePointer) Store(v unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(v))
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.Value{P: v}, skip)
}

// StoreRel atomically stores v into x with release semantics.
func (x *UnsafePointer) StoreRel(v unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(v))
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.Release, explorer.Value{P: v}, skip)
}

// StoreRelaxed stores v into x with no ordering of its own.
func (x *UnsafePointer) StoreRelaxed(v unsafe.Pointer) {
	if !explorer.Active() {
		x.v.Store((*byte)(v))
		return
	}
	explorer.Store(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, explorer.Value{P: v}, skip)
}

// Cas executes compare-and-swap on x (sequentially consistent).
func (x *UnsafePointer) Cas(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.Value{P: old}, explorer.Value{P: new}, skip)
}

// CasRel executes compare-and-swap on x with release semantics on success.
func (x *UnsafePointer) CasRel(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.Release, explorer.Value{P: old}, explorer.Value{P: new}, skip)
}

// CasRelaxed executes compare-and-swap on x with no ordering of its own.
func (x *UnsafePointer) CasRelaxed(old, new unsafe.Pointer) bool {
	if !explorer.Active() {
		return x.v.CompareAndSwap((*byte)(old), (*byte)(new))
	}
	return explorer.Cas(unsafe.Pointer(x), explorer.Ptr, explorer.Relaxed, explorer.Value{P: old}, explorer.Value{P: new}, skip)
}

// Swap atomically stores v into x and returns the previous value
// (sequentially consistent).
func (x *UnsafePointer) Swap(v unsafe.Pointer) unsafe.Pointer {
	if !explorer.Active() {
		return unsafe.Pointer(x.v.Swap((*byte)(v)))
	}
	r := explorer.RMW(unsafe.Pointer(x), explorer.Ptr, explorer.SeqCst, explorer.SwapOp, explorer.Value{P: v}, skip)
	return r.P
}
