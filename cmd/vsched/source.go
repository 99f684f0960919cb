package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
)

// sourceRoot finds the source the campaign verifies. Inside a clone of the
// module (or with VSCHED_ROOT set) that is the clone. An installed vsched
// run elsewhere falls back to the source of its own version: "go mod
// download" fetches it into the module cache, which is read-only, so it is
// copied to a temporary directory that cleanup removes. A vsched built from
// a clone has no version to fetch; the error then says what to do.
func sourceRoot(ctx context.Context, goBin string, stderr io.Writer) (root string, cleanup func(), err error) {
	nothing := func() {}
	root, cloneErr := moduleRoot(ctx, goBin)
	if cloneErr == nil {
		return root, nothing, nil
	}
	version, released := readBuildInfo()
	if !released {
		return "", nothing, fmt.Errorf("%v\n\tThis vsched was not installed from a released version, so it cannot fetch its own source.\n"+
			"\tRun it inside a clone (git clone https://%s && cd vsched && go run ./cmd/vsched ...),\n\tor set %s to the clone's root.",
			cloneErr, modulePath, rootEnv)
	}
	dir, err := downloadSource(ctx, goBin, version)
	if err != nil {
		return "", nothing, fmt.Errorf("%v\n\tFetching the source of %s@%s failed as well: %v\n"+
			"\tRun vsched inside a clone, or set %s to the clone's root.", cloneErr, modulePath, version, err, rootEnv)
	}
	tmp, err := os.MkdirTemp("", "vsched-source-")
	if err != nil {
		return "", nothing, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := copyModule(dir, tmp); err != nil {
		cleanup()
		return "", nothing, fmt.Errorf("copying %s: %v", dir, err)
	}
	fmt.Fprintf(stderr, "vsched: not inside a clone of %s; verifying %s@%s, copied from the module cache to %s\n",
		modulePath, modulePath, version, tmp)
	return tmp, cleanup, nil
}

// downloadSource returns the module cache directory of modulePath@version,
// downloading it if needed.
func downloadSource(ctx context.Context, goBin, version string) (string, error) {
	cmd := exec.CommandContext(ctx, goBin, "mod", "download", "-json", modulePath+"@"+version)
	// Outside any module, so that a go.work or go.mod around the current
	// directory does not get in the way.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out.Bytes(), &info); err != nil {
		if runErr != nil {
			return "", fmt.Errorf("go mod download: %v: %s", runErr, strings.TrimSpace(errOut.String()))
		}
		return "", fmt.Errorf("go mod download: %v", err)
	}
	if info.Error != "" {
		return "", fmt.Errorf("go mod download: %s", info.Error)
	}
	if info.Dir == "" || !isDir(info.Dir) {
		return "", fmt.Errorf("go mod download gave no source directory")
	}
	return info.Dir, nil
}

// readBuildInfo returns the version of vsched's own module, and whether it
// is a released one (installed with go install ...@version) rather than a
// build from a clone.
func readBuildInfo() (version string, released bool) {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Path != modulePath {
		return "", false
	}
	// Since Go 1.24 a build inside a clone is stamped with a version made
	// from the commit (and "+dirty"); only a build without VCS settings
	// came from the module proxy.
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			return bi.Main.Version, false
		}
	}
	return bi.Main.Version, bi.Main.Version != "" && bi.Main.Version != "(devel)"
}
