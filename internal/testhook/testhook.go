// Package testhook holds the key that unlocks test-only hooks of the
// scheduler's packages. Because the package is internal, only code inside
// this module can name Key, so a method that takes a Key cannot be called by
// users of the module even though it is exported for the module's own test
// and verifier packages.
package testhook

// Key is the unforgeable argument of a test-only hook.
type Key struct{}
