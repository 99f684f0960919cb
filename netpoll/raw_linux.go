//go:build linux

package netpoll

import (
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawMax is the largest read or write made without the Go scheduler's
// system-call bracket. A larger transfer takes the bracket, so that the Go
// scheduler may hand the caller's P on while the operating system copies.
const rawMax = 64 << 10

// The functions in this file make their system calls without telling the
// Go scheduler: syscall.RawSyscall, not syscall.Syscall. Only a descriptor
// in non-blocking mode may be passed to them, so that the call never waits
// for data or for buffer space, and every descriptor this package reads,
// writes or polls through them is one: the sockets (SOCK_NONBLOCK; see
// [Conn.Fd]), the eventfd (EFD_NONBLOCK) and the epoll instance, polled
// with a zero timeout. They are the calls a busy kernel makes: a socket's
// reads and writes, the poll before stealing, a Break and its drain.
//
// The bracket that syscall.Syscall puts around every call, entersyscall
// and exitsyscall, is what lets the Go runtime take the caller's P for
// another thread while the call is in the operating system. It also wakes
// the Go runtime's sysmon from its deep sleep. Awake, sysmon looks at the
// Ps every 20 µs (backing off to 10 ms while it finds nothing to do),
// sleeping and waking a thread each time, and takes the P of a call it
// finds in the same system call at two looks in a row when the P has
// goroutines queued or no other P is idle or spinning; a thread is woken
// to run that P, and the caller's thread, once its call returns, takes an
// idle P or parks. The runtime's own non-blocking poll in findRunnable,
// made while the M holds its P, calls epoll_wait without any bracket.
// Without the bracket an echo server at 50 connections spends less CPU
// per round trip (docs/BENCHMARKS.md).
//
// What it costs: while such a call is in the operating system, its
// goroutine holds its Go P and cannot be preempted, and a stop-the-world
// (the garbage collector's, among others) waits for the call to return.
// A non-blocking call is short, but it is not always instant: it may wait
// for the socket's lock, for a page fault on the buffer, or for memory,
// and a write on loopback also does the receiving side's work. The Go
// execution tracer shows no system-call event for these calls.
//
// Two kinds of call keep the bracket. A read or write of more than rawMax
// bytes, which copies for longer. And the collects of a wait that may
// block (waitFile.collect), although they never wait themselves: they are
// made when the kernel has run out of work, and their bracket wakes
// sysmon as a goroutine's blocking read would, so that sysmon's looks
// (its preemption of long runs, its network poll) resume when work does.
// With them raw too, nothing the echo server does wakes sysmon; on a
// 2-vCPU virtual machine with guest halt polling off that changes neither
// one connection's round trip nor the CPU per round trip at 50
// connections (docs/BENCHMARKS.md), so the bracket is there for what
// sysmon does, not for speed.
//
// The race detector sees these calls as x/sys/unix's Read and Write make
// it see theirs: a read writes its buffer and a write reads its own, and a
// write happens before a read that succeeds after it, through ioSync,
// because bytes sent over a descriptor carry what happened before they
// were sent. The larger reads and writes go through x/sys/unix, which
// annotates its own ioSync, and annotate this one as well.

// ioSync is the race detector's stand-in for the ordering that a write
// and a later read of the same data give (x/sys/unix has its own).
var ioSync int64

// rawRead is read(2) on a non-blocking descriptor: unix.Read, without the
// bracket when len(b) <= rawMax.
func rawRead(fd int, b []byte) (int, error) {
	if len(b) == 0 || len(b) > rawMax {
		n, err := unix.Read(fd, b)
		if raceEnabled && err == nil {
			raceAcquire(unsafe.Pointer(&ioSync)) // the writer may have been raw
		}
		return n, err
	}
	r, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	n := int(r)
	if raceEnabled {
		if n > 0 {
			raceWriteRange(unsafe.Pointer(unsafe.SliceData(b)), n)
		}
		raceAcquire(unsafe.Pointer(&ioSync))
	}
	return n, nil
}

// rawWrite is write(2) on a non-blocking descriptor: unix.Write, without
// the bracket when len(b) <= rawMax.
func rawWrite(fd int, b []byte) (int, error) {
	if raceEnabled {
		raceReleaseMerge(unsafe.Pointer(&ioSync))
	}
	if len(b) == 0 || len(b) > rawMax {
		return unix.Write(fd, b) // the reader may be raw: released above
	}
	r, _, e := syscall.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	n := int(r)
	if raceEnabled && n > 0 {
		raceReadRange(unsafe.Pointer(unsafe.SliceData(b)), n)
	}
	return n, nil
}

// rawEpollWait is epoll_wait(2) with a zero timeout, without the bracket:
// it collects the events that are there and never sleeps.
func rawEpollWait(epfd int, events []unix.EpollEvent) (int, error) {
	if len(events) == 0 {
		return 0, unix.EINVAL
	}
	r, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
