package record

import (
	"io/fs"
	"os"
	"path/filepath"
)

// pending is a file being written whole, as renameio writes one on Unix:
// into a temporary file beside it (its name starts with a dot, as
// renameio's), which commit syncs and renames over it (MoveFileEx
// replaces the old file); abort removes it.
type pending struct {
	f    *os.File
	path string
	perm fs.FileMode
	done bool
}

// newPending starts writing the file at path whole, with perm.
func newPending(path string, perm fs.FileMode) (*pending, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &pending{f: f, path: path, perm: perm}, nil
}

func (p *pending) Write(b []byte) (int, error) { return p.f.Write(b) }

func (p *pending) commit() error {
	tmp := p.f.Name()
	err := p.f.Sync()
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, p.perm)
	}
	if err == nil {
		err = os.Rename(tmp, p.path)
	}
	p.done = true
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

func (p *pending) abort() {
	if !p.done {
		p.f.Close()
		os.Remove(p.f.Name())
		p.done = true
	}
}
