package scenario

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// notRegularError is why the Loader does not open a file.
type notRegularError struct{ why string }

func (e *notRegularError) Error() string { return e.why }

// checkFile returns nil if name in fsys is a regular file, symbolic
// links followed, and otherwise why it must not be read. It opens
// nothing: opening a named pipe waits for a writer, which would hang
// start-up or a reload, and a device can be endless.
func checkFile(fsys fs.FS, name string) error {
	mode, err := fileMode(fsys, name)
	if err != nil {
		return err
	}
	if why := notRegular(mode); why != "" {
		return &notRegularError{why}
	}
	return nil
}

// fileMode is the type of name, symbolic links followed, found without
// opening it. A file system without Stat is read through its folders'
// listings, where a symbolic link cannot be followed.
func fileMode(fsys fs.FS, name string) (fs.FileMode, error) {
	if _, ok := fsys.(fs.StatFS); ok {
		fi, err := fs.Stat(fsys, name)
		if err == nil {
			return fi.Mode().Type(), nil
		}
		if li, lerr := fs.Lstat(fsys, name); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the name is ours already; the cause is what tells
			}
			return 0, &notRegularError{fmt.Sprintf("a symbolic link that cannot be followed inside the folder (%v)", err)}
		}
		return 0, err
	}
	dir, mode := ".", fs.ModeDir
	for elem := range strings.SplitSeq(name, "/") {
		if !mode.IsDir() {
			return 0, &notRegularError{fmt.Sprintf("%s is %s, not a folder", dir, kindOf(mode))}
		}
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return 0, err
		}
		i, found := slices.BinarySearchFunc(entries, elem, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		if !found {
			return 0, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
		}
		mode, dir = entries[i].Type(), path.Join(dir, elem)
	}
	return mode, nil
}

// notRegular says why a file of type mode is not read: "a named pipe,
// not a regular file"; "" for a regular file.
func notRegular(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return ""
	case mode&fs.ModeSymlink != 0: // only from a file system without Stat
		return "a symbolic link, not followed: this file system cannot tell what it leads to without opening it"
	}
	return kindOf(mode) + ", not a regular file"
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// readChecked reads a file checkFile accepted, checking it again once
// open, in case it was replaced in between.
func readChecked(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if why := notRegular(fi.Mode().Type()); why != "" {
		return nil, &notRegularError{why}
	}
	return readBounded(f, fi.Size())
}

// MaxFileBytes bounds a scenario or fixture file. A decoded file takes a
// few times its size in memory, so a bigger one is refused unread.
const MaxFileBytes = 32 << 20

// readBounded reads a file of size bytes (as its Stat said), refusing
// one over MaxFileBytes, or that grew past it meanwhile.
func readBounded(r io.Reader, size int64) ([]byte, error) {
	tooBig := fmt.Errorf("larger than %d MiB, the most a scenario or fixture file may be", MaxFileBytes>>20)
	if size > MaxFileBytes {
		return nil, tooBig
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		return nil, tooBig
	}
	return data, err
}

// ReadFile reads the scenario or fixture file at path as the server does.
func ReadFile(path string) ([]byte, error) {
	data, err := readChecked(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = path // the path as given, not the name in its folder
		return nil, pe
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}
