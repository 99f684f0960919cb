//go:build !vsched_explore

package mutant

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// recordingTB is a TB whose Fatalf and Skipf record the message and end
// the calling goroutine, as testing's do, and whose cleanups (the machine
// lock's release among them) run when that goroutine ends.
type recordingTB struct {
	t        *testing.T
	failed   string
	cleanups []func()
}

func (r *recordingTB) Helper()                  {}
func (r *recordingTB) TempDir() string          { return r.t.TempDir() }
func (r *recordingTB) Cleanup(f func())         { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Skipf(f string, a ...any) { r.Fatalf("skipped: "+f, a...) }
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// report runs Report on a goroutine of its own and returns what it
// failed with, "" if it passed.
func report(t *testing.T, m Mutant, v Verifier) string {
	r := &recordingTB{t: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for _, f := range slices.Backward(r.cleanups) {
				f()
			}
		}()
		Report(r, m, v)
	}()
	<-done
	return r.failed
}

// A known-bad test run under the overlay of a mutated verifier checks the
// mutated verifier: the queue's property reports a Get that loses a
// runnext item's inheritTime, and stops reporting it once its comparison
// of inheritTime is gone (prop-get-inherit-dropped).
func TestReportBuildsUnderTheOverlayOfAMutatedVerifier(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a verifier twice")
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bug := Named("get-runnext-no-inherit")
	v := Verifier{Name: "proptest", Pkg: "./proptest", Run: "^TestQueueMatchesSpec$",
		MustPrint: []string{"--- FAIL: TestQueueMatchesSpec", "inheritTime"}}
	t.Setenv(EnvOverlay, "")
	if failed := report(t, bug, v); failed != "" {
		t.Fatalf("the unmodified property: %s", failed)
	}
	outer, err := Named("prop-get-inherit-dropped").WriteOverlay(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvOverlay, outer)
	if failed := report(t, bug, v); !strings.Contains(failed, "did not report mutant get-runnext-no-inherit") {
		t.Fatalf("under the mutated property, Report: %q; want that it did not report the mutant", failed)
	}
}

// A seeded bug of the package that a mutated verifier changes is no test
// of that verifier: the explorer's own seeded bugs (its reduction's) are
// skipped under a mutant of the explorer, before anything is built.
func TestReportSkipsASeededBugOfTheMutatedVerifiersPackage(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	outer, err := Named("stores-commute").WriteOverlay(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvOverlay, outer)
	v := Verifier{Name: "reduction", Pkg: "./explore", Run: "^TestNothing$", Tags: "vsched_explore"}
	failed := report(t, Named("dpor-no-lock-race"), v)
	if !strings.HasPrefix(failed, "skipped: ") || !strings.Contains(failed, "both change internal/explorer") {
		t.Fatalf("Report of an explorer bug under an explorer mutant: %q; want it skipped", failed)
	}
}
