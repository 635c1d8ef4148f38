package statedir

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/maphash"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/snapshot"
)

// A session's lists of reviews (its living shops' arrivals and changed
// reviews, its seeded reviews: some 17 MB for a shop at its bound) are
// kept in a log beside its head, ID.GEN.log: a series of splices, each a
// record with its length and checksum. A write appends the splices of
// what changed, syncs the log, then renames the new head into place. The
// head says how much of the log is its (log_end): records a write cut
// short lie past it and are dropped when read.

// headFormat names a session's head in a state folder.
const headFormat = "replymock-state-session/1"

// head is a session's file in sessions/.
type head struct {
	Format   string          `json:"format"`
	LogGen   uint64          `json:"log_gen,omitempty"` // its log's generation (logName); 0 for none
	LogEnd   int64           `json:"log_end,omitempty"` // how much of the log is the session's
	Snapshot json.RawMessage `json:"snapshot"`          // without the lists the log holds
}

// partsLog is what a session's log holds, as the folder last wrote it.
type partsLog struct {
	gen   uint64
	end   int64               // its length
	live  int64               // the bytes of the items it holds now
	parts map[string][]uint64 // part -> the hash of each item, in order
	// items are the lists as last written, kept so that an item still
	// the same bytes in memory (a Stack's JSON never changes, and these
	// keep it from being reused) is known unchanged without hashing.
	items map[string][]json.RawMessage
	held  int64 // their bytes, within the folder's maxHeld
}

// logName is the name of session file name's log of generation gen.
func logName(name string, gen uint64) string {
	return fmt.Sprintf("%s.%d.log", strings.TrimSuffix(name, ".json"), gen)
}

var partSeed = maphash.MakeSeed()

// The kinds of parts, each followed by its scenario's name.
const (
	partArrivals = "arrivals:"
	partChanged  = "changed:"
	partSeeded   = "seeded:"
)

// lists are where sc keeps its lists of reviews, by part name.
func lists(sc *snapshot.ScenarioState) map[string]*[]json.RawMessage {
	out := make(map[string]*[]json.RawMessage, 3)
	if sh := sc.Shop; sh != nil {
		out[partArrivals+sc.Name], out[partChanged+sc.Name] = &sh.Arrivals, &sh.Changed
	}
	if sd := sc.Seeded; sd != nil {
		out[partSeeded+sc.Name] = &sd.Reviews
	}
	return out
}

// takeParts moves snap's lists out into parts, by part name; an empty
// list is no part. Seeded reviews stay an empty list, as a seed of none
// is.
func takeParts(snap *snapshot.Snapshot) map[string][]json.RawMessage {
	parts := make(map[string][]json.RawMessage)
	for i := range snap.Scenarios {
		sc := &snap.Scenarios[i]
		for name, list := range lists(sc) {
			if len(*list) > 0 {
				parts[name] = *list
			}
			*list = nil
		}
		if sc.Seeded != nil {
			sc.Seeded.Reviews = []json.RawMessage{}
		}
	}
	return parts
}

// putParts puts parts back in snap's lists; a part whose scenario's
// state does not hold such a list is an error.
func putParts(snap *snapshot.Snapshot, parts map[string][]json.RawMessage) error {
	for i := range snap.Scenarios {
		for name, list := range lists(&snap.Scenarios[i]) {
			if items, ok := parts[name]; ok {
				*list = items
				delete(parts, name)
			}
		}
	}
	for name := range parts {
		return fmt.Errorf("the log holds %s, which the session's head has no place for", name)
	}
	return nil
}

// splice replaces Del items at At of part Part with Items.
type splice struct {
	Part  string
	At    int
	Del   int
	Items []json.RawMessage
}

// diffParts is the splices that make what the log old holds (nil for
// none) into parts, in order, and the hashes of parts.
func diffParts(old *partsLog, parts map[string][]json.RawMessage) ([]splice, map[string][]uint64) {
	var oldHashes map[string][]uint64
	var oldItems map[string][]json.RawMessage
	if old != nil {
		oldHashes, oldItems = old.parts, old.items
	}
	names := make(map[string]bool, len(parts))
	for name := range oldHashes {
		names[name] = true
	}
	for name := range parts {
		names[name] = true
	}
	hashes := make(map[string][]uint64, len(parts))
	var out []splice
	for _, name := range slices.Sorted(maps.Keys(names)) {
		items, was, wasH := parts[name], oldItems[name], oldHashes[name]
		h := make([]uint64, len(items))
		for i, it := range items {
			if i < len(was) && i < len(wasH) && sameBytes(it, was[i]) {
				h[i] = wasH[i] // the very bytes written last time
			} else {
				h[i] = maphash.Bytes(partSeed, it)
			}
		}
		if len(h) > 0 {
			hashes[name] = h
		}
		out = diffList(out, name, wasH, h, items)
	}
	return out, hashes
}

// sameBytes reports whether a and b are the same bytes in memory.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0]
}

// diffList appends to out the splices of part name that make the hashes
// old into the hashes h (of items): an item of old found later in h is
// an insertion before it, an item of h found later in old a deletion up
// to it, any other a change in place.
func diffList(out []splice, name string, old, h []uint64, items []json.RawMessage) []splice {
	var inOld, inNew map[uint64]int
	i, j := 0, 0
	for i < len(old) && j < len(h) {
		if old[i] == h[j] {
			i, j = i+1, j+1
			continue
		}
		if inOld == nil {
			inOld, inNew = positions(old), positions(h)
		}
		if q, ok := inOld[h[j]]; ok && q > i {
			out = append(out, splice{Part: name, At: j, Del: q - i})
			i = q
			continue
		}
		if r, ok := inNew[old[i]]; ok && r > j {
			out = append(out, splice{Part: name, At: j, Items: items[j:r]})
			j = r
			continue
		}
		if n := len(out) - 1; n >= 0 && out[n].Part == name && out[n].At+len(out[n].Items) == j && out[n].Del == len(out[n].Items) {
			out[n].Del++ // the change in place before it goes on
			out[n].Items = items[out[n].At : j+1]
		} else {
			out = append(out, splice{Part: name, At: j, Del: 1, Items: items[j : j+1]})
		}
		i, j = i+1, j+1
	}
	if i < len(old) {
		out = append(out, splice{Part: name, At: j, Del: len(old) - i})
	}
	if j < len(h) {
		out = append(out, splice{Part: name, At: j, Items: items[j:]})
	}
	return out
}

