//go:build !windows

package statedir

import (
	"io/fs"
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
