package resp

import (
	"bytes"
	"errors"
	"strconv"
)

// The protocol's limits, from Redis's where it has one. Input over a limit
// is a protocol error: the client gets Redis's -ERR reply and the
// connection is closed once the reply is written, lingering (for up to 2 s
// and 64 MiB) while the client is still sending, so that it reads the
// reply rather than a reset.
const (
	// MaxArgs is the longest command array accepted (Redis: the
	// multibulk length check of processMultibulkBuffer, 1024*1024).
	MaxArgs = 1024 * 1024
	// MaxBulkLen is the longest argument accepted by default
	// ([WithProtoLimits] sets another). Redis's proto-max-bulk-len is
	// 512 MiB; this example server holds a command's arguments in
	// memory, and takes less.
	MaxBulkLen = 16 << 20
	// MaxInline is the longest inline command line, and the longest
	// header line (Redis's PROTO_INLINE_MAX_SIZE).
	MaxInline = 64 << 10
	// MaxQueryBuffer bounds by default the bytes a connection may buffer
	// for one command that has not fully arrived ([WithProtoLimits] sets
	// another; Redis's client-query-buffer-limit is 1 GiB).
	MaxQueryBuffer = 64 << 20
)

// ErrProtocol is wrapped by every error of [ParseCommand]: the input is not
// RESP. A server answers it with an -ERR reply and closes the connection,
// as Redis does.
var ErrProtocol = errors.New("resp: protocol error")

// A protocolError says what was wrong with the input; reply is the text of
// the -ERR reply, Redis's wording.
type protocolError struct{ reply string }

func protoErr(what string) error { return &protocolError{"Protocol error: " + what} }

func (e *protocolError) Error() string { return "resp: " + e.reply }
func (e *protocolError) Unwrap() error { return ErrProtocol }

// ParseCommand parses the command at the start of b and appends its
// arguments to args[:0]. A command is a RESP array of bulk strings
// ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n") or an inline command, a line of
// words separated by spaces or tabs ("GET k\r\n"; the words are not
// unquoted, unlike redis-cli's).
//
// It returns the arguments, which alias b, and n, the bytes the command
// took. n == 0 with a nil error means that b holds only the beginning of a
// command: read more and parse again from the same start. A command with no
// arguments (an empty line, "*0\r\n", "*-1\r\n") returns n > 0 and no
// arguments: skip it. An error wraps [ErrProtocol].
//
// ParseCommand never reads past len(b) and never looks further than the
// length fields tell it to; but each call starts over, so a caller that
// parses a command again after each read pays for its headers each time.
// The servers keep a parser that resumes where the last read stopped.
func ParseCommand(b []byte, args [][]byte) (_ [][]byte, n int, err error) {
	var p parser
	return p.next(b, args)
}

// A parser parses commands from the start of a buffer that grows between
// calls, and resumes a command that had not fully arrived where it
// stopped: the headers of the arguments parsed so far are not read again,
// so a command costs time linear in its size however many reads bring it.
// The caller keeps the start of the command at the start of the buffer.
type parser struct {
	maxBulk int    // the longest argument; 0 means MaxBulkLen
	count   int    // the arguments of the command in progress; 0: none
	pos     int    // where the next argument's header starts
	spans   []span // the arguments parsed so far, as offsets in the buffer
	// scanned counts the bytes the parser has looked at, for the test
	// that parsing is linear.
	scanned int
}

// A span is an argument's place in the buffer.
type span struct{ start, end int }

// maxKeptSpans is the most argument slots a parser and a session keep
// between commands; a command with more drops its slots when it is done.
const maxKeptSpans = 1024

