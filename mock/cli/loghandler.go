package cli

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// textHandler writes records as slog.TextHandler does, byte for byte,
// for less: a request's line, a record of strings, numbers, booleans and
// times with no groups, is appended into a pooled buffer with strconv.
// What it does not write itself (a record with a value of another kind:
// a group, a LogValuer, any other value; a logger made With attributes or
// a group) it passes to the slog.TextHandler it holds, which writes to
// the same writer. Every record is one Write, and the two write under
// one lock, so that lines never interleave.
type textHandler struct {
	level slog.Leveler
	out   *lockedWriter
	std   slog.Handler // slog.NewTextHandler on out, with the same options
}

func newTextHandler(w io.Writer, level slog.Leveler) *textHandler {
	out := &lockedWriter{w: w}
	return &textHandler{level: level, out: out, std: slog.NewTextHandler(out, &slog.HandlerOptions{Level: level})}
}

func (h *textHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= h.level.Level()
}

// WithAttrs and WithGroup give slog.TextHandler's handlers: a logger made
// this way logs no request line.
func (h *textHandler) WithAttrs(as []slog.Attr) slog.Handler { return h.std.WithAttrs(as) }
func (h *textHandler) WithGroup(name string) slog.Handler    { return h.std.WithGroup(name) }

func (h *textHandler) Handle(ctx context.Context, r slog.Record) error {
	bp := linePool.Get().(*[]byte)
	defer func() {
		if cap(*bp) <= maxPooledLine {
			linePool.Put(bp)
		}
	}()
	b, ok := appendTextRecord((*bp)[:0], r)
	*bp = b
	if !ok {
		return h.std.Handle(ctx, r)
	}
	_, err := h.out.Write(b)
	return err
}

// linePool keeps the buffers lines are appended in; one grown past
// maxPooledLine (a line with a long value) is let go instead.
var linePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledLine = 16 << 10

// appendTextRecord appends r as slog.TextHandler without options writes
// it, and reports whether it could: false for a record with an attribute
// whose value is not a string, a number, a boolean, a duration or a time.
func appendTextRecord(b []byte, r slog.Record) ([]byte, bool) {
	if !r.Time.IsZero() {
		b = append(b, "time="...)
		b = appendLineTime(b, r.Time)
		b = append(b, ' ')
	}
	b = append(b, "level="...)
	b = appendTextString(b, r.Level.String())
	b = append(b, " msg="...)
	b = appendTextString(b, r.Message)
	ok := true
	r.Attrs(func(a slog.Attr) bool {
		v := a.Value
		switch v.Kind() {
		case slog.KindString:
			b = appendTextAttrKey(b, a.Key)
			b = appendTextString(b, v.String())
		case slog.KindInt64:
			b = appendTextAttrKey(b, a.Key)
			b = strconv.AppendInt(b, v.Int64(), 10)
		case slog.KindUint64:
			b = appendTextAttrKey(b, a.Key)
			b = strconv.AppendUint(b, v.Uint64(), 10)
		case slog.KindFloat64:
			b = appendTextAttrKey(b, a.Key)
			b = strconv.AppendFloat(b, v.Float64(), 'g', -1, 64)
		case slog.KindBool:
			b = appendTextAttrKey(b, a.Key)
			b = strconv.AppendBool(b, v.Bool())
		case slog.KindDuration:
			b = appendTextAttrKey(b, a.Key)
			b = append(b, v.Duration().String()...)
		case slog.KindTime:
			b = appendTextAttrKey(b, a.Key)
			b = appendRFC3339Millis(b, v.Time())
		default: // a group, a LogValuer, any other value, an empty attribute
			ok = false
		}
		return ok
	})
	return append(b, '\n'), ok
}

func appendTextAttrKey(b []byte, key string) []byte {
	b = append(b, ' ')
	b = appendTextString(b, key)
	return append(b, '=')
}

