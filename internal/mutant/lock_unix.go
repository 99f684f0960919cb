//go:build unix

package mutant

import (
	"os"
	"path/filepath"
	"syscall"
)

// lockFile is the machine-wide lock's file, in the temporary directory.
const lockFile = "vsched-mutant.lock"

// lockMachine takes a machine-wide lock for the rest of t, so that mutant
// runs of different packages, which go test runs in parallel processes, run
// one at a time. The stress verifiers among them need every core: on a
// 2-core machine, two of them at once can miss a race that either finds
// within a second alone.
func lockMachine(t TB) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), lockFile), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("mutant lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		t.Fatalf("mutant lock: %v", err)
	}
	t.Cleanup(func() { f.Close() }) // closing releases the lock
}
