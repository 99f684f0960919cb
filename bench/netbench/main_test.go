package netbench

import (
	"os"
	"testing"
)

// TestMain runs the tests and benchmarks, unless the process was started
// as a client process by runClientProcess.
func TestMain(m *testing.M) {
	if spec := os.Getenv(clientEnv); spec != "" {
		os.Exit(ClientProcessMain(spec, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
