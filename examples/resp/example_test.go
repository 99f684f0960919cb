package resp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"

	"github.com/vsched/vsched/examples/resp"
	"github.com/vsched/vsched/kernel"
)

// Three pipelined commands in one write, and their three replies.
func ExampleServeKernel() {
	k, err := kernel.New()
	if err != nil {
		log.Fatal(err)
	}
	srv, err := resp.ServeKernel(k, "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	conn, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	_, err = io.WriteString(conn, "*3\r\n$3\r\nSET\r\n$4\r\nname\r\n$6\r\nvsched\r\n"+
		"*2\r\n$3\r\nGET\r\n$4\r\nname\r\n"+
		"PING\r\n") // an inline command
	if err != nil {
		log.Fatal(err)
	}
	r := bufio.NewReader(conn)
	for range 4 { // +OK, the bulk string's two lines, +PONG
		line, err := r.ReadString('\n')
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q\n", line)
	}

	conn.Close()
	if err := srv.Close(); err != nil {
		log.Fatal(err)
	}
	if err := k.Shutdown(context.Background()); err != nil {
		log.Fatal(err)
	}
	// Output:
	// "+OK\r\n"
	// "$6\r\n"
	// "vsched\r\n"
	// "+PONG\r\n"
}

// ParseCommand takes one command at a time from a buffer that may hold
// several, and the start of the next.
func ExampleParseCommand() {
	buf := []byte("*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nGET k\r\n*1\r\n$4\r\nPI")
	var args [][]byte
	// Bounded: each command consumes at least one byte.
	for len(buf) > 0 {
		var n int
		var err error
		args, n, err = resp.ParseCommand(buf, args)
		if err != nil {
			log.Fatal(err)
		}
		if n == 0 {
			fmt.Printf("incomplete: %q\n", buf)
			break
		}
		fmt.Printf("%q\n", args)
		buf = buf[n:]
	}
	// Output:
	// ["ECHO" "hi"]
	// ["GET" "k"]
	// incomplete: "*1\r\n$4\r\nPI"
}
