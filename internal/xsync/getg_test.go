package xsync

import "testing"

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
