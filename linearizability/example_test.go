package linearizability_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/anishathalye/porcupine"

	"github.com/vsched/vsched/linearizability"
)

// A history of one queue with a 4-slot ring: the owner puts items 1, 2 and 3
// while a thief steals. A steal that overlaps the puts may take the oldest
// item; taking the newest is illegal.
func ExampleChecker_Check() {
	op := func(client int, call, ret int64, in linearizability.Input, out linearizability.Output) porcupine.Operation {
		return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
	}
	put := func(g int) linearizability.Input {
		return linearizability.Input{Op: linearizability.Put, P: 0, Items: []int{g}}
	}
	grab := linearizability.Input{Op: linearizability.Grab, P: 0}
	history := func(stolen int, left []int) []porcupine.Operation {
		return []porcupine.Operation{
			op(0, 1, 2, put(1), linearizability.Output{}),
			op(1, 3, 8, grab, linearizability.Output{Items: []int{stolen}}),
			op(0, 4, 5, put(2), linearizability.Output{}),
			op(0, 6, 7, put(3), linearizability.Output{}),
			op(0, 9, 10, linearizability.Input{Op: linearizability.Drain}, linearizability.Output{Items: left}),
		}
	}
	c := linearizability.Checker{Procs: 1, RingSize: 4, Dir: os.TempDir(), Label: "example"}

	res, err := c.Check(history(1, []int{2, 3}))
	fmt.Println("steal takes the oldest:", res, err)

	res, err = c.Check(history(3, []int{1, 2}))
	var f *linearizability.Failure
	if errors.As(err, &f) {
		os.Remove(f.HTML) // a real caller would print the path
		os.Remove(strings.TrimSuffix(f.HTML, ".html") + ".txt")
	}
	fmt.Println("steal takes the newest:", res, errors.Is(err, linearizability.ErrNotLinearizable))
	// Output:
	// steal takes the oldest: Ok <nil>
	// steal takes the newest: Illegal true
}
