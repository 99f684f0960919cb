//go:build unix && !vsched_explore

package mutant

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestTheMachineLockIsHeldUntilItsTestEnds(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir()) // a lock file of this test's own
	// free reports whether the lock can be taken at once.
	free := func() bool {
		f, err := os.OpenFile(filepath.Join(os.TempDir(), lockFile), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close() // releases it, if taken
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != nil && !errors.Is(err, syscall.EWOULDBLOCK) {
			t.Fatal(err)
		}
		return err == nil
	}
	t.Run("holder", func(t *testing.T) {
		lockMachine(t)
		if free() {
			t.Error("the lock could be taken while the test that holds it runs")
		}
	})
	if !free() {
		t.Error("the lock is still held after the test that took it ended")
	}
}