// appendTextString appends s as slog.TextHandler writes a string: quoted
// with strconv.Quote if it is empty or has a space, a character that is
// not printable or not valid UTF-8, '"' or '='.
func appendTextString(b []byte, s string) []byte {
	if needsQuoting(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

// needsQuoting is slog's rule: the ASCII control characters, space, '"'
// and '=' (but not DEL), and beyond ASCII anything utf8 decodes as
// RuneError (U+FFFD itself too), a space or not printable. Eight bytes at
// a time (the last eight for the rest; a short string's bytes, some
// twice, with 'a's), then byte by byte from the first eight that may
// need it.
func needsQuoting(s string) bool {
	switch {
	case len(s) == 0:
		return true
	case len(s) < 4: // its first, middle and last bytes, and 'a's
		x := uint64(s[0]) | uint64(s[len(s)/2])<<8 | uint64(s[len(s)-1])<<16 | 0x0101010101010101*'a'&^0xffffff
		return mayNeedQuoting(x) && needsQuotingFrom(s, 0)
	case len(s) < 8: // its first four bytes and its last four
		return mayNeedQuoting(uint64(word4(s))|uint64(word4(s[len(s)-4:]))<<32) && needsQuotingFrom(s, 0)
	}
	for i := 0; i < len(s); i += 8 {
		if mayNeedQuoting(word(s[min(i, len(s)-8):])) {
			return needsQuotingFrom(s, i) // the bytes before i are ASCII: i starts a character
		}
	}
	return false
}

// needsQuotingFrom applies slog's rule to s from byte i on, byte by byte.
func needsQuotingFrom(s string, i int) bool {
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if quoteASCII[c] {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return true
		}
		i += size
	}
	return false
}

// word4 is the first 4 bytes of s, little-endian.
func word4(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// word is the first 8 bytes of s, little-endian.
func word(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// mayNeedQuoting reports whether a byte of x is below 0x21 (a control
// character or space), '"', '=' or beyond ASCII: with none beyond ASCII,
// (x - 0x01..*n) &^ x & 0x80.. is not 0 if and only if a byte of x is
// below n (n <= 0x80), and a byte of x is c if and only if one of
// x ^ c.. is below 1.
func mayNeedQuoting(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	e := x ^ (ones * '=')
	return ((x-ones*0x21)&^x|(q-ones)&^q|(e-ones)&^e|x)&highs != 0
}

var quoteASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c < ' ' || c == ' ' || c == '"' || c == '='
	}
	return t
}()

// appendRFC3339Millis is slog's time format: RFC 3339 with exactly three
// digits of milliseconds, truncated.
func appendRFC3339Millis(b []byte, t time.Time) []byte {
	// As slog does: RFC3339Nano is the fast layout, but trims trailing
	// zeros, so a tenth of a millisecond added keeps four digits, and the
	// fourth goes.
	const prefixLen = len("2006-01-02T15:04:05.000")
	n := len(b)
	t = t.Truncate(time.Millisecond).Add(time.Millisecond / 10)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b[:n+prefixLen], b[n+prefixLen+1:]...)
}

// appendLineTime appends a record's time as appendRFC3339Millis does:
// within a second, the lines of one clock and zone repeat all but the
// milliseconds, which lineTime keeps.
func appendLineTime(b []byte, t time.Time) []byte {
	sec := t.Unix()
	c := lineTime.Load()
	if c == nil || c.sec != sec || c.loc != t.Location() {
		n := len(b)
		b = appendRFC3339Millis(b, t.Round(0))
		if len(b)-n <= maxSecondText && b[n+19] == '.' { // a year of four digits
			c = &secondText{sec: sec, loc: t.Location(), n: len(b) - n}
			copy(c.text[:], b[n:])
			lineTime.Store(c)
		}
		return b
	}
	b = append(b, c.text[:c.n]...)
	ms := t.Nanosecond() / 1e6
	b[len(b)-c.n+20], b[len(b)-c.n+21], b[len(b)-c.n+22] = byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10)
	return b
}

// secondText is a time as appendRFC3339Millis writes it,
// "2006-01-02T15:04:05.000Z07:00", for every time of its second in its
// zone but for the milliseconds.
type secondText struct {
	sec  int64
	loc  *time.Location
	n    int
	text [maxSecondText]byte
}

const maxSecondText = 40

var lineTime atomic.Pointer[secondText]

// lockedWriter makes each Write whole, one at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
