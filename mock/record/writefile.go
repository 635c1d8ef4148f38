//go:build !windows

package record

import (
	"io/fs"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// pending is a file being written whole: written into a temporary file
// beside it, which commit syncs and renames over it, so that a crash
// leaves the old file or the new one, never a part; abort removes it.
type pending struct{ f *renameio.PendingFile }

// newPending starts writing the file at path whole, with perm.
// renameio builds for Unix only; Windows has writefile_windows.go.
func newPending(path string, perm fs.FileMode) (*pending, error) {
	f, err := renameio.NewPendingFile(path, renameio.WithPermissions(perm), renameio.WithTempDir(filepath.Dir(path)))
	if err != nil {
		return nil, err
	}
	return &pending{f}, nil
}

func (p *pending) Write(b []byte) (int, error) { return p.f.Write(b) }
func (p *pending) commit() error               { return p.f.CloseAtomicallyReplace() }
func (p *pending) abort()                      { p.f.Cleanup() }
