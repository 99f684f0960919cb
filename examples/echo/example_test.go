package echo_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"

	"github.com/vsched/vsched/examples/echo"
	"github.com/vsched/vsched/kernel"
)

// An echo server on the kernel, and a client on the net package. Close the
// server before the kernel shuts down: Close waits for the server's tasks.
func ExampleServeKernel() {
	k, err := kernel.New()
	if err != nil {
		log.Fatal(err)
	}
	srv, err := echo.ServeKernel(k, "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	conn, err := net.Dial("tcp", srv.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	if _, err := conn.Write([]byte("hello, kernel")); err != nil {
		log.Fatal(err)
	}
	got := make([]byte, len("hello, kernel"))
	if _, err := io.ReadFull(conn, got); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s\n", got)

	conn.Close()
	if err := srv.Close(); err != nil {
		log.Fatal(err)
	}
	if err := k.Shutdown(context.Background()); err != nil {
		log.Fatal(err)
	}
	// Output: hello, kernel
}
