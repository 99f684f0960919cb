package xsync

import (
	"runtime"
	"testing"
)

func TestGetgIsStableWithinAGoroutineAndDistinctAcrossLiveOnes(t *testing.T) {
	me := Getg()
	if me == 0 || Getg() != me {
		t.Fatalf("Getg() = %#x then %#x, want one non-zero value", me, Getg())
	}
	const n = 8
	ids := make(chan uintptr, n)
	release := make(chan struct{})
	for range n {
		go func() {
			ids <- Getg()
			<-release // stay alive until every id is read
		}()
	}
	seen := map[uintptr]bool{me: true}
	for range n {
		id := <-ids
		if seen[id] {
			t.Fatalf("two live goroutines share Getg() = %#x", id)
		}
		seen[id] = true
	}
	close(release)
}

// TestGetgSurvivesStackGrowthAndRescheduling: the identifier is the
// goroutine's, not its stack pointer's (the stack moves when it grows) nor
// its thread's (a goroutine that blocks may resume on another thread).
func TestGetgSurvivesStackGrowthAndRescheduling(t *testing.T) {
	const n = 4
	type ids struct{ before, deep, after uintptr }
	got := make(chan ids, n)
	resume := make(chan struct{})
	for range n {
		go func() {
			var r ids
			r.before = Getg()
			r.deep = getgDeep(64) // 64 frames of 2 KiB: the stack grows and moves
			<-resume
			runtime.Gosched()
			r.after = Getg()
			got <- r
		}()
	}
	close(resume)
	for range n {
		r := <-got
		if r.deep != r.before || r.after != r.before {
			t.Errorf("Getg() = %#x, then %#x with a grown stack, then %#x after blocking; want one value", r.before, r.deep, r.after)
		}
	}
}

// getgDeep returns Getg called depth frames down; each frame holds 2 KiB.
//
//go:noinline
func getgDeep(depth int) uintptr {
	var frame [256]uintptr
	if depth == 0 {
		return Getg()
	}
	frame[depth%len(frame)] = getgDeep(depth - 1)
	return frame[depth%len(frame)]
}
