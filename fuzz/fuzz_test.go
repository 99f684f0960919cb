package fuzz

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/vsched/vsched/proptest"
)

// FuzzQueue checks runq.Queue, a thief's queue and runq.Global against spec
// (proptest.CheckQueue).
func FuzzQueue(f *testing.F) { f.Fuzz(rapid.MakeFuzz(proptest.CheckQueue)) }

// FuzzGlobal checks runq.Global against spec.Global (proptest.CheckGlobal).
func FuzzGlobal(f *testing.F) { f.Fuzz(rapid.MakeFuzz(proptest.CheckGlobal)) }

// FuzzGroups checks task groups in a single-M kernel against spec.Groups
// (proptest.CheckGroups).
func FuzzGroups(f *testing.F) { f.Fuzz(rapid.MakeFuzz(proptest.CheckGroups)) }
