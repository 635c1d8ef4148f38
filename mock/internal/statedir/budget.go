package statedir

import (
	"os"
	"path/filepath"
	"slices"
	"time"
)

// DefaultMaxBytes is what a state folder's sessions/ and rejected/ hold
// together at most (--max-state-disk): half a megabyte for each of the
// sessions kept by default (1,000), a session's shop of its own some 18
// hours of a demo's arrivals. A session that only reads a living shop
// writes no file, and most others a few kilobytes.
const DefaultMaxBytes = 512 << 20

// SetMax makes max bytes what sessions/ and rejected/ hold together at
// most; 0 or less is DefaultMaxBytes. server.json is not counted: the
// server's own state always fits. Call it before Restore.
func (d *Dir) SetMax(max int64) {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	d.mu.Lock()
	d.max = max
	d.mu.Unlock()
}

// fitLocked makes room for need more bytes in the folder by removing
// the files set aside, the oldest first, each with a log line. Other
// sessions' files stay: each holds writes answered with success. When
// need would not fit with all those gone, nothing goes. It reports
// whether need fits. The caller holds d.mu.
func (d *Dir) fitLocked(need int64) bool {
	if d.used+need <= d.max {
		return true
	}
	stays := d.used
	for _, a := range d.rejected {
		stays -= a.size
	}
	if stays+need > d.max {
		return false
	}
	for d.used+need > d.max && len(d.rejected) > 0 {
		old := d.rejected[0]
		d.rejected = d.rejected[1:]
		if err := os.Remove(filepath.Join(d.dir, rejectedDir, old.name)); err != nil && !os.IsNotExist(err) {
			d.log.Warn("state: a file set aside could not be removed", "file", filepath.Join(rejectedDir, old.name), "err", err)
		}
		d.used -= old.size
		d.log.Warn("state: a file set aside removed, the oldest, to keep the folder within --max-state-disk",
			"file", filepath.Join(rejectedDir, old.name), "bytes", old.size, "used_bytes", d.used, "max_bytes", d.max)
	}
	return true
}

// entry is a file of a folder, as filesByAge lists it.
type entry struct {
	name string
	size int64
	mod  time.Time
}

// filesByAge lists dir's entries, the least recently modified first,
// with the sizes of the regular files.
func filesByAge(dir string) ([]entry, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := make([]entry, 0, len(des))
	for _, de := range des {
		fi, err := de.Info()
		if err != nil {
			continue
		}
		e := entry{name: de.Name(), mod: fi.ModTime()}
		if fi.Mode().IsRegular() {
			e.size = fi.Size()
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b entry) int { return a.mod.Compare(b.mod) })
	return out, nil
}
