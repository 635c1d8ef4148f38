package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/replymock/replymock/mock/internal/atomicfile"
)

// WriteFile replaces a file whole, with its mode, and leaves nothing
// else in the folder.
func TestWriteFileReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, data := range []string{"first, the longer of the two", "second"} {
		if err := atomicfile.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != data {
			t.Fatalf("read back %q, %v; want %q", got, err, data)
		}
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", fi.Mode(), err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		t.Errorf("SyncDir: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone: %v", len(entries), entries)
	}
}

// A file given up before it was put in place leaves the old file as it
// was, and no temporary file.
func TestCleanupKeepsTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "fixture.yaml")
	if err := atomicfile.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := atomicfile.New(path, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("half of the new")); err != nil {
		t.Fatal(err)
	}
	if err := f.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("after Cleanup the file holds %q, want %q", got, "old")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %d entries, want the file alone", len(entries))
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, "missing", "x"), nil, 0o600); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a write into a missing folder: %v, want not exist", err)
	}
}
