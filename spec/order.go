package spec

// Coprimes returns the numbers in [1, count] whose greatest common divisor
// with count is 1, in increasing order: the strides of randomOrder.
func Coprimes(count int) []int {
	var out []int
	for i := 1; i <= count; i++ {
		a, b := i, count
		for b != 0 {
			a, b = b, a%b
		}
		if a == 1 {
			out = append(out, i)
		}
	}
	return out
}

// Visit returns the positions an enumeration started with random number r
// visits, in order: count positions starting at r % count and stepping by
// the stride Coprimes(count)[(r / count) % len(Coprimes(count))].
func Visit(count int, r uint32) []int {
	cs := Coprimes(count)
	pos := int(r % uint32(count))
	inc := cs[int(r/uint32(count))%len(cs)]
	out := make([]int, count)
	for i := range out {
		out[i] = pos
		pos = (pos + inc) % count
	}
	return out
}
