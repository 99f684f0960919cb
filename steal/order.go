package steal

import (
	"fmt"
	"math"
)

// Order enumerates the Ps of a scheduler in random orders; it is the
// runtime's randomOrder. An Order is immutable after [NewOrder] and may be
// shared by all thieves.
type Order struct {
	count    uint32
	coprimes []uint32
}

// NewOrder returns an Order over count positions; it is the runtime's
// randomOrder.reset. The strides are the numbers in [1, count] coprime with
// count. NewOrder panics if count is not in [1, 2^32-1].
func NewOrder(count int) *Order {
	if count < 1 || uint64(count) > math.MaxUint32 {
		panic(fmt.Sprintf("steal: NewOrder(%d): count must be in [1, 2^32-1]", count))
	}
	o := &Order{count: uint32(count)}
	for i := uint32(1); i <= o.count; i++ {
		if gcd(i, o.count) == 1 {
			o.coprimes = append(o.coprimes, i)
		}
	}
	return o
}

// Count returns the number of positions.
func (o *Order) Count() int { return int(o.count) }

// Strides returns the strides the order chooses from, in increasing order:
// every number in [1, Count] coprime with Count.
func (o *Order) Strides() []int {
	s := make([]int, len(o.coprimes))
	for i, c := range o.coprimes {
		s[i] = int(c)
	}
	return s
}

// Start begins an enumeration chosen by the random number r; it is the
// runtime's randomOrder.start. The first position is r % Count and the
// stride is Strides()[(r / Count) % len(Strides())].
func (o *Order) Start(r uint32) Enum {
	return Enum{
		count: o.count,
		pos:   r % o.count,
		inc:   o.coprimes[r/o.count%uint32(len(o.coprimes))],
	}
}

// Enum is one enumeration of an [Order]; it is the runtime's randomEnum.
//
//	for e := order.Start(r); !e.Done(); e.Next() {
//		victim := ps[e.Position()]
//		...
//	}
type Enum struct {
	i     uint32
	count uint32
	pos   uint32
	inc   uint32
}

// Done reports whether every position has been visited.
func (e *Enum) Done() bool { return e.i == e.count }

// Next moves to the next position.
func (e *Enum) Next() {
	e.i++
	// (pos + inc) % count, without the division (a thief takes a step
	// per P it looks at) and without overflow: pos < count, inc <= count.
	if e.pos >= e.count-e.inc {
		e.pos -= e.count - e.inc
	} else {
		e.pos += e.inc
	}
}

// Position returns the current position, in [0, Count).
func (e *Enum) Position() int { return int(e.pos) }

func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
