//go:build linux

package netpoll_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/vsched/vsched/kernel"
	"github.com/vsched/vsched/netpoll"
)

// A task on a kernel accepts one connection and reads it to the end. Every
// operation is tried first; when it would block, the task asks to wait for
// its descriptor and returns, and its function runs again from the top
// once the descriptor is ready. Its state lives in the closure.
func Example() {
	k, err := kernel.New()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer k.Shutdown(context.Background())
	p, err := k.Poller()
	if err != nil {
		fmt.Println(err)
		return
	}
	ln, err := netpoll.Listen(p, "tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ln.Close()

	done := make(chan string, 1)
	var conn *netpoll.Conn
	var msg []byte
	buf := make([]byte, 64)
	k.Go(func(c *kernel.Ctx) {
		if conn == nil {
			cn, err := ln.Accept()
			if errors.Is(err, netpoll.ErrWouldBlock) {
				c.WaitRead(ln.Desc())
				return
			}
			if err != nil {
				done <- err.Error()
				return
			}
			conn = cn
		}
		for {
			n, err := conn.Read(buf)
			msg = append(msg, buf[:n]...)
			switch {
			case errors.Is(err, netpoll.ErrWouldBlock):
				c.WaitRead(conn.Desc())
				return
			case err == io.EOF:
				conn.Close()
				done <- string(msg)
				return
			case err != nil:
				done <- err.Error()
				return
			}
		}
	})

	// A client outside the kernel says hello.
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		fmt.Println(err)
		return
	}
	client.Write([]byte("hello, netpoll"))
	client.Close()
	fmt.Println(<-done)
	// Output: hello, netpoll
}
