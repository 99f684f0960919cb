package resp

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseCommandReturnsTheArgumentsOfAnArrayOfBulkStrings(t *testing.T) {
	in := "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$0\r\n\r\n*1\r\n$4\r\nPING\r\n"
	args, n, err := ParseCommand([]byte(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Index(in, "*1"); n != want {
		t.Errorf("n = %d, want %d (the first command only)", n, want)
	}
	if got := words(args); got != "SET|key|" {
		t.Errorf("args = %q, want SET|key|", got)
	}
}

func TestParseCommandTakesInlineCommands(t *testing.T) {
	for in, want := range map[string]string{
		"PING\r\n":              "PING",
		"SET  a\tb\n":           "SET|a|b",
		"  GET k  \r\nPING\n":   "GET|k",
		"\r\n":                  "",
		"ECHO \"not quoted\"\n": "ECHO|\"not|quoted\"",
	} {
		args, n, err := ParseCommand([]byte(in), nil)
		if err != nil || n != strings.IndexByte(in, '\n')+1 || words(args) != want {
			t.Errorf("ParseCommand(%q) = %q, %d, %v; want %q, %d, nil", in, words(args), n, err, want, strings.IndexByte(in, '\n')+1)
		}
	}
}

func TestParseCommandSkipsEmptyAndNullArrays(t *testing.T) {
	for _, in := range []string{"*0\r\n", "*-1\r\n"} {
		args, n, err := ParseCommand([]byte(in), nil)
		if err != nil || n != len(in) || len(args) != 0 {
			t.Errorf("ParseCommand(%q) = %q, %d, %v; want no arguments, %d, nil", in, words(args), n, err, len(in))
		}
	}
}

// Every proper prefix of a command is reported as incomplete, never as an
// error and never as a shorter command.
func TestParseCommandReportsEveryPrefixAsIncomplete(t *testing.T) {
	for _, cmd := range []string{
		"*3\r\n$3\r\nSET\r\n$10\r\nkey\r\nsplit\r\n$5\r\nvalue\r\n", // a CRLF inside a bulk string
		"*1\r\n$0\r\n\r\n",
		"*2\r\n$4\r\nECHO\r\n$12\r\n123456789012\r\n",
		"GET key\r\n",
	} {
		for i := range len(cmd) {
			args, n, err := ParseCommand([]byte(cmd[:i]), nil)
			if err != nil || n != 0 || len(args) != 0 {
				t.Errorf("ParseCommand(%q) = %q, %d, %v; want incomplete (0, nil)", cmd[:i], words(args), n, err)
			}
		}
		if _, n, err := ParseCommand([]byte(cmd), nil); err != nil || n != len(cmd) {
			t.Errorf("ParseCommand(%q) = %d, %v; want %d, nil", cmd, n, err, len(cmd))
		}
	}
}

func TestParseCommandRejectsMalformedInput(t *testing.T) {
	for in, want := range map[string]string{
		"*1\r\n+PING\r\n":  "expected '$', got '+'",
		"*x\r\n":           "invalid multibulk length",
		"*-2\r\n":          "invalid multibulk length",
		"*+1\r\n":          "invalid multibulk length",
		"*99999999999\r\n": "invalid multibulk length",
		"*1\r\n$-1\r\n":    "invalid bulk length",
		"*1\r\n$ 3\r\n":    "invalid bulk length",
		fmt.Sprintf("*1\r\n$%d\r\n", MaxBulkLen+1): "invalid bulk length",
		"*1\r\n$3\r\nGETX\r\n":                     "bulk string not terminated by CRLF",
		"*1\n":                                     "line not terminated by CRLF",
		"*" + strings.Repeat("1", MaxInline+1):     "too big * count",
		strings.Repeat("x", MaxInline+1):           "too big inline request",
	} {
		_, n, err := ParseCommand([]byte(in), nil)
		if !errors.Is(err, ErrProtocol) || !strings.HasSuffix(err.Error(), want) || n != 0 {
			t.Errorf("ParseCommand(%.40q) = %d, %v; want 0, an ErrProtocol ending %q", in, n, err, want)
		}
	}
}

// A pipeline of commands, delivered in pieces split at every possible
// place, gets the same replies as when it arrives in one read.
func TestSessionAnswersAPipelineHoweverItIsSplit(t *testing.T) {
	var pipeline, want strings.Builder
	for i := range 20 {
		k, v := fmt.Sprint("key", i), strings.Repeat("v", i)
		pipeline.WriteString(command("SET", k, v))
		pipeline.WriteString(command("GET", k))
		want.WriteString("+OK\r\n" + bulk(v))
	}
	pipeline.WriteString("PING\r\n" + command("DEL", "key0", "key1", "nokey") + command("GET", "key0"))
	want.WriteString("+PONG\r\n:2\r\n$-1\r\n")
	in := pipeline.String()

	for split := range len(in) {
		ss := newSession(NewStore(), outputLimits{}, protoLimits{})
		feed(ss, in[:split])
		feed(ss, in[split:])
		if got := string(ss.Pending()); got != want.String() {
			t.Fatalf("split at %d: replies\n%q\nwant\n%q", split, got, want.String())
		}
		if len(ss.in) != 0 || ss.closing {
			t.Fatalf("split at %d: %d bytes left unparsed, closing %v", split, len(ss.in), ss.closing)
		}
	}
}

// A command larger than the read buffer is answered once all of it has
// arrived, one small read at a time.
func TestSessionGrowsItsBufferForALargeCommand(t *testing.T) {
	v := strings.Repeat("x", 5*readSize)
	in := command("SET", "big", v) + command("GET", "big")
	ss := newSession(NewStore(), outputLimits{}, protoLimits{})
	for i := 0; i < len(in); i += 1000 {
		feed(ss, in[i:min(i+1000, len(in))])
	}
	if got, want := string(ss.Pending()), "+OK\r\n"+bulk(v); got != want {
		t.Fatalf("replies of %d bytes, want %d", len(got), len(want))
	}
}

func TestSessionAnswersAProtocolErrorThenCloses(t *testing.T) {
	ss := newSession(NewStore(), outputLimits{}, protoLimits{})
	feed(ss, "PING\r\n*1\r\n:3\r\nPING\r\n")
	if got, want := string(ss.Pending()), "+PONG\r\n-ERR Protocol error: expected '$', got ':'\r\n"; got != want || !ss.closing {
		t.Fatalf("replies %q, closing %v; want %q, closing", got, ss.closing, want)
	}
}

func TestExecRepliesAsRedisDoes(t *testing.T) {
	s := NewStore()
	for _, c := range []struct{ cmd, reply string }{
		{"PING", "+PONG\r\n"},
		{"ping hello", "$5\r\nhello\r\n"},
		{"PING a b", "-ERR wrong number of arguments for 'ping' command\r\n"},
		{"ECHO hi", "$2\r\nhi\r\n"},
		{"GET k", "$-1\r\n"},
		{"set k v1", "+OK\r\n"},
		{"SET k value", "+OK\r\n"},
		{"GeT k", "$5\r\nvalue\r\n"},
		{"SET k", "-ERR wrong number of arguments for 'set' command\r\n"},
		{"DEL k k2", ":1\r\n"},
		{"DEL k", ":0\r\n"},
		{"GET k", "$-1\r\n"},
		{"DEL", "-ERR wrong number of arguments for 'del' command\r\n"},
		{"FLUSHALL", "-ERR unknown command 'FLUSHALL'\r\n"},
	} {
		if got := string(s.Exec(nil, bytes.Fields([]byte(c.cmd)))); got != c.reply {
			t.Errorf("%s: reply %q, want %q", c.cmd, got, c.reply)
		}
	}
}

// feed delivers in to ss in reads as large as its buffer takes.
func feed(ss *session, in string) {
	// Bounded: each read takes at least readSize/2 bytes.
	for len(in) > 0 {
		n := copy(ss.ReadBuf(), in)
		ss.Received(n)
		in = in[n:]
	}
}

// command encodes args as a RESP array of bulk strings.
func command(args ...string) string {
	s := fmt.Sprintf("*%d\r\n", len(args))
	for _, a := range args {
		s += bulk(a)
	}
	return s
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }

func words(args [][]byte) string { return string(bytes.Join(args, []byte("|"))) }
