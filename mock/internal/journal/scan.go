package journal

import (
	"encoding/json"
	"fmt"
	"net/http"
	"unsafe"

	"github.com/replymock/replymock/mock/internal/wire"
)

// MaxScanBytes bounds the bytes one listing, verification or look of a
// long poll reads from the journal. Past it, the call fails with
// ErrScanTooLarge rather than give a partial count. Without it, 16
// verifications with deep body paths over a full journal took 100 s of
// CPU; a CI session's verification reads a few MiB.
const MaxScanBytes = 64 << 20

// What looking costs besides the bytes read.
const (
	scanEntryCost = 64
	scanPartCost  = 16
)

// ErrScanTooLarge refuses a listing, verification or wait whose pattern
// would read more than MaxScanBytes of the journal.
var ErrScanTooLarge = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable,
	Message: fmt.Sprintf("the pattern would read more than %d MiB of journal entries in one call: narrow it with session, since, method or path, "+
		"or fewer query, header and body parts", MaxScanBytes>>20)}

// scan counts the work of one call over the journal against
// MaxScanBytes. It also remembers whether the current entry's body is
// JSON, so several body parts check it once. A nil scan counts nothing.
type scan struct {
	left  int64
	body  string // the body whose validity is known
	valid bool
	known bool
}

func newScan() *scan { return &scan{left: MaxScanBytes} }

// charge counts n bytes read.
func (sc *scan) charge(n int) {
	if sc != nil {
		sc.left -= int64(n)
	}
}

// over reports whether the work so far is past MaxScanBytes.
func (sc *scan) over() bool { return sc != nil && sc.left < 0 }

// validJSON reports whether body is JSON, reading it once per entry
// however many body parts ask.
func (sc *scan) validJSON(body string) bool {
	if sc == nil {
		return json.Valid(asBytes(body))
	}
	if !sc.known || !sameString(sc.body, body) {
		sc.charge(len(body))
		sc.body, sc.valid, sc.known = body, json.Valid(asBytes(body)), true
	}
	return sc.valid
}

// sameString reports whether a and b are the same bytes in memory (the
// same entry's body), not only equal.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

// asBytes is s as bytes, without a copy: for reading only.
func asBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
