//go:build race

package xsync

import (
	"sync/atomic"
	"unsafe"
)

// Under the race detector the relaxed stores are atomic. A thief's read of a
// run queue slot that the owner overwrites at the same time (the thief then
// loses its CAS and drops what it read) is a race the algorithm tolerates,
// as is the monitor's read of a counter its owner is storing; the detector
// would report both. With both sides atomic it reports neither, and it
// still checks every other access against the real happens-before edges.

func storeRelaxedPtr(addr, p unsafe.Pointer) { atomic.StorePointer((*unsafe.Pointer)(addr), p) }

func storeRelaxed32(addr unsafe.Pointer, v uint32) { atomic.StoreUint32((*uint32)(addr), v) }

func storeRelaxed64(addr unsafe.Pointer, v uint64) { atomic.StoreUint64((*uint64)(addr), v) }
