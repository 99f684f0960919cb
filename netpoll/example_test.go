//go:build linux

package netpoll_test

import (
	"errors"
	"fmt"
	"io"

	"github.com/vsched/vsched/netpoll"
)

// The usual use, with the Poller driven by hand where a scheduler would
// drive it: every operation is tried first, and only when it would block
// does the task wait for its descriptor.
func Example() {
	p, err := netpoll.New(func(*netpoll.Waiter) {
		// A scheduler makes the waiter's task runnable here (a waiter
		// woken by Close or by a deadline set in the past).
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close()

	// wait parks a task on d until the wait in mode is over, as a
	// scheduler does: announce, commit, poll until the waiter comes back,
	// finish.
	wait := func(d *netpoll.Desc, mode netpoll.Mode) error {
		armed, err := d.PrepareWait(mode)
		if !armed {
			return err // an edge came first, or Close, or a deadline
		}
		w := netpoll.NewWaiter("task")
		if d.CommitWait(mode, w) {
			for back := false; !back; {
				for _, got := range p.Poll(-1, nil) {
					back = back || got == w
				}
			}
		}
		return d.FinishWait(mode, nil)
	}

	ln, err := netpoll.Listen(p, "tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()

	// A client says hello.
	c, err := netpoll.Dial(p, "tcp", ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for errors.Is(c.Connected(), netpoll.ErrWouldBlock) {
		wait(c.Desc(), netpoll.Write)
	}
	c.Write([]byte("hello, netpoll"))
	c.CloseWrite()

	// The server accepts and reads until EOF.
	conn, err := ln.Accept()
	for errors.Is(err, netpoll.ErrWouldBlock) {
		wait(ln.Desc(), netpoll.Read)
		conn, err = ln.Accept()
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer conn.Close()
	var msg []byte
	buf := make([]byte, 64)
	for {
		n, err := conn.Read(buf)
		msg = append(msg, buf[:n]...)
		if errors.Is(err, netpoll.ErrWouldBlock) {
			wait(conn.Desc(), netpoll.Read)
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Printf("%s\n", msg)
	// Output: hello, netpoll
}
