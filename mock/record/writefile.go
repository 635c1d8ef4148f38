//go:build !windows

package record

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// newPending starts writing the file at path whole, with perm: into a
// temporary file beside it, which CloseAtomicallyReplace syncs and
// renames over it, so that a crash leaves the old file or the new one.
// renameio builds for Unix only; Windows has writefile_windows.go.
func newPending(path string, perm fs.FileMode) (*renameio.PendingFile, error) {
	return renameio.NewPendingFile(path, renameio.WithPermissions(perm), renameio.WithTempDir(filepath.Dir(path)))
}
