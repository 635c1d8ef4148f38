package journal

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// What an entry costs beyond the bytes of its strings and bodies: the
// record, its slots in the rings, and the header map's structure.
const (
	recordCost      = int64(unsafe.Sizeof(Record{})+unsafe.Sizeof(orderItem{})) + 128
	headerNameCost  = 64
	headerValueCost = 16
	chunkCost       = 24 // a slice header for each further chunk of the response
)

// Record is an entry as kept. It holds the request's header map and the
// bodies by reference, so recording costs a request no copies. A record
// never changes once kept, so a listing reads it without a lock.
type Record struct {
	Entry
	Header http.Header // as it came; listed redacted
	Resp   []byte      // the response body's first chunk as written
	More   [][]byte
	Lent   bool // Resp is a pooled buffer its writer takes back: Record keeps a copy

	kept   int64 // what the record keeps alive, measured once by Record
	copied bool  // method, path and query are copies, not parts of the request line
}

// measure is what the record keeps alive, in bytes. Method, path and
// query keep the whole request line alive, where the path may be
// escaped (%XX for a byte), so the path counts three times unless it
// is a copy.
func (r *Record) measure() int64 { return r.measureWith(headerBytes(r.Header)) }

// measureWith is measure for headers that keep header bytes.
func (r *Record) measureWith(header int64) int64 {
	path := 3 * int64(len(r.Path))
	if r.copied {
		path = int64(len(r.Path))
	}
	n := recordCost + path + int64(len(r.Method)+len(r.Query)+len(r.RequestID)+len(r.Session)+
		len(r.Scenario)+len(r.Fault)+len(r.Body)) + int64(cap(r.Resp))
	for _, c := range r.More {
		n += chunkCost + int64(cap(c))
	}
	for _, c := range r.Cut {
		n += 16 + int64(len(c))
	}
	for _, w := range r.Warnings {
		n += 16 + int64(len(w))
	}
	return n + header
}

// headerBytes is what header h keeps.
func headerBytes(h http.Header) int64 {
	var n int64
	for k, vs := range h {
		n += fieldBytes(k, vs)
	}
	return n
}

func fieldBytes(name string, values []string) int64 {
	n := headerNameCost + int64(len(name)) + headerValueCost*int64(len(values))
	for _, v := range values {
		n += int64(len(v))
	}
	return n
}

// fit cuts a request's oversized parts to MaxHead, noting each in Cut,
// measures what the record keeps, and strips a record still larger than
// budget.
func (r *Record) fit(budget int64) {
	line := []struct {
		name string
		s    *string
	}{{"method", &r.Method}, {"path", &r.Path}, {"query", &r.Query}}
	for _, p := range line {
		if len(*p.s) > MaxHead {
			r.copied = true
		}
	}
	if r.copied {
		// A part kept whole would keep the whole line alive: copy them all.
		for _, p := range line {
			*p.s = strings.Clone(r.cutString(p.name, *p.s))
		}
	}
	if len(r.Fault) > MaxHead {
		r.Fault = strings.Clone(r.cutString("fault", r.Fault))
	}
	header := headerBytes(r.Header)
	if header > MaxHead {
		r.trimHeaders()
		header = headerBytes(r.Header)
	}
	r.kept = r.measureWith(header)
	if r.kept > budget {
		r.strip(budget)
	}
}

// cutString returns s cut to MaxHead on a character boundary, noting the
// cut.
func (r *Record) cutString(part, s string) string {
	if len(s) <= MaxHead {
		return s
	}
	n := MaxHead
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	r.Cut = append(r.Cut, fmt.Sprintf("%s: kept %d of %d bytes", part, n, len(s)))
	r.Truncated = true
	return s[:n]
}

// trimHeaders keeps, in the order of their names, the headers that fit
// in MaxHead together.
func (r *Record) trimHeaders() {
	kept := make(http.Header)
	var used, total int64
	var dropped []string
	for _, k := range slices.Sorted(maps.Keys(r.Header)) {
		n := fieldBytes(k, r.Header[k])
		total += n
		if used+n > MaxHead {
			dropped = append(dropped, k)
			continue
		}
		// The values are strings of their own, but their slice may share
		// an array with every other header's: copy it.
		kept[k] = slices.Clone(r.Header[k])
		used += n
	}
	const listed = 5
	more := ""
	if len(dropped) > listed {
		more = fmt.Sprintf(" and %d more", len(dropped)-listed)
		dropped = dropped[:listed]
	}
	r.Cut = append(r.Cut, fmt.Sprintf("headers: kept %d of %d bytes; dropped %s%s", used, total, strings.Join(dropped, ", "), more))
	r.Truncated = true
	r.Header = kept
}

// strip leaves an entry only what names the request: for a budget too
// small to hold it whole.
func (r *Record) strip(budget int64) {
	r.Cut = []string{fmt.Sprintf("all but method and path: the entry (%d bytes) is larger than the journal's whole budget (%d bytes)", r.kept, budget)}
	r.Method, r.Path, r.copied = strings.Clone(r.Method), strings.Clone(r.Path), true
	r.Query, r.Fault, r.Body, r.Header, r.Resp, r.More, r.Truncated = "", "", "", nil, nil, nil, true
	r.Warnings = nil
	r.kept = r.measure()
}

// entry is the record as listed, redacted by rd; the caller's own.
func (r *Record) entry(rd *Redactor) Entry {
	e := r.Entry
	e.Headers = rd.headers(r.Header)
	e.Query = rd.query(r.Query)
	e.Cut = slices.Clone(r.Cut)
	e.Warnings = slices.Clone(r.Warnings)
	e.Response = string(responseOf(r))
	return e
}