// positions maps each hash of h to its first position.
func positions(h []uint64) map[uint64]int {
	m := make(map[uint64]int, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		m[h[i]] = i
	}
	return m
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// appendRecord appends s as a record: its payload's length and CRC-32C
// (4 bytes each, little-endian), then the payload: the part, where,
// how many go and the items, each a uvarint length and its bytes.
func appendRecord(b []byte, s splice) []byte {
	start := len(b)
	b = append(b, 0, 0, 0, 0, 0, 0, 0, 0)
	b = binary.AppendUvarint(b, uint64(len(s.Part)))
	b = append(b, s.Part...)
	b = binary.AppendUvarint(b, uint64(s.At))
	b = binary.AppendUvarint(b, uint64(s.Del))
	b = binary.AppendUvarint(b, uint64(len(s.Items)))
	for _, it := range s.Items {
		b = binary.AppendUvarint(b, uint64(len(it)))
		b = append(b, it...)
	}
	payload := b[start+8:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// readLog replays the first end bytes of the log at path: the lists it
// holds, by part. A record within end that does not read is an error:
// those bytes were synced before the head that names them was written.
func readLog(path string, end int64) (map[string][]json.RawMessage, error) {
	if end > maxLog {
		return nil, fmt.Errorf("the log's %d bytes are more than a log may hold (%d MiB)", end, maxLog>>20)
	}
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, end), 1<<16)
	parts := make(map[string][]json.RawMessage)
	var live int64
	for read := int64(0); read < end; {
		var hdr [8]byte
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return nil, fmt.Errorf("a record of the log does not read at byte %d: %v", read, err)
		}
		n := int64(binary.LittleEndian.Uint32(hdr[:]))
		if n > maxFile || read+8+n > end {
			return nil, fmt.Errorf("a record of the log does not read at byte %d: %d bytes long", read, n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil || crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(hdr[4:]) {
			return nil, fmt.Errorf("a record of the log does not read at byte %d: its checksum fails", read)
		}
		s, err := parseRecord(payload)
		if err == nil {
			err = apply(parts, s, &live)
		}
		if err != nil {
			return nil, fmt.Errorf("a record of the log does not read at byte %d: %v", read, err)
		}
		read += 8 + n
	}
	return parts, nil
}

// maxLog bounds a log read back: what it holds is within maxFile, and
// it is written anew past twice that and a megabyte.
const maxLog = 3*maxFile + 1<<20

// parseRecord reads a record's payload.
func parseRecord(p []byte) (splice, error) {
	var s splice
	next := func() (int, error) {
		v, n := binary.Uvarint(p)
		if n <= 0 || v > uint64(len(p)+maxFile) {
			return 0, errors.New("a number does not read")
		}
		p = p[n:]
		return int(v), nil
	}
	bytesOf := func() ([]byte, error) {
		n, err := next()
		if err != nil || n > len(p) {
			return nil, errors.New("cut short")
		}
		b := p[:n:n]
		p = p[n:]
		return b, nil
	}
	part, err := bytesOf()
	if err != nil {
		return s, err
	}
	s.Part = string(part)
	if s.At, err = next(); err == nil {
		s.Del, err = next()
	}
	count, err2 := next()
	if err = errors.Join(err, err2); err != nil {
		return s, err
	}
	for range count {
		it, err := bytesOf()
		if err != nil {
			return s, err
		}
		s.Items = append(s.Items, it)
	}
	if len(p) > 0 {
		return s, errors.New("bytes after its items")
	}
	return s, nil
}

// apply makes s in parts, counting the bytes of their items in live.
func apply(parts map[string][]json.RawMessage, s splice, live *int64) error {
	list := parts[s.Part]
	if s.At > len(list) || s.Del > len(list)-s.At {
		return fmt.Errorf("a splice of %s at %d of %d items, %d going", s.Part, s.At, len(list), s.Del)
	}
	for _, it := range list[s.At : s.At+s.Del] {
		*live -= int64(len(it))
	}
	for _, it := range s.Items {
		*live += int64(len(it))
	}
	if *live > maxFile {
		return fmt.Errorf("its items are more than a snapshot may hold (%d MiB)", maxFile>>20)
	}
	list = slices.Replace(list, s.At, s.At+s.Del, s.Items...)
	if len(list) == 0 {
		delete(parts, s.Part)
	} else {
		parts[s.Part] = list
	}
	return nil
}

// logOf is what the log holds once read back: parts as a partsLog.
func logOf(gen uint64, end int64, parts map[string][]json.RawMessage) *partsLog {
	l := &partsLog{gen: gen, end: end, live: liveOf(parts), parts: make(map[string][]uint64, len(parts))}
	for name, items := range parts {
		h := make([]uint64, len(items))
		for i, it := range items {
			h[i] = maphash.Bytes(partSeed, it)
		}
		l.parts[name] = h
	}
	return l
}

// appendLog appends records at the log's end (cutting what a write
// cut short left past it) and syncs it.
func appendLog(path string, end int64, records []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(end)
	if err == nil {
		_, err = f.WriteAt(records, end)
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
