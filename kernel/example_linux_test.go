//go:build linux

package kernel_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// Two tasks talk over TCP on the kernel's Poller. Each tries its I/O first
// and, when the socket would block, asks to wait for it and returns; its
// function runs again from the top once the socket is ready, with its
// progress kept in its closure.
func ExampleKernel_Poller() {
	k, err := kernel.New(kernel.WithProcs(2))
	if err != nil {
		panic(err)
	}
	p, err := k.Poller()
	if err != nil {
		panic(err)
	}
	ln, err := netpoll.Listen(p, "tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()
	got := make(chan string, 1)

	// The server accepts one connection and reads it to the end.
	var conn *netpoll.Conn
	var msg []byte
	k.Go(func(c *kernel.Ctx) {
		if err := c.WaitErr(); err != nil {
			got <- err.Error() // a deadline passed, or the socket was closed
			return
		}
		if conn == nil {
			cn, err := ln.Accept()
			if errors.Is(err, netpoll.ErrWouldBlock) {
				c.WaitRead(ln.Desc()) // run again when a client connects
				return
			}
			if err != nil {
				got <- err.Error()
				return
			}
			conn = cn
		}
		buf := make([]byte, 64)
		for {
			n, err := conn.Read(buf)
			msg = append(msg, buf[:n]...)
			switch {
			case errors.Is(err, netpoll.ErrWouldBlock):
				c.WaitRead(conn.Desc()) // run again when readable
				return
			case err == io.EOF:
				conn.Close()
				got <- string(msg)
				return
			case err != nil:
				got <- err.Error()
				return
			}
		}
	})

	// The client connects, says hello and closes its side.
	cl, err := netpoll.Dial(p, "tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer cl.Close()
	k.Go(func(c *kernel.Ctx) {
		if err := cl.Connected(); errors.Is(err, netpoll.ErrWouldBlock) {
			c.WaitWrite(cl.Desc()) // run again when connected
			return
		} else if err != nil {
			got <- err.Error()
			return
		}
		cl.Write([]byte("hello, kernel"))
		cl.CloseWrite()
	})

	fmt.Println(<-got)
	k.Shutdown(context.Background())
	// Output: hello, kernel
}
