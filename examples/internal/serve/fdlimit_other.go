//go:build !unix

package serve

// fdLimit reports no limit where the system has none to read.
func fdLimit() (int, bool) { return 0, false }
