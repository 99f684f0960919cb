package main

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestInstalledVschedFetchesItsOwnSource serves a stand-in release of the
// module from a file-system module proxy and checks that the source is
// downloaded and copied to a writable directory, as an installed vsched run
// outside a clone does.
func TestInstalledVschedFetchesItsOwnSource(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go mod download")
	}
	proxy := t.TempDir()
	at := filepath.Join(proxy, "github.com", "vsched", "vsched", "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	const version = "v0.9.0"
	gomod := "module " + modulePath + "\n\ngo 1.25\n"
	files := map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-11-21T00:00:00Z"}`,
		version + ".mod":  gomod,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(at, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zf, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	for name, text := range map[string]string{"go.mod": gomod, "doc.go": "// Package vsched is a stand-in.\npackage vsched\n"} {
		w, err := zw.Create(modulePath + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zf.Close()
	t.Setenv("GOPROXY", "file://"+proxy)
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOFLAGS", "-modcacherw") // so that the test can remove the cache

	dir, err := downloadSource(context.Background(), goBinary(), version)
	if err != nil {
		t.Fatal(err)
	}
	// The module cache's files are read-only without -modcacherw.
	if err := os.Chmod(filepath.Join(dir, "doc.go"), 0o444); err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	if err := copyModule(dir, dst); err != nil {
		t.Fatal(err)
	}
	if path, err := readModulePath(filepath.Join(dst, "go.mod")); err != nil || path != modulePath {
		t.Fatalf("copied go.mod: module %q, %v", path, err)
	}
	if err := os.WriteFile(filepath.Join(dst, "doc.go"), []byte("package vsched\n"), 0o644); err != nil {
		t.Errorf("the copy is not writable: %v", err)
	}

	if _, err := downloadSource(context.Background(), goBinary(), "v9.9.9"); err == nil {
		t.Error("a version the proxy does not have was downloaded")
	}
}
