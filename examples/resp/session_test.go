package resp

import (
	"fmt"
	"strings"
	"testing"
)

// bigDel is a DEL of n keys, as one RESP array.
func bigDel(n int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n$3\r\nDEL\r\n", n+1)
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

// TestParsingIsLinearInTheCommand: a DEL of a million keys arriving in
// 1 KiB reads is parsed once: the parser looks at each byte of the
// headers about once, not at every header again after each read (which
// was 5.8 s of CPU for this command, against Redis's 0.56 s).
func TestParsingIsLinearInTheCommand(t *testing.T) {
	msg := bigDel(1_000_000)
	s := newSession(NewStore())
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
}

// TestSessionDropsTheBuffersOfABigCommand: after a command of a million
// arguments, an idle session keeps small buffers (it kept 24 MiB of
// argument slots until the connection closed).
func TestSessionDropsTheBuffersOfABigCommand(t *testing.T) {
	s := newSession(NewStore())
	feedChunks(s, bigDel(1_000_000), 16<<10)
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
