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

// DefaultMaxClients is the default of the commands' -maxclients: Redis's
// default maxclients.
const DefaultMaxClients = 10000

// reservedFDs are the descriptors a command keeps for itself when it fits
// -maxclients to its descriptor limit (Redis keeps 32).
const reservedFDs = 32

// Main is the main function of the examples' commands: it serves with
// serveKernel or serveNet, as the -impl flag says, on -addr (defaultAddr
// unless given), until interrupted, then closes the server and shuts the
// kernel down. name prefixes its log lines. -maxclients bounds the
// clients served at once; like Redis, Main lowers it to fit the process's
// descriptor limit and says so. Only a command's main may call it: it
// parses the command line and may exit the program. options turns the
// client limit and the logger into the example's options; a command may
// define flags of its own before calling Main and read them there.
func Main[S interface {
	Addr() net.Addr
	Close() error
}, O any](name, defaultAddr string, serveKernel func(*kernel.Kernel, string, ...O) (S, error), serveNet func(string, ...O) (S, error),
	options func(maxClients int, logf func(string, ...any)) []O) {
	addr := flag.String("addr", defaultAddr, "TCP address to listen on")
	impl := flag.String("impl", "kernel", "kernel (tasks on the vsched kernel and its netpoll) or net (a goroutine per connection)")
	procs := flag.Int("procs", 0, "the kernel's Ps (0: GOMAXPROCS)")
	maxClients := flag.Int("maxclients", DefaultMaxClients, "the most clients served at once (0: no limit); lowered to fit the descriptor limit")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix(name + ": ")
	if limit, ok := fdLimit(); ok && limit > reservedFDs && (*maxClients <= 0 || *maxClients > limit-reservedFDs) {
		log.Printf("maxclients %d lowered to %d: the descriptor limit is %d", *maxClients, limit-reservedFDs, limit)
		*maxClients = limit - reservedFDs
	}
	serveOpts := options(*maxClients, log.Printf)

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
		srv, err = serveKernel(k, *addr, serveOpts...)
	case "net":
		srv, err = serveNet(*addr, serveOpts...)
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
