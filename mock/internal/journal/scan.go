package journal

import (
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

// ErrScanTooLarge refuses a call past MaxScanBytes.
var ErrScanTooLarge = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable,
	Message: fmt.Sprintf("the pattern would read more than %d MiB of journal entries in one call: narrow it with session, since, method or path, "+
		"or fewer query, header and body parts", MaxScanBytes>>20)}

// scan counts the work of one call over the journal against
// MaxScanBytes; nil counts nothing.
type scan struct {
	left int64
}

func newScan() *scan { return &scan{left: MaxScanBytes} }

// charge counts n bytes read.
func (sc *scan) charge(n int) {
	if sc != nil {
		sc.left -= int64(n)
	}
}

func (sc *scan) over() bool { return sc != nil && sc.left < 0 }

// asBytes is s as bytes, without a copy: for reading only.
func asBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
