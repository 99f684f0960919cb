//go:build vsched_explore

package explore

import "testing"

// StubSearch makes Check take its exploration's result from f until t
// ends: a test of what Check does with a result that no small model
// produces (a search stopped at the default cap of 10,000,000
// executions).
func StubSearch(t testing.TB, f func(Config, func()) (Result, error)) {
	saved := search
	search = f
	t.Cleanup(func() { search = saved })
}
