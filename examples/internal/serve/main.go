package serve

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/vsched/vsched/kernel"
)

// Main is the main function of the examples' commands: it serves with
// serveKernel or serveNet, as the -impl flag says, on -addr (defaultAddr
// unless given), until interrupted, then closes the server and shuts the
// kernel down. name prefixes its log lines. Only a command's main may call
// it: it parses the command line and may exit the program.
func Main[S interface {
	Addr() net.Addr
	Close() error
}](name, defaultAddr string, serveKernel func(*kernel.Kernel, string) (S, error), serveNet func(string) (S, error)) {
	addr := flag.String("addr", defaultAddr, "TCP address to listen on")
	impl := flag.String("impl", "kernel", "kernel (tasks on the vsched kernel and its netpoll) or net (a goroutine per connection)")
	procs := flag.Int("procs", 0, "the kernel's Ps (0: GOMAXPROCS)")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(name + ": ")

	var k *kernel.Kernel
	var srv S
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
		srv, err = serveKernel(k, *addr)
	case "net":
		srv, err = serveNet(*addr)
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
