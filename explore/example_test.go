//go:build vsched_explore

package explore_test

import (
	"fmt"

	"github.com/vsched/vsched/explore"
	"github.com/vsched/vsched/runq"
)

// A thief steals from a queue while its owner takes items: under every
// schedule within the preemption bound, each item is taken exactly once.
func Example() {
	res, err := explore.Run(explore.Config{}, func() {
		items := []int{1, 2, 3}
		owner, thief := new(runq.Queue[int]), new(runq.Queue[int])
		for i := range items {
			owner.Put(&items[i], false)
		}
		var stolen []*int
		th := explore.Go(func() {
			if g := owner.StealInto(thief, false, nil); g != nil {
				stolen = append(thief.Drain(nil), g)
			}
		})
		g, _ := owner.Get()
		th.Join()
		got := append(owner.Drain(nil), stolen...)
		if g != nil {
			got = append(got, g)
		}
		seen := map[*int]bool{}
		for _, g := range got {
			explore.Assertf(!seen[g], "item %d taken twice", *g)
			seen[g] = true
		}
		explore.Assertf(len(seen) == len(items), "took %d items, want %d", len(seen), len(items))
	})
	if err != nil {
		panic(err)
	}
	switch {
	case res.Failure != nil:
		fmt.Println(res.Failure)
	case !res.Complete:
		fmt.Println("capped:", explore.Summary(res))
	default:
		fmt.Println("complete: under every schedule within the bound, each item was taken exactly once")
	}
	// Output:
	// complete: under every schedule within the bound, each item was taken exactly once
}
