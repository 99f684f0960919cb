//go:build linux

// Package kernel breaks two rules, in a file of one build only: it locks a
// sync.Mutex, and it imports a verifier's library.
package kernel

import (
	"sync"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/runq"
)

var _ sync.Mutex
var _ = rapid.Int
var _ runq.Global[int]
