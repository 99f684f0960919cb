package spec_test

import (
	"fmt"

	"github.com/vsched/vsched/spec"
)

// The model answers what a run queue must do; a test feeds the same
// operations to the implementation and compares.
func ExampleQueue() {
	q := spec.NewQueue[string](4) // a ring of 4, as in the explorer build

	q.Put("a", false)
	q.Put("b", false)
	q.Put("c", true) // runnext
	q.Put("d", false)
	q.Put("e", false)
	overflow := q.Put("f", false) // the ring is full: a, b and f leave
	fmt.Println("overflow:", overflow, "ring:", q.Ring())

	// A thief that observed the 2-item ring takes ceil(2/2) = 1 item.
	stolen, err := q.Grab(2, true)
	fmt.Println("stolen:", stolen, err)

	g, _, inheritTime := q.Get()
	fmt.Println("get:", g, inheritTime)
	fmt.Println("drain:", q.Drain())

	// Output:
	// overflow: [a b f] ring: [d e]
	// stolen: [d] <nil>
	// get: c true
	// drain: [e]
}
