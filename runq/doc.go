// Package runq holds the two run queues of the scheduler, built exactly as
// the Go runtime builds them (runtime/proc.go): [Queue], the P-local
// lock-free ring of [Size] slots plus a runnext slot, and [Global], the
// global FIFO. The package holds no policy: who steals from whom, and when,
// is decided by package steal and package kernel.
//
// # Ownership
//
// A Queue has one owner: the P that runs the tasks in it. The owner is the
// only goroutine that writes the tail, writes ring slots, or stores a non-nil
// runnext. Every other goroutine is a thief: it may only move the head
// forward by CAS (Grab, StealInto) or CAS runnext to nil. Each method says
// who may call it. The owner-only methods are [Queue.Put],
// [Queue.PutBatch], [Queue.Get] and [Queue.Drain]; [Queue.StealInto] is
// called by the owner of the destination.
//
// # The protocol
//
// Head and tail are free-running uint32 counters; slot i lives at index
// i % Size and the length of the ring is tail-head, in modular arithmetic.
// Nothing resets them when they wrap.
//
// The owner appends by writing slot tail%Size and then publishing the slot
// with a release store of tail+1 (runqput). A consumer, owner or thief,
// reads head with load-acquire, reads the slots it wants, and commits by a
// release CAS of head from the value it read. A thief copies the slots
// before its CAS and discards the copy if the CAS fails: a successful CAS
// proves head did not move, and since the owner never lets tail-head exceed
// Size, the owner cannot have overwritten the slots that were copied
// (runqgrab).
//
// A thief reads head before tail, with acquire loads, so tail-head is never
// negative; but the two loads happen at different moments, so the
// difference may exceed the true length and even Size. A steal wants
// L - L/2 items for an observed length L; when that is more than Size/2 the
// pair of loads was torn and the thief reads both again.
//
// runnext holds at most one item, the next to run. Put with next installs
// the new item in runnext and appends the item it displaces to the ring, so
// the newest readied task runs first. A thief takes runnext only when the
// ring looked empty and runnext stealing was asked for, after calling the
// caller's pause (the runtime's usleep(3), which gives a running owner the
// chance to run its own runnext and keeps two tasks that hand off to each
// other on one P).
//
// [Queue.Empty] never reports true while an item stays in the queue for the
// whole call, even while the owner moves an item from runnext to the ring: it
// reads the tail twice (runqempty).
//
// # Invariants
//
// At every linearization point: 0 <= tail-head <= Size; head and tail only
// grow (mod 2^32); runnext holds at most one item; a ring item leaves in
// insertion order whoever takes it; a steal takes a contiguous oldest prefix
// of ceil(L/2) <= Size/2 items, or runnext alone; an overflow moves exactly
// Size/2 ring items plus the new one, and only from a full ring. A broken
// invariant that the code relies on stops the program with a panic that
// names it.
//
// # Differences from the runtime
//
//   - Ring slots are read atomically. The owner writes them with a plain
//     store, as the runtime does, that the tail's store-release publishes
//     (xsync's StoreRelaxed); under the race detector the store is atomic
//     too, since a thief's speculative copy before its CAS may race with
//     the owner overwriting the slot, a benign race -race would report.
//   - The owner's runnext put is one atomic swap where the runtime loops on
//     a CAS; only the owner stores a non-nil runnext, so both return the
//     old value or nil when a thief took it first.
//   - The runtime throws from runqsteal when the thief's ring lacks room
//     after the grab. [Queue.StealInto] checks the room before it takes
//     anything, so a misuse panics without losing a task.
//   - The runtime's runqputslow moves the overflow to the global queue itself
//     under sched.lock. [Queue.Put] returns the overflow batch to the caller,
//     which holds the scheduler lock and puts it on a [Global]; the batch
//     lives in a buffer inside the Queue, so overflow allocates nothing.
//   - Nothing here randomizes order (the runtime's randomizeScheduler under
//     -race); a scheduler that wants it shuffles around these calls.
//   - A consumed slot keeps its last item reachable until the owner
//     overwrites it, and the overflow buffer keeps the last overflow batch,
//     so a Queue may keep up to Size + Size/2+1 items alive for the garbage
//     collector. (The runtime's slots are guintptrs, which the collector
//     does not see; its g records are never freed anyway.)
//   - Items are told apart by their pointers: distinct tasks need distinct
//     pointers. Pointers to distinct zero-size values may be equal.
package runq
