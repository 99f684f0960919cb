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

func storeRelaxed(x *UnsafePointer, p unsafe.Pointer) { x.v.Store((*byte)(p)) }

func storeRelaxed64(x *atomic.Uint64, v uint64) { x.Store(v) }
