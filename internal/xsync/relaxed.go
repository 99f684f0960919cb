//go:build !race

package xsync

import (
	"sync/atomic"
	"unsafe"
)

// The relaxed stores of the default build are plain stores. An aligned
// store of at most a machine word is never torn, so a racing load sees the
// old or the new value, which is what the Go memory model promises a
// word-sized racing read; the next sync/atomic operation of the storing
// goroutine keeps the compiler from moving the store past it. addr is the
// address of a sync/atomic value, whose only word is at its start.

// The plain stores below write the sync/atomic value's only word: these
// fail to compile if a type's size ever differs from that word's.
var (
	_ [unsafe.Sizeof(atomic.Pointer[byte]{}) - unsafe.Sizeof(unsafe.Pointer(nil))]struct{}
	_ [unsafe.Sizeof(unsafe.Pointer(nil)) - unsafe.Sizeof(atomic.Pointer[byte]{})]struct{}
	_ [unsafe.Sizeof(atomic.Uint64{}) - 8]struct{}
	_ [8 - unsafe.Sizeof(atomic.Uint64{})]struct{}
	_ [unsafe.Sizeof(atomic.Uint32{}) - 4]struct{}
	_ [4 - unsafe.Sizeof(atomic.Uint32{})]struct{}
)

// storeRelaxedPtr is a plain pointer store. The compiler emits the garbage
// collector's write barrier for it, since the destination has pointer type.
func storeRelaxedPtr(addr, p unsafe.Pointer) { *(*unsafe.Pointer)(addr) = p }

// storeRelaxed32 is a plain 32-bit store.
func storeRelaxed32(addr unsafe.Pointer, v uint32) { *(*uint32)(addr) = v }

// storeRelaxed64 is a plain store where a uint64 is a machine word, and an
// atomic one where it is two (a plain store could be torn there).
func storeRelaxed64(addr unsafe.Pointer, v uint64) {
	if unsafe.Sizeof(uintptr(0)) == 8 {
		*(*uint64)(addr) = v
	} else {
		atomic.StoreUint64((*uint64)(addr), v)
	}
}
