package journal

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Shared is where the journals of a fleet are kept (--store redis://),
// in place of this process's rings, so any replica sees every request
// the fleet answered. It numbers the entries and holds the bounds, as
// Record does in memory. Its errors are the API's.
type Shared interface {
	// Append keeps entry data followed by resp (the response's body,
	// apart so that a store may keep a body many entries share once),
	// which keeps kept bytes, in session sid's journal within b, and
	// returns its sequence number. Both are the caller's again when it
	// returns.
	Append(ctx context.Context, sid string, data, resp []byte, kept int64, b Bounds) (int64, error)
	// Read returns the entries of session scope newer than since, in no
	// particular order, each's Data what Append took, data and resp
	// together.
	Read(ctx context.Context, scope string, since int64) ([]Stored, error)
	// Lost is the newest sequence number of an entry a journal in scope
	// lost to the bounds since it was last cleared.
	Lost(ctx context.Context, scope string) (int64, error)
	Clear(ctx context.Context, scope string) error
	Seq(ctx context.Context) (int64, error) // the last sequence number given
}

// Bounds are what the journals keep: entries a session, and bytes and
// entries all sessions together.
type Bounds struct {
	Size    int
	Bytes   int64
	Entries int
}

// Stored is an entry as Shared keeps it.
type Stored struct {
	Seq  int64
	Data []byte
}

// sharedPoll is how often a wait on a shared journal asks for the
// fleet's sequence number, to wake on an entry another replica appended.
const sharedPoll = 20 * time.Millisecond

// SetShared makes sh keep the journals, in place of this process's
// rings; a server sets it before it serves.
func (j *Journals) SetShared(sh Shared) { j.shared = sh }

// recordShared is Record on a shared journal: trimmed and measured as in
// memory, then appended redacted (no secret leaves the process). An
// entry Shared cannot take is lost. A request still running when its
// session was reset may keep its entry in the journal the reset cleared.
func (j *Journals) recordShared(k Key, e Record) error {
	e.Lent = false // encoded now: the buffer is not kept
	e.fit(j.bytes.Max())
	// Any Key but the zero one names a journal: the ring a Key named
	// here goes whenever the session is reloaded from the store (another
	// replica's write), which must not lose the entry of a request that
	// ran meanwhile.
	var err error
	if k.gen != 0 {
		buf := encodePool.Get().(*[]byte)
		encodeRecord(buf, &e, j.Redactor())
		b := Bounds{Size: j.size, Bytes: j.bytes.Max(), Entries: len(j.order.ring)}
		_, err = j.shared.Append(context.Background(), k.id, *buf, responseOf(&e), e.kept, b)
		putEncodeBuffer(buf)
	}
	j.mu.Lock()
	j.wakeWaiters()
	j.mu.Unlock()
	return err
}

// storedEntry is the JSON of a record as Shared keeps it, its bodies
// beside it (encodeRecord).
type storedEntry struct {
	Entry
	Header http.Header `json:"header_map,omitempty"`
	Kept   int64       `json:"kept"`
}

// encodePool keeps the buffers encodeRecord fills and writes an entry's
// JSON in, up to maxPooled bytes each.
var encodePool = sync.Pool{New: func() any { return new([]byte) }}

const maxPooled = 64 << 10

func putEncodeBuffer(buf *[]byte) {
	if cap(*buf) <= maxPooled {
		encodePool.Put(buf) // a large request's is not kept for the next
	}
}

// responseOf is the response of r in one slice.
func responseOf(r *Record) []byte {
	if len(r.More) == 0 {
		return r.Resp
	}
	b := slices.Clone(r.Resp)
	for _, c := range r.More {
		b = append(b, c...)
	}
	return b
}

// encodeRecord encodes r into buf, its credentials redacted by rd: the
// length of the entry's JSON (without its bodies), the JSON, the length
// of the request's body, the body. The response follows it (responseOf),
// bytes as they are: no escaping to pay.
func encodeRecord(buf *[]byte, r *Record, rd *Redactor) {
	se := storedEntry{Entry: r.Entry, Kept: r.kept}
	se.Query, se.Body, se.Response = rd.query(r.Query), "", ""
	if len(r.Header) > 0 {
		se.Header = make(http.Header, len(r.Header))
		for k, vs := range r.Header {
			if rd.Secret(k) {
				vs = redactValues(vs)
			}
			se.Header[k] = vs
		}
	}
	scratch := encodePool.Get().(*[]byte)
	*scratch = appendStored((*scratch)[:0], &se) // its length goes first
	b := (*buf)[:0]
	b = binary.AppendUvarint(b, uint64(len(*scratch)))
	b = append(b, *scratch...)
	b = binary.AppendUvarint(b, uint64(len(r.Body)))
	*buf = append(b, r.Body...)
	putEncodeBuffer(scratch)
}

// appendStored appends se as JSON, as encoding/json would write what
// decodeRecord reads of it. Field by field, it takes 560 ns and no
// allocation where encoding/json took 2.6 µs and 11.
// TestStoredEntryRoundTrip holds every field of Entry to it.
func appendStored(b []byte, se *storedEntry) []byte {
	str := func(b []byte, name, v string) []byte {
		b = append(b, name...)
		b, _ = jsontext.AppendQuote(b, v) // invalid UTF-8 as U+FFFD, as encoding/json writes it
		return b
	}
	strs := func(b []byte, name string, vs []string) []byte {
		b = append(b, name...)
		b = append(b, '[')
		for i, v := range vs {
			if i > 0 {
				b = append(b, ',')
			}
			b, _ = jsontext.AppendQuote(b, v)
		}
		return append(b, ']')
	}
	b = str(b, `{"request_id":`, se.RequestID)
	b = append(b, `,"time":"`...)
	b = se.Time.AppendFormat(b, time.RFC3339Nano)
	b = str(b, `","method":`, se.Method)
	b = str(b, `,"path":`, se.Path)
	b = str(b, `,"query":`, se.Query)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(se.Status), 10)
	b = append(b, `,"duration_ms":`...)
	d := se.DurationMS
	if math.IsNaN(d) || math.IsInf(d, 0) {
		d = 0
	}
	b = strconv.AppendFloat(b, d, 'g', -1, 64)
	b = str(b, `,"session":`, se.Session)
	b = str(b, `,"scenario":`, se.Scenario)
	if se.Fault != "" {
		b = str(b, `,"fault":`, se.Fault)
	}
	if se.Truncated {
		b = append(b, `,"truncated":true`...)
	}
	if len(se.Cut) > 0 {
		b = strs(b, `,"cut":`, se.Cut)
	}
	if len(se.Warnings) > 0 {
		b = strs(b, `,"warnings":`, se.Warnings)
	}
	if se.Proxied {
		b = append(b, `,"proxied":true`...)
	}
	if len(se.Header) > 0 {
		b = append(b, `,"header_map":{`...)
		first := true
		for k, vs := range se.Header {
			if !first {
				b = append(b, ',')
			}
			first = false
			b, _ = jsontext.AppendQuote(b, k)
			b = strs(append(b, ':'), "", vs)
		}
		b = append(b, '}')
	}
	b = append(b, `,"kept":`...)
	b = strconv.AppendInt(b, se.Kept, 10)
	return append(b, '}')
}

// decodeRecord is the record st keeps, nil if it is not one.
func decodeRecord(st Stored) *Record {
	b := st.Data
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil
	}
	var se storedEntry
	if json.Unmarshal(b[k:k+int(n)], &se) != nil {
		return nil
	}
	b = b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return nil
	}
	r := &Record{Entry: se.Entry, Header: se.Header, kept: se.Kept, copied: true}
	r.Seq, r.Body, r.Resp = st.Seq, string(b[k:k+int(n)]), b[k+int(n):]
	r.Response, r.Headers = "", nil
	return r
}

// gatherShared is gather on a shared journal.
func (j *Journals) gatherShared(scope string, p *Pattern, since int64, sc *scan) ([]*Record, error) {
	got, err := j.shared.Read(context.Background(), scope, since)
	if err != nil {
		return nil, err
	}
	out := make([]*Record, 0, len(got))
	for _, st := range got {
		if sc.charge(scanEntryCost); sc.over() {
			return nil, ErrScanTooLarge
		}
		if r := decodeRecord(st); r != nil && r.Seq > since && p.matchesCheap(r) {
			out = append(out, r)
		}
	}
	return out, nil
}
