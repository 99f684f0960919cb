// Package steal holds the scheduler's stealing policy: the order in which a
// thief visits victims, which mirrors the runtime's randomOrder and
// randomEnum (runtime/proc.go, stealOrder).
//
// A thief draws a random number r and visits every P exactly once, starting
// at r % count and stepping by a stride coprime with count, so that two
// thieves that start together spread over different victims instead of
// queueing behind each other on the same one.
//
// Invariants: for every count >= 1 and every r, an enumeration visits each of
// the positions 0..count-1 exactly once and then reports Done. For
// count >= 3 there are at least two strides, and the first
// count*len(coprimes) values of r give distinct (start, stride) pairs.
package steal