// next is ParseCommand for the command at the start of b, resumed.
func (p *parser) next(b []byte, args [][]byte) (_ [][]byte, n int, err error) {
	args = args[:0]
	if p.count == 0 {
		if len(b) == 0 {
			return args, 0, nil
		}
		if b[0] != '*' {
			return p.parseInline(b, args)
		}
		count, pos, err := p.parseLength(b, 0, '*', MaxArgs)
		if pos == 0 || err != nil {
			return args, 0, err
		}
		if count <= 0 {
			return args, pos, nil
		}
		p.count, p.pos, p.spans = count, pos, p.spans[:0]
	}
	for len(p.spans) < p.count {
		pos := p.pos
		if pos == len(b) {
			return args, 0, nil
		}
		if b[pos] != '$' {
			p.reset()
			return args, 0, protoErr("expected '$', got '" + string(b[pos]) + "'")
		}
		limit := p.maxBulk
		if limit <= 0 {
			limit = MaxBulkLen
		}
		size, next, err := p.parseLength(b, pos, '$', limit)
		if err != nil {
			p.reset()
			return args, 0, err
		}
		if next == 0 {
			return args, 0, nil
		}
		if size < 0 {
			p.reset()
			return args, 0, protoErr("invalid bulk length")
		}
		end := next + size
		if len(b) < end+2 {
			return args, 0, nil
		}
		if b[end] != '\r' || b[end+1] != '\n' {
			p.reset()
			return args, 0, protoErr("bulk string not terminated by CRLF")
		}
		p.spans = append(p.spans, span{next, end})
		p.pos = end + 2
	}
	for _, sp := range p.spans {
		args = append(args, b[sp.start:sp.end])
	}
	n = p.pos
	p.reset()
	return args, n, nil
}

// reset ends the command in progress.
func (p *parser) reset() {
	p.count, p.pos = 0, 0
	p.spans = p.spans[:0]
	if cap(p.spans) > maxKeptSpans {
		p.spans = nil
	}
}

// parseLength parses the header line at b[at:], prefix then a decimal
// integer then CRLF, and returns the integer and the position after the
// line; next == 0 means that the line is not complete yet. A length of -1
// (a null array or bulk string) is returned as -1; anything else below 0,
// above limit, or not a decimal integer is a protocol error.
func (p *parser) parseLength(b []byte, at int, prefix byte, limit int) (v, next int, err error) {
	end := bytes.IndexByte(b[at:], '\n')
	if end < 0 {
		p.scanned += len(b) - at
		if len(b)-at > MaxInline {
			return 0, 0, protoErr("too big " + string(prefix) + " count")
		}
		return 0, 0, nil
	}
	p.scanned += end + 1
	end += at
	if end == at || b[end-1] != '\r' {
		return 0, 0, protoErr("line not terminated by CRLF")
	}
	v, ok := parseDecimal(b[at+1:end-1], limit)
	if !ok {
		if prefix == '*' {
			return 0, 0, protoErr("invalid multibulk length")
		}
		return 0, 0, protoErr("invalid bulk length")
	}
	return v, end + 1, nil
}

// parseDecimal parses an integer from -1 to limit written in decimal, with
// no sign but an optional '-' and no leading or trailing space.
func parseDecimal(s []byte, limit int) (v int, ok bool) {
	if len(s) == 2 && s[0] == '-' && s[1] == '1' {
		return -1, true
	}
	if len(s) == 0 || len(s) > 10 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, v <= limit
}

// parseInline parses an inline command: one line, "\n" or "\r\n"
// terminated, of words separated by spaces and tabs.
func (p *parser) parseInline(b []byte, args [][]byte) ([][]byte, int, error) {
	end := bytes.IndexByte(b, '\n')
	if end < 0 {
		p.scanned += len(b)
		if len(b) > MaxInline {
			return args, 0, protoErr("too big inline request")
		}
		return args, 0, nil
	}
	p.scanned += end + 1
	line := b[:end]
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	for len(line) > 0 {
		i := bytes.IndexAny(line, " \t")
		switch {
		case i < 0:
			args = append(args, line)
			line = nil
		case i == 0:
			line = line[1:]
		default:
			args = append(args, line[:i])
			line = line[i+1:]
		}
	}
	return args, end + 1, nil
}

// Reply encoders: each appends one RESP2 value to dst.

func appendSimple(dst []byte, s string) []byte {
	dst = append(dst, '+')
	dst = append(dst, s...)
	return append(dst, '\r', '\n')
}

func appendError(dst []byte, msg string) []byte {
	dst = append(dst, "-ERR "...)
	dst = append(dst, msg...)
	return append(dst, '\r', '\n')
}

func appendInt(dst []byte, v int64) []byte {
	dst = append(dst, ':')
	dst = strconv.AppendInt(dst, v, 10)
	return append(dst, '\r', '\n')
}

func appendBulk(dst, v []byte) []byte {
	dst = append(dst, '$')
	dst = strconv.AppendInt(dst, int64(len(v)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, v...)
	return append(dst, '\r', '\n')
}

func appendNull(dst []byte) []byte { return append(dst, "$-1\r\n"...) }
