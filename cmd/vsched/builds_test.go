//go:build !vsched_explore

package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The tests of cmd/vsched and internal/mutant run in the default build
// only: their files say !vsched_explore, because the explorer build
// compiles these packages, and everything their tests import, from the
// same files, so a second run there would test nothing new (and would
// double the go builds they start). This test holds that premise; the
// kernel, which the tag does change, is the case it must tell apart.
func TestTheToolsCompileTheSameInTheExplorerBuild(t *testing.T) {
	for pkg, want := range map[string]bool{
		"./cmd/vsched":      true,
		"./internal/mutant": true,
		"./kernel":          false,
	} {
		// The packages of the default build's test binary, less the ones
		// go test makes (the tests' own, and the main that runs them).
		deps := strings.Fields(goList(t, "", "-test", "-deps", "-f", "{{if not .ForTest}}{{.ImportPath}}{{end}}", pkg))
		deps = slices.DeleteFunc(deps, func(p string) bool { return strings.HasSuffix(p, ".test") })
		args := append([]string{"-f", "{{.ImportPath}} {{.GoFiles}} {{.CgoFiles}} {{.SFiles}}"}, deps...)
		same := goList(t, "", args...) == goList(t, "vsched_explore", args...)
		if same != want {
			t.Errorf("%s: what its tests import is compiled from the same files in both builds: %v, want %v", pkg, same, want)
		}
	}
}

// goList runs go list in the module root, in the build of tags.
func goList(t *testing.T, tags string, args ...string) string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-tags", tags}, args...)...)
	cmd.Dir = "../.." // the module root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}
