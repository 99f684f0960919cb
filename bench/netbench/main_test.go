package netbench

import (
	"os"
	"testing"
)

// TestMain runs the tests and benchmarks, unless the process was started
// as a client process by runClientProcess or as a server process by
// startServerProcess.
func TestMain(m *testing.M) {
	if spec := os.Getenv(clientEnv); spec != "" {
		os.Exit(ClientProcessMain(spec, os.Stdin, os.Stdout))
	}
	if spec := os.Getenv(serverEnv); spec != "" {
		os.Exit(ServerProcessMain(spec, os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}
