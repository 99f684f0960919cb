package steal_test

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/vsched/vsched/spec"
	"github.com/vsched/vsched/steal"
)

// visit enumerates o from r and returns the positions in order. It fails the
// test if the enumeration does not end after Count positions.
func visit(t *testing.T, o *steal.Order, r uint32) []int {
	t.Helper()
	var out []int
	for e := o.Start(r); !e.Done(); e.Next() {
		if len(out) == o.Count() {
			t.Fatalf("count %d, r %d: the enumeration is not Done after %d positions", o.Count(), r, len(out))
		}
		out = append(out, e.Position())
	}
	return out
}

// startStride returns the first position of the enumeration chosen by r and
// its stride, computed from the first two positions.
func startStride(o *steal.Order, r uint32) (start, stride int) {
	e := o.Start(r)
	start = e.Position()
	e.Next()
	return start, ((e.Position()-start)%o.Count() + o.Count()) % o.Count()
}

// Port of the runtime's RunStealOrderTest, first part, for every start
// position and every stride.
func TestEnumerationVisitsEveryPositionOnceThenDone(t *testing.T) {
	for count := 1; count <= 64; count++ {
		o := steal.NewOrder(count)
		strides := len(o.Strides())
		for k := range strides {
			for pos := range count {
				r := uint32(k*count + pos)
				got := visit(t, o, r)
				if len(got) != count {
					t.Fatalf("count %d, r %d: visited %d positions, want %d", count, r, len(got), count)
				}
				if got[0] != pos {
					t.Fatalf("count %d, r %d: started at %d, want r %% count = %d", count, r, got[0], pos)
				}
				seen := make([]bool, count)
				for _, p := range got {
					if p < 0 || p >= count || seen[p] {
						t.Fatalf("count %d, r %d: visits %v: position %d out of range or repeated", count, r, got, p)
					}
					seen[p] = true
				}
			}
		}
	}
}

func TestOrderWithThreeOrMorePositionsHasAtLeastTwoStrides(t *testing.T) {
	for count := 3; count <= 64; count++ {
		if n := len(steal.NewOrder(count).Strides()); n < 2 {
			t.Fatalf("count %d: %d strides, want at least 2", count, n)
		}
	}
}

// Port of the runtime's RunStealOrderTest, second part.
func TestFirstSeedsGiveDistinctStartStridePairs(t *testing.T) {
	for count := 2; count <= 64; count++ {
		o := steal.NewOrder(count)
		n := count * len(o.Strides())
		type pair struct{ start, stride int }
		seen := make(map[pair]uint32, n)
		for r := range uint32(n) {
			start, stride := startStride(o, r)
			p := pair{start, stride}
			if prev, dup := seen[p]; dup {
				t.Fatalf("count %d: seeds %d and %d both give start %d, stride %d", count, prev, r, start, stride)
			}
			seen[p] = r
		}
	}
}

func TestStridesAreTheCoprimesOfCount(t *testing.T) {
	for _, count := range append(seq(1, 64), 100, 128, 210, 1000) {
		o := steal.NewOrder(count)
		if o.Count() != count {
			t.Fatalf("NewOrder(%d).Count() = %d", count, o.Count())
		}
		got, want := o.Strides(), spec.Coprimes(count)
		if !slices.Equal(got, want) {
			t.Fatalf("count %d: Strides() = %v, want the coprimes %v", count, got, want)
		}
		for _, s := range got {
			if gcd(s, count) != 1 {
				t.Fatalf("count %d: stride %d is not coprime with it", count, s)
			}
		}
	}
}

func TestStridesReturnsACopy(t *testing.T) {
	o := steal.NewOrder(6)
	s := o.Strides()
	s[0], s[1] = 4, 4
	if got := o.Strides(); !slices.Equal(got, []int{1, 5}) {
		t.Fatalf("after changing the returned slice, Strides() = %v, want [1 5]", got)
	}
	if got := visit(t, o, 0); !slices.Equal(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("after changing the returned slice, Start(0) visits %v", got)
	}
}

func TestStartVisitsWhatSpecVisitPrescribes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var rs []uint32
	for i := range uint32(200) {
		rs = append(rs, i, 1<<32-1-i, 1<<31+i)
	}
	for range 200 {
		rs = append(rs, rng.Uint32())
	}
	for count := 1; count <= 64; count++ {
		o := steal.NewOrder(count)
		for _, r := range rs {
			if got, want := visit(t, o, r), spec.Visit(count, r); !slices.Equal(got, want) {
				t.Fatalf("count %d, r %d: visits %v, spec.Visit says %v", count, r, got, want)
			}
		}
	}
}

func TestNewOrderPanicsForCountBelowOne(t *testing.T) {
	for _, count := range []int{0, -1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("NewOrder(%d) did not panic", count)
				}
			}()
			steal.NewOrder(count)
		}()
	}
}

// An Order is immutable and may be shared by all thieves: concurrent
// enumerations see the same sequences (the race detector checks the rest).
func TestOrderMayBeSharedByConcurrentThieves(t *testing.T) {
	o := steal.NewOrder(12)
	var wg sync.WaitGroup
	for th := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := uint32(th); r < 2000; r += 4 {
				var got []int
				for e := o.Start(r); !e.Done(); e.Next() {
					got = append(got, e.Position())
				}
				if want := spec.Visit(12, r); !slices.Equal(got, want) {
					t.Errorf("r %d: visits %v, want %v", r, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func seq(lo, hi int) []int {
	var s []int
	for i := lo; i <= hi; i++ {
		s = append(s, i)
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
