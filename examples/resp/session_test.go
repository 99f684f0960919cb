package resp

import (
	"fmt"
	"strings"
	"testing"
)

// bigCommand is ECHO with n arguments, as one RESP array: as long to
// parse as a DEL of n keys, and answered at once (with an arity error)
// without touching the store, whose million deletions would only slow the
// test down (under the race detector, to a minute).
func bigCommand(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n$4\r\nECHO\r\n", n+1)
	for i := range n {
		k := fmt.Sprint("key", i)
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(k), k)
	}
	return []byte(b.String())
}

// feedChunks hands msg to s in reads of at most chunk bytes, as a server
// would, writing out each reply at once.
func feedChunks(s *session, msg []byte, chunk int) {
	for len(msg) > 0 {
		buf := s.ReadBuf()
		n := copy(buf, msg[:min(chunk, len(msg))])
		msg = msg[n:]
		s.Received(n)
		s.Wrote(len(s.Pending()))
	}
}

// TestParsingIsLinearInTheCommand: a command of a million arguments (as a
// DEL of a million keys) arriving in 1 KiB reads is parsed once: the
// parser looks at each byte of the headers about once, not at every
// header again after each read (which was 5.8 s of CPU for this command,
// against Redis's 0.56 s), and the session copies its bytes less than
// twice.
func TestParsingIsLinearInTheCommand(t *testing.T) {
	msg := bigCommand(1_000_000)
	s := newSession(NewStore(), outputLimits{}, protoLimits{})
	feedChunks(s, msg, 1024)
	if s.closing || len(s.in) != 0 {
		t.Fatalf("the command was not taken whole: closing %v, %d bytes left", s.closing, len(s.in))
	}
	// Every byte but the keys' is a header byte; a header is looked at
	// again only when a read ends inside it or inside its argument.
	reads := len(msg)/1024 + 1
	if limit := len(msg) + 32*reads; s.p.scanned > limit {
		t.Fatalf("the parser looked at %d bytes of a %d-byte command in %d reads: more than %d, so not linear", s.p.scanned, len(msg), reads, limit)
	}
	// The input buffer doubles as the command grows, so its bytes are
	// copied less than twice in all; they were copied onto themselves
	// after every read.
	if s.moved > 2*len(msg) {
		t.Fatalf("the session copied %d bytes of a %d-byte command: more than twice its size, so not linear", s.moved, len(msg))
	}
}

// TestSessionDropsTheBuffersOfABigCommand: after a command of a million
// arguments, an idle session keeps small buffers (it kept 24 MiB of
// argument slots until the connection closed).
func TestSessionDropsTheBuffersOfABigCommand(t *testing.T) {
	s := newSession(NewStore(), outputLimits{}, protoLimits{})
	feedChunks(s, bigCommand(1_000_000), 16<<10)
	if c := cap(s.args); c > maxKeptSpans {
		t.Errorf("the session keeps %d argument slots", c)
	}
	if c := cap(s.p.spans); c > maxKeptSpans {
		t.Errorf("the parser keeps %d argument spans", c)
	}
	if c := cap(s.in); c > 4*readSize {
		t.Errorf("the session keeps a %d-byte input buffer", c)
	}
	if c := cap(s.out); c > keepOut {
		t.Errorf("the session keeps a %d-byte output buffer", c)
	}
}

// TestIdleSessionHoldsNoInputBuffer: once its replies are written and no
// command is arriving, Idle leaves a session without its input buffer and
// with at most a small output buffer; a command that has partly arrived
// keeps its bytes through Idle and is answered once the rest comes.
func TestIdleSessionHoldsNoInputBuffer(t *testing.T) {
	s := newSession(NewStore(), outputLimits{}, protoLimits{})
	var out strings.Builder
	feed := func(msg string) {
		n := copy(s.ReadBuf(), msg)
		s.Received(n)
		out.Write(s.Pending())
		s.Wrote(len(s.Pending()))
	}
	feed("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$2000\r\n" + strings.Repeat("v", 2000) + "\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n")
	s.Idle()
	if s.in != nil {
		t.Errorf("an idle session keeps a %d-byte input buffer", cap(s.in))
	}
	if c := cap(s.out); c > keptIdleOut {
		t.Errorf("an idle session keeps a %d-byte output buffer", c)
	}
	feed("*1\r\n$4\r\nPI")
	s.Idle()
	if string(s.in) != "*1\r\n$4\r\nPI" {
		t.Fatalf("Idle lost a command that had partly arrived: input %q", s.in)
	}
	feed("NG\r\n")
	if want := "+OK\r\n$2000\r\n" + strings.Repeat("v", 2000) + "\r\n+PONG\r\n"; out.String() != want {
		t.Errorf("replies %q, want %q", out.String(), want)
	}
}

// pipelined is n GETs of key, as one RESP write.
func pipelined(n int, key string) []byte {
	var b strings.Builder
	for range n {
		fmt.Fprintf(&b, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", len(key), key)
	}
	return []byte(b.String())
}

// TestOutputOverTheSoftLimitPausesTheCommands: 300 GETs of a 1 MiB value
// in one read, with a soft limit of 8 MiB. The session runs commands only
// while its pending replies are under the limit (it ran all 300, 300 MiB,
// before writing any), and runs the rest as the replies are written: all
// 300 replies come out, in order, never more than the limit and one reply
// pending.
func TestOutputOverTheSoftLimitPausesTheCommands(t *testing.T) {
	store := NewStore()
	value := strings.Repeat("v", 1<<20)
	store.Exec(nil, [][]byte{[]byte("SET"), []byte("big"), []byte(value)})
	s := newSession(store, outputLimits{soft: 8 << 20, hard: 64 << 20}, protoLimits{})
	msg := pipelined(300, "big")
	n := copy(s.ReadBuf(), msg)
	if n != len(msg) {
		t.Fatalf("the read took %d of %d bytes", n, len(msg))
	}
	s.Received(n)
	reply := len(appendBulk(nil, []byte(value)))
	total := 0
	for out := s.Pending(); len(out) > 0; out = s.Pending() {
		if len(out) > 8<<20+reply {
			t.Fatalf("%d bytes pending, over the soft limit and a reply", len(out))
		}
		if len(out)%reply != 0 {
			t.Fatalf("%d bytes pending: not whole replies", len(out))
		}
		total += len(out)
		s.Wrote(len(out))
	}
	if total != 300*reply || s.closing || len(s.in) != 0 {
		t.Fatalf("wrote %d bytes, want %d; closing %v, %d bytes of input left", total, 300*reply, s.closing, len(s.in))
	}
}

// TestOutputOverTheHardLimitClosesTheClient: a reply that takes the
// pending output over the hard limit closes the session, its replies
// dropped, as Redis does.
func TestOutputOverTheHardLimitClosesTheClient(t *testing.T) {
	store := NewStore()
	store.Exec(nil, [][]byte{[]byte("SET"), []byte("big"), []byte(strings.Repeat("v", 4<<20))})
	s := newSession(store, outputLimits{soft: 1 << 20, hard: 2 << 20}, protoLimits{})
	msg := pipelined(3, "big")
	s.Received(copy(s.ReadBuf(), msg))
	if !s.closing || len(s.Pending()) != 0 {
		t.Fatalf("closing %v with %d bytes pending; want closed with nothing", s.closing, len(s.Pending()))
	}
}
