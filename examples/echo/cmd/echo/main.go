// Command echo serves TCP echo on the vsched kernel or on the net package,
// until interrupted:
//
//	go run ./examples/echo/cmd/echo -addr 127.0.0.1:7007 -impl kernel
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/vsched/vsched/examples/echo"
	"github.com/vsched/vsched/kernel"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:7007", "TCP address to listen on")
	impl := flag.String("impl", "kernel", "kernel (tasks on the vsched kernel and its netpoll) or net (a goroutine per connection)")
	procs := flag.Int("procs", 0, "the kernel's Ps (0: GOMAXPROCS)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("echo: ")

	var k *kernel.Kernel
	var srv *echo.Server
	var err error
	switch *impl {
	case "kernel":
		var opts []kernel.Option
		if *procs > 0 {
			opts = append(opts, kernel.WithProcs(*procs))
		}
		if k, err = kernel.New(opts...); err != nil {
			log.Fatal(err)
		}
		srv, err = echo.ServeKernel(k, *addr)
	case "net":
		srv, err = echo.ServeNet(*addr)
	default:
		log.Fatalf("-impl %q: want kernel or net", *impl)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("listening on %s (%s)\n", srv.Addr(), *impl)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	if err := srv.Close(); err != nil {
		log.Print(err)
	}
	if k != nil {
		if err := k.Shutdown(context.Background()); err != nil {
			log.Print(err)
		}
	}
}
