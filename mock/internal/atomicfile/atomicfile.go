// Package atomicfile writes a file whole or not at all.
//
// A file is written into a temporary file beside it, synced, then
// renamed over it, so that a crash leaves the old file or the new one,
// never a part. On Unix, renameio does it; renameio has no such API on
// Windows, which has its own File (atomicfile_windows.go).
package atomicfile

import "io/fs"

// WriteFile writes data to the file at path whole, with perm.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := New(path, perm)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}
