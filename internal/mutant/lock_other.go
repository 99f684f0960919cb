//go:build !unix

package mutant

// lockMachine does nothing where flock is not available: mutant runs of
// different packages may overlap there.
func lockMachine(TB) {}
