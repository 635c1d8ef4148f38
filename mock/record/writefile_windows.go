package record

import (
	"io/fs"
	"os"
	"path/filepath"
)

// pending is a file being written whole, as renameio writes one on Unix
// (renameio has no such API on Windows): into a temporary file beside
// it, whose name starts with a dot.
type pending struct {
	*os.File
	path string
	perm fs.FileMode
}

// newPending starts writing the file at path whole, with perm.
func newPending(path string, perm fs.FileMode) (*pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &pending{File: f, path: path, perm: perm}, nil
}

// CloseAtomicallyReplace syncs the temporary file and renames it over
// the file (MoveFileEx replaces the old one).
func (p *pending) CloseAtomicallyReplace() error {
	err := p.Sync()
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(p.Name(), p.perm)
	}
	if err == nil {
		err = os.Rename(p.Name(), p.path)
	}
	return err
}

// Cleanup removes the temporary file unless it was renamed into place.
func (p *pending) Cleanup() {
	p.Close()
	os.Remove(p.Name())
}
