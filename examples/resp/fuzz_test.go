package resp

import (
	"bytes"
	"slices"
	"strconv"
	"testing"
)

// FuzzRESP checks the servers' parser (the resumable one, fed the input
// in reads of chunk bytes, as a session is) against refDecode, a plain
// decoder of the whole input written separately: the same commands, then
// the same end (an error, or a command still incomplete, or none). The
// parser must never panic. Run the seeds with go test; fuzz with
//
//	go test -run '^$' -fuzz FuzzRESP ./examples/resp
func FuzzRESP(f *testing.F) {
	for _, seed := range []string{
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n",
		"PING\r\nGET  k\t\r\n\r\n",
		"*0\r\n*-1\r\n",
		"*2\r\n$3\r\nGET\r\n$1\r\n",
		"*1\r\n$-1\r\n",
		"*1\r\n$99999999999\r\n",
		"*2\r\n$3\r\nGET\r\n:1\r\n",
		"*1\r\n$3\r\nabcXY",
		"*x\r\n",
		"*1\n",
		"GET k",
	} {
		f.Add(uint8(1), []byte(seed))
		f.Add(uint8(7), []byte(seed))
	}
	f.Fuzz(func(t *testing.T, chunk uint8, data []byte) {
		got, gotEnd := parseInChunks(data, 1+int(chunk)%64)
		want, wantEnd := refDecode(data)
		if !slices.EqualFunc(got, want, slices.Equal) || gotEnd != wantEnd {
			t.Fatalf("input %q in reads of %d:\nparser:    %q, %s\nreference: %q, %s", data, 1+int(chunk)%64, got, gotEnd, want, wantEnd)
		}
	})
}

// The ends of an input: every command taken, a command still incomplete,
// or a protocol error.
const (
	endDone       = "done"
	endIncomplete = "incomplete"
	endError      = "error"
)

// parseInChunks runs the session's parser over data arriving in reads of
// chunk bytes, keeping, as the session does, the command in progress at
// the start of its buffer; it returns the commands with arguments and how
// the input ended.
func parseInChunks(data []byte, chunk int) ([][]string, string) {
	var p parser
	var cmds [][]string
	var buf []byte
	for off := 0; off < len(data); {
		n := min(chunk, len(data)-off)
		buf = append(buf, data[off:off+n]...)
		off += n
		for {
			args, used, err := p.next(buf, nil)
			if err != nil {
				return cmds, endError
			}
			if used == 0 {
				break
			}
			if len(args) > 0 {
				cmd := make([]string, len(args))
				for i, a := range args {
					cmd[i] = string(a)
				}
				cmds = append(cmds, cmd)
			}
			buf = slices.Clone(buf[used:])
		}
	}
	if len(buf) > 0 {
		return cmds, endIncomplete
	}
	return cmds, endDone
}

// refDecode decodes data whole, by the rules of ParseCommand's doc and the
// limits, without resuming: the reference for FuzzRESP.
func refDecode(data []byte) ([][]string, string) {
	var cmds [][]string
	b := data
	for len(b) > 0 {
		if b[0] != '*' {
			line, rest, found := bytes.Cut(b, []byte("\n"))
			if !found {
				if len(b) > MaxInline {
					return cmds, endError
				}
				return cmds, endIncomplete
			}
			line = bytes.TrimSuffix(line, []byte("\r"))
			if words := bytes.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' }); len(words) > 0 {
				cmd := make([]string, len(words))
				for i, w := range words {
					cmd[i] = string(w)
				}
				cmds = append(cmds, cmd)
			}
			b = rest
			continue
		}
		count, rest, end := refHeader(b, MaxArgs)
		if end != "" {
			return cmds, end
		}
		b = rest
		var cmd []string
		for range count {
			if len(b) == 0 {
				return cmds, endIncomplete
			}
			if b[0] != '$' {
				return cmds, endError
			}
			size, rest, end := refHeader(b, MaxBulkLen)
			if end != "" {
				return cmds, end
			}
			if size < 0 {
				return cmds, endError
			}
			if len(rest) < size+2 {
				return cmds, endIncomplete
			}
			if rest[size] != '\r' || rest[size+1] != '\n' {
				return cmds, endError
			}
			cmd = append(cmd, string(rest[:size]))
			b = rest[size+2:]
		}
		if len(cmd) > 0 {
			cmds = append(cmds, cmd)
		}
	}
	return cmds, endDone
}

// refHeader decodes a header line, a prefix byte then a decimal from -1 to
// limit then CRLF: its value and the input after it, or how the input
// ends there.
func refHeader(b []byte, limit int) (int, []byte, string) {
	line, rest, found := bytes.Cut(b, []byte("\n"))
	if !found {
		if len(b) > MaxInline {
			return 0, nil, endError
		}
		return 0, nil, endIncomplete
	}
	digits, ok := bytes.CutSuffix(line[1:], []byte("\r"))
	if !ok || len(digits) > 10 || len(digits) > 0 && (digits[0] == '+' || digits[0] == '-' && string(digits) != "-1") {
		return 0, nil, endError // of the negative numbers only -1, as Redis's string2ll ("-0" is no number)
	}
	v, err := strconv.Atoi(string(digits))
	if err != nil || v < -1 || v > limit || v < 0 && string(digits) != "-1" {
		return 0, nil, endError
	}
	return v, rest, ""
}
