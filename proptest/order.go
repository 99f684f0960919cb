package proptest

import (
	"pgregory.net/rapid"

	"github.com/vsched/vsched/spec"
	"github.com/vsched/vsched/steal"
)

// CheckOrderVisitsEveryPositionOnce is the property that an enumeration of
// steal.Order, for any count and any random start, visits exactly the
// positions spec.Visit lists, each of 0..count-1 once, and then is done.
func CheckOrderVisitsEveryPositionOnce(t *rapid.T) {
	count := rapid.IntRange(1, 300).Draw(t, "count")
	r := rapid.Uint32().Draw(t, "r")
	o := steal.NewOrder(count)
	want := spec.Visit(count, r)
	seen := make([]bool, count)
	i := 0
	for e := o.Start(r); !e.Done(); e.Next() {
		if i == count {
			mismatch(t, "enumeration of %d positions did not end", count)
		}
		p := e.Position()
		if p != want[i] {
			mismatch(t, "step %d visited %d, spec says %d", i, p, want[i])
		}
		if seen[p] {
			mismatch(t, "position %d visited twice", p)
		}
		seen[p] = true
		i++
	}
	if i != count {
		mismatch(t, "enumeration visited %d of %d positions", i, count)
	}
}

// CheckOrderStridesAreCoprimes is the property that the strides of
// steal.Order are exactly spec.Coprimes, at least two for count >= 3, and
// that the first count*len(strides) seeds give distinct (start, stride)
// pairs, so seeds spread thieves over every combination.
func CheckOrderStridesAreCoprimes(t *rapid.T) {
	count := rapid.IntRange(1, 300).Draw(t, "count")
	o := steal.NewOrder(count)
	strides := o.Strides()
	equalIDs(t, "strides", spec.Coprimes(count), strides)
	if count >= 3 && len(strides) < 2 {
		mismatch(t, "count %d has %d strides, want at least 2", count, len(strides))
	}
	type pair struct{ start, stride int }
	seen := make(map[pair]bool)
	for r := range uint32(count * len(strides)) {
		e := o.Start(r)
		start := e.Position()
		e.Next()
		stride := (e.Position() - start + count) % count
		if count == 1 {
			stride = strides[0]
		}
		p := pair{start, stride}
		if seen[p] {
			mismatch(t, "seed %d repeats (start %d, stride %d)", r, start, stride)
		}
		seen[p] = true
	}
}
