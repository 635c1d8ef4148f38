package cli

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"sync"
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
		b = appendRFC3339Millis(b, r.Time.Round(0))
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
// RuneError (U+FFFD itself too), a space or not printable.
func needsQuoting(s string) bool {
	if len(s) == 0 {
		return true
	}
	for i := 0; i < len(s); {
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
