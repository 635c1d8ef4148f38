package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file being written whole, as renameio writes one on Unix:
// into a temporary file beside it, whose name starts with a dot.
type File struct {
	*os.File
	path string
	perm fs.FileMode
}

// New starts writing the file at path whole, with perm.
func New(path string, perm fs.FileMode) (*File, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path, perm: perm}, nil
}

// CloseAtomicallyReplace syncs the temporary file and renames it over
// the file (MoveFileEx replaces the old one).
func (p *File) CloseAtomicallyReplace() error {
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
func (p *File) Cleanup() error {
	p.Close()
	if err := os.Remove(p.Name()); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

// SyncDir does nothing: Windows syncs no folder (a folder cannot be
// opened for FlushFileBuffers through os.Open); its renames
// (MoveFileEx) are written through.
func SyncDir(string) error { return nil }
