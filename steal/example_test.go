package steal_test

import (
	"fmt"

	"github.com/vsched/vsched/steal"
)

func ExampleOrder() {
	order := steal.NewOrder(4) // a scheduler with 4 Ps
	fmt.Println("strides:", order.Strides())

	// A thief draws a random number, here 6, and visits every P once:
	// it starts at 6%4 = 2 and steps by the stride Strides()[6/4%2] = 3.
	var victims []int
	for e := order.Start(6); !e.Done(); e.Next() {
		victims = append(victims, e.Position())
	}
	fmt.Println("victims:", victims)

	// Output:
	// strides: [1 3]
	// victims: [2 1 0 3]
}
