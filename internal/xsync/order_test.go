//go:build !vsched_explore

package xsync

import (
	"runtime"
	"testing"
	"time"
)

// TestStoreThenLoadOfAnotherWordIsNotReordered checks on the machine at hand
// what FenceSC's empty body relies on in the default build: a Store
// followed by a Load of another word is not reordered (store buffering,
// the outcome r1 == r2 == 0 below, is forbidden). Go's memory model
// promises it; on arm64 the pair is STLR then LDAR, which the architecture
// keeps in order. qemu-user on an x86 host does not (docs/VERIFICATION.md,
// "Other systems"), and this test is how to see it.
func TestStoreThenLoadOfAnotherWordIsNotReordered(t *testing.T) {
	if runtime.NumCPU() < 2 || runtime.GOMAXPROCS(0) < 2 {
		t.Skipf("needs two goroutines running in parallel (NumCPU %d, GOMAXPROCS %d)", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	}
	const rounds = 50_000
	deadline := time.Now().Add(time.Second)
	x := make([]Uint32, rounds)
	y := make([]Uint32, rounds)
	r1 := make([]uint32, rounds)
	r2 := make([]uint32, rounds)
	// Each goroutine announces the round it has reached and waits for the
	// other, so that both run round i's two operations at about the same
	// moment. A ends the test at the deadline and tells B through stop.
	var atA, atB, stop Uint64
	done := make(chan int)
	go func() { // A
		i := 0
		for ; i < rounds && time.Now().Before(deadline); i++ {
			atA.Store(uint64(i + 1))
			for atB.Load() < uint64(i+1) {
			}
			x[i].Store(1)
			r1[i] = y[i].Load()
		}
		stop.Store(1)
		done <- i
	}()
	go func() { // B
		i := 0
	rounds:
		for ; i < rounds; i++ {
			atB.Store(uint64(i + 1))
			for atA.Load() < uint64(i+1) {
				if stop.Load() != 0 {
					break rounds
				}
			}
			y[i].Store(1)
			r2[i] = x[i].Load()
		}
		done <- i
	}()
	ran := min(<-done, <-done)
	reordered := 0
	for i := range ran {
		if r1[i] == 0 && r2[i] == 0 {
			reordered++
		}
	}
	t.Logf("%d rounds", ran)
	if reordered > 0 {
		t.Errorf("in %d of %d rounds each goroutine's Load missed the other's Store that came before it: this machine reorders a Store and a later Load", reordered, ran)
	}
}
