package resp

import (
	"net"

	"github.com/vsched/vsched/examples/internal/serve"
)

// Server is a running RESP server, made by [ServeKernel] or [ServeNet].
type Server struct {
	srv   *serve.Server
	store *Store
}

// Addr returns the address the server listens on: with port 0 in the
// address given to Serve*, the port the system chose.
func (s *Server) Addr() net.Addr { return s.srv.Addr() }

// Store returns the server's keyspace.
func (s *Server) Store() *Store { return s.store }

// Close stops accepting, closes every connection, and returns when every
// handler has returned. It returns the error that stopped the accept loop
// early, if one did. Calling it again returns the same error. A server on a
// kernel must be closed before the kernel shuts down: its handlers are
// tasks, and Close waits for them.
func (s *Server) Close() error { return s.srv.Close() }

// ServeNet serves RESP on addr ("host:port", TCP) with the net package: an
// accept goroutine and a goroutine per connection, each reading, running
// the commands of what it read, and writing their replies with one write.
func ServeNet(addr string, opts ...Option) (*Server, error) {
	store := NewStore()
	o := newOptions(opts)
	srv, err := serve.Net(addr, "resp", func() serve.Session { return newSession(store, o.out, o.proto) }, o.serve...)
	if err != nil {
		return nil, err
	}
	return &Server{srv: srv, store: store}, nil
}

// An Option configures a server made by [ServeKernel] or [ServeNet].
type Option func(*options)

type options struct {
	serve []serve.Option
	out   outputLimits
	proto protoLimits
}

// newOptions applies opts over the defaults: RESP's refusal and the
// default output limits.
func newOptions(opts []Option) options {
	o := options{
		serve: []serve.Option{serve.WithRefusal(refusal)},
		out:   outputLimits{soft: DefaultOutputSoftLimit, hard: DefaultOutputHardLimit},
	}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithMaxClients sets the most clients served at once, as Redis's
// maxclients; n <= 0 means no limit, the default. A client over the limit
// gets Redis's error, "-ERR max number of clients reached", and is
// closed. The command (cmd/resp) sets it from -maxclients.
func WithMaxClients(n int) Option {
	return func(o *options) { o.serve = append(o.serve, serve.WithMaxConns(n)) }
}

// WithLogf sets the server's logger, which hears what stops or pauses its
// accepting; the default is log.Printf.
func WithLogf(logf func(format string, args ...any)) Option {
	return func(o *options) { o.serve = append(o.serve, serve.WithLogf(logf)) }
}

// The default output limits: Redis's limits for its replica class of
// clients (its normal clients have none).
const (
	DefaultOutputSoftLimit = 64 << 20
	DefaultOutputHardLimit = 256 << 20
)

// WithOutputLimits bounds a client's pending replies, as Redis's
// client-output-buffer-limit: while they are over soft bytes the client's
// commands wait, unexecuted, until it has read enough; a command whose
// reply takes them over hard bytes closes the client, replies dropped.
// 0 turns a limit off. The defaults are [DefaultOutputSoftLimit] and
// [DefaultOutputHardLimit]; the command sets them from -output-soft-limit
// and -output-hard-limit.
func WithOutputLimits(soft, hard int) Option {
	return func(o *options) { o.out = outputLimits{soft: soft, hard: hard} }
}

// WithProtoLimits sets the longest argument accepted (Redis's
// proto-max-bulk-len) and the most bytes a connection may buffer for a
// command still arriving (Redis's client-query-buffer-limit); 0 keeps the
// default, [MaxBulkLen] and [MaxQueryBuffer]. The command sets them from
// -proto-max-bulk-len and -client-query-buffer-limit.
func WithProtoLimits(maxBulkLen, queryBufferLimit int) Option {
	return func(o *options) { o.proto = protoLimits{maxBulk: maxBulkLen, maxQuery: queryBufferLimit} }
}

// refusal is Redis's reply to a client over maxclients.
var refusal = []byte("-ERR max number of clients reached\r\n")
