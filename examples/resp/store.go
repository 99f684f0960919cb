package resp

import (
	"bytes"
	"hash/maphash"
	"strings"
	"sync"
)

// storeShards is the number of independently locked parts of a [Store].
const storeShards = 16

// Store is the in-memory keyspace: a map from key to value split into
// shards, each guarded by its own mutex, so that commands on different keys
// rarely contend. Its zero value is not usable; make one with [NewStore].
// A Store is safe for use by any number of goroutines and tasks.
type Store struct {
	seed   maphash.Seed
	shards [storeShards]shard
}

type shard struct {
	mu sync.Mutex
	m  map[string][]byte
	_  [64]byte // keep neighbouring shards' locks off one cache line
}

// NewStore returns an empty Store.
func NewStore() *Store {
	s := &Store{seed: maphash.MakeSeed()}
	for i := range s.shards {
		s.shards[i].m = make(map[string][]byte)
	}
	return s
}

func (s *Store) shard(key []byte) *shard {
	return &s.shards[maphash.Bytes(s.seed, key)%storeShards]
}

// Exec runs one command, args[0] being its name in any case, and appends
// its RESP2 reply to dst:
//
//	PING [message]     +PONG, or message as a bulk string
//	ECHO message       message as a bulk string
//	SET key value      +OK
//	GET key            the value as a bulk string, or the null bulk string
//	DEL key [key ...]  the number of keys that existed, as an integer
//
// Anything else, or a wrong number of arguments, is an -ERR reply. args may
// alias a connection's input buffer: SET copies what it keeps. Exec with no
// arguments appends nothing.
func (s *Store) Exec(dst []byte, args [][]byte) []byte {
	if len(args) == 0 {
		return dst
	}
	name, args := args[0], args[1:]
	switch {
	case is(name, "GET"):
		if len(args) != 1 {
			return arity(dst, "get")
		}
		sh := s.shard(args[0])
		sh.mu.Lock()
		v, ok := sh.m[string(args[0])]
		if ok {
			dst = appendBulk(dst, v)
		}
		sh.mu.Unlock()
		if !ok {
			dst = appendNull(dst)
		}
		return dst
	case is(name, "SET"):
		if len(args) != 2 {
			return arity(dst, "set")
		}
		v := bytes.Clone(args[1])
		if v == nil {
			v = []byte{}
		}
		sh := s.shard(args[0])
		sh.mu.Lock()
		sh.m[string(args[0])] = v
		sh.mu.Unlock()
		return appendSimple(dst, "OK")
	case is(name, "DEL"):
		if len(args) == 0 {
			return arity(dst, "del")
		}
		var n int64
		for _, key := range args {
			sh := s.shard(key)
			sh.mu.Lock()
			if _, ok := sh.m[string(key)]; ok {
				delete(sh.m, string(key))
				n++
			}
			sh.mu.Unlock()
		}
		return appendInt(dst, n)
	case is(name, "PING"):
		switch len(args) {
		case 0:
			return appendSimple(dst, "PONG")
		case 1:
			return appendBulk(dst, args[0])
		}
		return arity(dst, "ping")
	case is(name, "ECHO"):
		if len(args) != 1 {
			return arity(dst, "echo")
		}
		return appendBulk(dst, args[0])
	}
	return appendError(dst, "unknown command '"+sanitize(name)+"'")
}

// is reports whether name is cmd, ignoring case; cmd is upper case.
func is(name []byte, cmd string) bool {
	if len(name) != len(cmd) {
		return false
	}
	for i := range len(cmd) {
		if name[i]&^0x20 != cmd[i] {
			return false
		}
	}
	return true
}

func arity(dst []byte, cmd string) []byte {
	return appendError(dst, "wrong number of arguments for '"+cmd+"' command")
}

// sanitize makes a client's command name safe to quote in an error line:
// at most 128 bytes, with CR, LF and other control bytes as spaces.
func sanitize(b []byte) string {
	if len(b) > 128 {
		b = b[:128]
	}
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, string(b))
}
