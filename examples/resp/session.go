package resp

import (
	"errors"
	"sync"
)

// Buffer sizes of a session.
const (
	// readSize is the initial input buffer and the least free space a read
	// is offered.
	readSize = 16 << 10
	// keepOut is the largest output buffer kept once it has been written;
	// a larger one (a big pipelined batch of GETs) is dropped.
	keepOut = 1 << 20
)

// A session is the protocol state of one connection, the same for both
// servers (a serve.Session): the bytes received and not yet parsed, and the replies not yet
// written. Only the connection's handler uses it.
//
// The handler reads into [session.ReadBuf], reports the bytes with
// [session.Received], which runs every complete command and appends the
// replies to out, and writes out. Commands pipelined in one read are
// answered with one write; a command split across reads waits in in until
// the rest arrives.
type session struct {
	store *Store
	in    []byte   // received, not yet parsed: always a whole buffer from in[0]
	out   []byte   // replies: out[sent:] is not written yet
	sent  int      // bytes of out already written
	args  [][]byte // the parser's output, reused
	p     parser   // resumes a command that has not fully arrived
	// closing is set after a protocol error: the -ERR reply is the last
	// thing in out, and the connection is closed once out is written.
	closing  bool
	lim      outputLimits
	maxQuery int // the most bytes of a command still arriving
	// paused is set while complete commands wait in in because the
	// pending replies are over the soft limit; Wrote runs them once the
	// replies are written.
	paused bool
	// moved counts the input bytes copied within or between buffers, for
	// the test that a command costs time linear in its size.
	moved int
}

// outputLimits bound the replies a session holds unwritten; 0 is no limit.
type outputLimits struct{ soft, hard int }

// protoLimits are a session's input limits; 0 means the default
// (MaxBulkLen, MaxQueryBuffer).
type protoLimits struct{ maxBulk, maxQuery int }

func newSession(store *Store, lim outputLimits, proto protoLimits) *session {
	s := &session{store: store, lim: lim, maxQuery: proto.maxQuery}
	s.p.maxBulk = proto.maxBulk
	if s.maxQuery <= 0 {
		s.maxQuery = MaxQueryBuffer
	}
	return s
}

// inBufs are the input buffers of readSize of the sessions that are not
// idle (see session.Idle).
var inBufs = sync.Pool{New: func() any { return new([readSize]byte) }}

// keptIdleOut is the largest output buffer an idle session keeps: a small
// one saves an allocation per reply, a large one is dropped.
const keptIdleOut = 512

// ReadBuf returns the free space after the received bytes, at least
// readSize/2 bytes, growing the buffer when a command does not fit.
func (s *session) ReadBuf() []byte {
	if s.in == nil {
		s.in = inBufs.Get().(*[readSize]byte)[:0]
	}
	if cap(s.in)-len(s.in) < readSize/2 {
		grown := make([]byte, len(s.in), 2*cap(s.in))
		s.moved += copy(grown, s.in)
		s.in = grown
	}
	return s.in[len(s.in):cap(s.in)]
}

// Received takes n bytes just read into ReadBuf, runs the complete
// commands in the input and appends the replies to out. After a protocol
// error it appends the error reply, discards the input and sets closing.
func (s *session) Received(n int) {
	s.in = s.in[:len(s.in)+n]
	s.run()
}

// run runs the complete commands in the input, up to the output limits:
// it stops while the pending replies are over the soft limit (paused),
// and closes the session, replies dropped, when they go over the hard one.
func (s *session) run() {
	s.paused = false
	done := 0
	// Every command consumes at least one byte, so this ends.
	for done < len(s.in) {
		if s.lim.soft > 0 && len(s.out)-s.sent > s.lim.soft {
			s.paused = true
			break
		}
		args, used, err := s.p.next(s.in[done:], s.args)
		s.args = args
		if err != nil {
			s.fail(err)
			return
		}
		if used == 0 {
			break
		}
		s.out = s.store.Exec(s.out, args)
		done += used
		if s.lim.hard > 0 && len(s.out)-s.sent > s.lim.hard {
			// As Redis, close the client without its replies.
			s.out, s.sent = nil, 0
			s.in = s.in[:0]
			s.p.reset()
			s.closing = true
			return
		}
	}
	rest := len(s.in) - done
	if done > 0 { // else a command still arriving stays where it is
		s.moved += copy(s.in, s.in[done:])
		s.in = s.in[:rest]
	}
	if rest == 0 && cap(s.in) > 4*readSize {
		s.in = make([]byte, 0, readSize) // a big command has gone
	}
	clear(s.args) // drop references into in
	if cap(s.args) > maxKeptSpans {
		s.args = nil // a command with very many arguments has gone
	}
	if rest > s.maxQuery {
		s.fail(protoErr("query buffer limit exceeded"))
	}
}

func (s *session) fail(err error) {
	var pe *protocolError
	if errors.As(err, &pe) {
		s.out = appendError(s.out, pe.reply)
	} else {
		s.out = appendError(s.out, err.Error())
	}
	s.in = s.in[:0]
	s.p.reset()
	s.closing = true
}

// Idle gives the input buffer back when no command is arriving, and drops
// a large output buffer once it is written: the kernel server calls it
// (serve.Idler) before its connection waits for input, so that an idle
// connection holds no read buffer. The next ReadBuf takes one again.
func (s *session) Idle() {
	if s.in != nil && len(s.in) == 0 {
		if cap(s.in) == readSize {
			inBufs.Put((*[readSize]byte)(s.in[:readSize]))
		}
		s.in = nil
	}
	if s.sent == len(s.out) && cap(s.out) > keptIdleOut {
		s.out, s.sent = nil, 0
	}
}

// Closing reports that a protocol error's reply is the last output: the
// connection is closed once it is written.
func (s *session) Closing() bool { return s.closing }

// Pending returns the replies not written yet.
func (s *session) Pending() []byte { return s.out[s.sent:] }

// Wrote records that the first n bytes of Pending were written; once all
// is written the output buffer is reused, and commands that waited for
// the replies to be read run, so that Pending may have more.
func (s *session) Wrote(n int) {
	s.sent += n
	if s.sent < len(s.out) {
		return
	}
	s.sent = 0
	s.out = s.out[:0]
	if cap(s.out) > keepOut {
		s.out = nil
	}
	if s.paused {
		s.run()
	}
}
