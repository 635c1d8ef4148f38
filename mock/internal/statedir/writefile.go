//go:build !windows

package statedir

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// writeFile writes data to path whole: into a temporary file beside it,
// synced, then renamed over it, so that a crash leaves the old file or
// the new one, never a part. renameio builds for Unix only; Windows has
// writefile_windows.go.
func writeFile(path string, data []byte, perm fs.FileMode) error {
	return renameio.WriteFile(path, data, perm, renameio.WithTempDir(filepath.Dir(path)))
}

// syncDir syncs the folder dir, so that the renames and removals in it
// outlive a power cut.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
