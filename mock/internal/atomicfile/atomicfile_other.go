//go:build !windows

package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// File is a file being written whole: CloseAtomicallyReplace puts it in
// place, and Cleanup removes it unless it was put in place.
type File = renameio.PendingFile

// New starts writing the file at path whole, with perm.
func New(path string, perm fs.FileMode) (*File, error) {
	return renameio.NewPendingFile(path, renameio.WithPermissions(perm), renameio.WithTempDir(filepath.Dir(path)))
}

// SyncDir syncs the folder dir, so that the renames and removals in it
// outlive a power cut.
func SyncDir(dir string) error {
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
