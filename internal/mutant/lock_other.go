//go:build !unix

package mutant

import "testing"

// lockMachine does nothing where flock is not available: mutant runs of
// different packages may overlap there.
func lockMachine(*testing.T) {}
