//go:build linux

package netpoll

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawMax is the largest read or write made without the Go scheduler's
// system-call bracket (see rawRead). Copying 64 KiB into or out of a
// socket takes microseconds; a larger transfer takes the bracket, so that
// the Go scheduler may hand the caller's P on while it copies.
const rawMax = 64 << 10

// The functions in this file make system calls that cannot sleep without
// telling the Go scheduler: unix.RawSyscall, not unix.Syscall. Only a
// descriptor in non-blocking mode may be passed to them, and every
// descriptor this package reads, writes or polls through them is one: the
// sockets (SOCK_NONBLOCK), the eventfd (EFD_NONBLOCK) and the epoll
// instance, polled with a zero timeout. They are the calls a busy kernel
// makes: a socket's reads and writes, the poll before stealing, a Break
// and its drain.
//
// The bracket that unix.Syscall puts around a call, entersyscall and
// exitsyscall, lets the Go runtime hand the caller's P to another thread
// while the call blocks. It also wakes the Go runtime's sysmon from its
// deep sleep; awake, sysmon sleeps and wakes a thread every 20 µs or more,
// and takes the P of a call that outlasts one of its looks, so that a
// thread is woken to run the P and the caller's thread parks when its call
// returns. For a call that returns as soon as it has copied what is there,
// none of that buys anything, and the runtime makes its own non-blocking
// epoll_wait (netpoll(0)) without the bracket for the same reason. Echo at
// 50 connections used 9.5% less CPU per round trip without it
// (docs/BENCHMARKS.md, run Q).
//
// Two kinds of call keep the bracket. A read or write of more than rawMax
// bytes may copy for long enough that handing the P on is worth it. And
// the collects of a wait that may block (waitFile.collect), although they
// never sleep themselves: they are made when the kernel has run out of
// work, and their bracket wakes sysmon as a goroutine's blocking read
// would. With them raw too, nothing the echo server did woke sysmon; at
// 50 connections it used 12-15% less CPU per round trip, but at one
// connection its median round trip went from 16 µs to about 100 µs on the
// virtual machine of the measurements, whose CPUs halt as soon as they
// are idle (guest halt polling off). With 200 µs of guest halt polling it
// was 16-20 µs, as with the bracket: sysmon's rounds, it seems, had kept
// the CPUs from halting between requests.
//
// The race detector sees these calls as x/sys/unix's Read and Write make
// it see theirs: a read writes its buffer and a write reads its own, and a
// write happens before a read that succeeds after it, through ioSync,
// because bytes sent over a descriptor carry what happened before they
// were sent.

// ioSync is the race detector's stand-in for the ordering that a write
// and a later read of the same data give (x/sys/unix has its own).
var ioSync int64

// rawRead is read(2) on a non-blocking descriptor: unix.Read, without the
// bracket when len(b) <= rawMax.
func rawRead(fd int, b []byte) (int, error) {
	if len(b) == 0 || len(b) > rawMax {
		return unix.Read(fd, b)
	}
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
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
	if len(b) == 0 || len(b) > rawMax {
		return unix.Write(fd, b)
	}
	if raceEnabled {
		raceReleaseMerge(unsafe.Pointer(&ioSync))
	}
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(len(b)))
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
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(unsafe.SliceData(events))), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
