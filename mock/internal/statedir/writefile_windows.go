package statedir

import (
	"io/fs"
	"os"
	"path/filepath"
)

// writeFile writes data to path whole, as renameio does on Unix: into a
// temporary file beside it (its name starts with a dot, as renameio's),
// synced, then renamed over it (MoveFileEx replaces the old file).
// renameio's only Windows API, maybe.WriteFile, is os.WriteFile: a crash
// there could leave neither the old file nor the new one.
func writeFile(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, perm)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// syncDir does nothing: Windows syncs no folder (a folder cannot be
// opened for FlushFileBuffers through os.Open); its renames
// (MoveFileEx) are written through.
func syncDir(string) error { return nil }
