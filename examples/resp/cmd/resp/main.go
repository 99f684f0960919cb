// Command resp serves the Redis protocol (PING, ECHO, SET, GET, DEL) on
// the vsched kernel or on the net package, until interrupted:
//
//	go run ./examples/resp/cmd/resp -addr 127.0.0.1:6380 -impl kernel
//	redis-benchmark -p 6380 -t ping,set,get -q
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"

	"github.com/vsched/vsched/examples/resp"
	"github.com/vsched/vsched/kernel"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6380", "TCP address to listen on")
	impl := flag.String("impl", "kernel", "kernel (tasks on the vsched kernel and its netpoll) or net (a goroutine per connection)")
	procs := flag.Int("procs", 0, "the kernel's Ps (0: GOMAXPROCS)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("resp: ")

	var k *kernel.Kernel
	var srv *resp.Server
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
		srv, err = resp.ServeKernel(k, *addr)
	case "net":
		srv, err = resp.ServeNet(*addr)
	default:
		log.Fatalf("-impl %q: want kernel or net", *impl)
	}
	if err != nil {
		log.Fatal(err)
	}
	// The address line is what scripts wait for (bench/resp.sh).
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
