package cli

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// tricky are strings slog.TextHandler quotes, or writes bare, for reasons
// of its own: each is written as a message, a key and a value.
var tricky = []string{
	"", " ", "plain", "two words", `a"quote`, `back\slash`, "a=b", "=", "line\nbreak", "tab\there", "cr\r",
	"nul\x00", "bell\a", "del\x7f", "esc\x1b[0m", "\xff", "bad\xc3(utf8", "\xe2\x82", "é", "Отзыв покупателя",
	"日本語", "emoji😀", "nbsp\u00a0", "em\u2003space", "ideographic\u3000space", "zero\u200bwidth", "bidi\u202e",
	"replacement\ufffd", "private\ue000", "unassigned\U000e0080", "line\u2028sep", "soft\u00adhyphen",
	"/api/v1/feedbacks", "rm-1000000", "rate limit, latency", "null", "{}", "[1 2]", "a.b", "%41", "+", "-",
}

// Records that the handler writes itself come out as slog.TextHandler
// writes them, byte for byte: tricky strings as messages, keys and
// values; numbers at their edges; times in other zones, before the
// epoch, at millisecond boundaries and with a monotonic reading; every
// level.
func TestTextHandlerWritesAsSlog(t *testing.T) {
	var recs []slog.Record
	at := time.Date(2026, 11, 24, 23, 7, 43, 999_999_999, time.UTC)
	times := []time.Time{at, time.Now(), at.In(time.FixedZone("MSK", 3*3600)), at.In(time.FixedZone("odd", -(9*3600 + 30*60 + 15))),
		time.Date(1969, 12, 31, 23, 59, 59, 500_000_000, time.UTC), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 100_000, time.Local), time.Date(12345, 6, 7, 8, 9, 10, 11, time.UTC), {}}
	for i, s := range tricky {
		r := slog.NewRecord(times[i%len(times)], slog.LevelInfo, s, 0)
		r.AddAttrs(slog.String("v", s), slog.String(s, "v"), slog.String(s, s))
		recs = append(recs, r)
	}
	for _, tm := range times {
		r := slog.NewRecord(tm, slog.LevelWarn, "times", 0)
		r.AddAttrs(slog.Time("at", tm), slog.Time("zero", time.Time{}))
		recs = append(recs, r)
	}
	for _, l := range []slog.Level{slog.LevelDebug - 4, slog.LevelDebug, slog.LevelDebug + 1, slog.LevelInfo, slog.LevelInfo + 2,
		slog.LevelWarn, slog.LevelWarn - 1, slog.LevelError, slog.LevelError + 8, math.MinInt32, math.MaxInt32} {
		recs = append(recs, slog.NewRecord(at, l, "level", 0))
	}
	nums := slog.NewRecord(at, slog.LevelInfo, "numbers", 0)
	nums.AddAttrs(slog.Int("zero", 0), slog.Int("neg", -1), slog.Int64("min", math.MinInt64), slog.Int64("max", math.MaxInt64),
		slog.Uint64("umax", math.MaxUint64), slog.Float64("f", 0.1), slog.Float64("ms", 0.012), slog.Float64("big", 1e21),
		slog.Float64("small", 1e-7), slog.Float64("negzero", math.Copysign(0, -1)), slog.Float64("nan", math.NaN()),
		slog.Float64("inf", math.Inf(1)), slog.Float64("-inf", math.Inf(-1)), slog.Float64("maxf", math.MaxFloat64),
		slog.Bool("t", true), slog.Bool("f", false), slog.Duration("d", 1500*time.Microsecond), slog.Duration("d0", 0),
		slog.Duration("dneg", -time.Hour))
	recs = append(recs, nums)
	// Many attributes: more than a record keeps inline.
	many := slog.NewRecord(at, slog.LevelInfo, "many", 0)
	for i := range 20 {
		many.AddAttrs(slog.Int(strings.Repeat("k", i), i))
	}
	recs = append(recs, many)
	// The request line, as the server makes it.
	req := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	req.AddAttrs(slog.String("method", "GET"), slog.String("path", "/api/v1/feedbacks"), slog.Int("status", 200),
		slog.Float64("duration_ms", 0.118), slog.String("session", "default"), slog.String("scenario", "default"),
		slog.String("request_id", "rm-1"), slog.String("fault", ""))
	recs = append(recs, req)
	// Random strings of bytes, printable and not.
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", " ", "=", `"`, `\`, "\n", "\x00", "\x7f", "\x80", "\xff", "é", "\u00a0", "\u2028", "😀", "\ufffd", "Я"}
	for range 500 {
		var sb strings.Builder
		for range rng.IntN(24) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		r := slog.NewRecord(at, slog.LevelInfo, sb.String(), 0)
		r.AddAttrs(slog.String(sb.String(), sb.String()))
		recs = append(recs, r)
	}
	// Every single byte and every rune of the first planes, as a value.
	for c := range 256 {
		r := slog.NewRecord(at, slog.LevelInfo, "byte", 0)
		r.AddAttrs(slog.String("v", string([]byte{byte(c)})))
		recs = append(recs, r)
	}
	for c := rune(0x80); c < 0x30000; c += 7 {
		r := slog.NewRecord(at, slog.LevelInfo, "rune", 0)
		r.AddAttrs(slog.String("v", string(c)))
		recs = append(recs, r)
	}
	for _, r := range recs {
		var want, got bytes.Buffer
		slog.NewTextHandler(&want, nil).Handle(context.Background(), r)
		b, ok := appendTextRecord(nil, r)
		if !ok {
			t.Fatalf("record %q was passed on; want it written", want.String())
		}
		newTextHandler(&got, slog.LevelInfo).Handle(context.Background(), r)
		if string(b) != want.String() || got.String() != want.String() {
			t.Fatalf("wrote %q (appended %q), slog.TextHandler %q", got.String(), b, want.String())
		}
	}
	if _, ok := newLogger("text", slog.LevelInfo, &bytes.Buffer{}).Handler().(*textHandler); !ok {
		t.Error("--log-format text does not log through textHandler")
	}
}

type valuer struct{ v string }

func (v valuer) LogValue() slog.Value { return slog.StringValue(v.v) }

type marshaler struct{}

func (marshaler) MarshalText() ([]byte, error) { return []byte("marshalled text"), nil }

// What the handler does not write itself, slog.TextHandler writes: groups
// (empty too), LogValuers, any values (errors, maps, byte slices, text
// marshalers, nil), empty attributes; loggers With attributes and
// groups; at every level the logger is set to.
func TestTextHandlerPassesTheRestToSlog(t *testing.T) {
	at := time.Date(2026, 11, 24, 23, 7, 43, 123_456_789, time.UTC)
	var nilErr error
	attrs := [][]slog.Attr{
		{slog.Group("g", slog.String("a", "x y"), slog.Int("n", 1))},
		{slog.Group("empty")},
		{slog.Group("", slog.String("inline", "v"))},
		{slog.Any("valuer", valuer{"from a LogValuer"})},
		{slog.Any("err", errors.New("it failed: \"quoted\""))},
		{slog.Any("map", map[string]int{"a": 1})},
		{slog.Any("bytes", []byte("raw\nbytes"))},
		{slog.Any("text", marshaler{})},
		{slog.Any("nil", nil), slog.Any("nilerr", nilErr)},
		{slog.Attr{}},
		{slog.String("before", "kept"), slog.Any("after", struct{ A int }{1})},
	}
	for _, as := range attrs {
		r := slog.NewRecord(at, slog.LevelWarn, "rest", 0)
		r.AddAttrs(as...)
		var want, got bytes.Buffer
		slog.NewTextHandler(&want, nil).Handle(context.Background(), r)
		if _, ok := appendTextRecord(nil, r); ok && r.NumAttrs() > 0 { // AddAttrs drops an empty group
			t.Errorf("%v: written by the handler; want it passed to slog", as)
		}
		if err := newTextHandler(&got, slog.LevelInfo).Handle(context.Background(), r); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%v: wrote %q, slog.TextHandler %q", as, got.String(), want.String())
		}
	}
	// Loggers made With attributes or a group, and the level.
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		var want, got bytes.Buffer
		opts := &slog.HandlerOptions{Level: level}
		for _, h := range []struct {
			h   slog.Handler
			out *bytes.Buffer
		}{{slog.NewTextHandler(&want, opts), &want}, {newTextHandler(&got, level), &got}} {
			log := slog.New(h.h)
			log.Debug("debug", "n", 1)
			log.Info("info", "s", "two words")
			log.With("with", "x=1").WithGroup("grp").With("in", true).Warn("warn", "k", "v", "d", time.Second)
			log.WithGroup("g").Error("error", slog.Group("sub", "deep", 2.5))
			log.WithGroup("unused").Info("no attrs")
		}
		// Their times differ: compare the lines without them.
		strip := func(s string) string {
			var out []string
			for _, l := range strings.Split(s, "\n") {
				if i := strings.Index(l, " level="); i >= 0 {
					l = l[i:]
				}
				out = append(out, l)
			}
			return strings.Join(out, "\n")
		}
		if strip(got.String()) != strip(want.String()) || strings.Count(got.String(), "\n") != strings.Count(want.String(), "\n") {
			t.Errorf("level %v: wrote\n%s\nslog.TextHandler\n%s", level, got.String(), want.String())
		}
	}
}

// Lines logged at once from many goroutines, some written by the handler
// and some by slog's, come out whole, each once.
func TestTextHandlerLinesWhole(t *testing.T) {
	var out bytes.Buffer
	h := newTextHandler(&out, slog.LevelInfo)
	log := slog.New(h)
	grouped := log.WithGroup("g")
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				if i%2 == 0 {
					log.Info("fast", "g", g, "i", i, "pad", strings.Repeat("x", 100))
				} else {
					grouped.Info("slow", "g", g, "i", i, "any", []int{g, i})
				}
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != goroutines*each {
		t.Fatalf("%d lines, want %d", len(lines), goroutines*each)
	}
	seen := make(map[string]bool)
	for _, l := range lines {
		i := strings.Index(l, " level=")
		if i < 0 || !strings.HasPrefix(l, "time=") || seen[l[i:]] {
			t.Fatalf("line %q is broken or repeated", l)
		}
		seen[l[i:]] = true
		if !strings.HasSuffix(l, " pad="+strings.Repeat("x", 100)) && !strings.HasSuffix(l, "]\"") {
			t.Fatalf("line %q is not whole", l)
		}
	}
}

// The request line's record, as the server logs it.
func requestRecord() slog.Record {
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
	r.AddAttrs(slog.String("method", "GET"), slog.String("path", "/api/v1/feedbacks"), slog.Int("status", 200),
		slog.Float64("duration_ms", 0.118), slog.String("session", "default"), slog.String("scenario", "default"),
		slog.String("request_id", "rm-1000000"), slog.String("fault", ""))
	return r
}

// BenchmarkRequestLine measures a request's line, from the record to the
// log's buffer, through slog.TextHandler and through textHandler.
func BenchmarkRequestLine(b *testing.B) {
	r := requestRecord()
	ctx := context.Background()
	for _, c := range []struct {
		name string
		h    func(w *logWriter) slog.Handler
	}{
		{"slog", func(w *logWriter) slog.Handler {
			return slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelInfo})
		}},
		{"textHandler", func(w *logWriter) slog.Handler { return newTextHandler(w, slog.LevelInfo) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := newLogWriter(discard{}, time.Hour, logBufferSize)
			h := c.h(w)
			b.ReportAllocs()
			for b.Loop() {
				h.Handle(ctx, r)
			}
		})
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// needsQuoting, eight bytes at a time, says what slog's rule says, byte
// by byte: for every byte at every place of strings of up to 24 bytes,
// among bytes that need no quoting, and for a rune beyond ASCII too.
func TestNeedsQuoting(t *testing.T) {
	slogs := func(s string) bool { // slog's rule as slog writes it
		if s == "" {
			return true
		}
		for i := 0; i < len(s); {
			b := s[i]
			if b < utf8.RuneSelf {
				if b != '\\' && (b == ' ' || b == '=' || b < ' ' || b == '"') {
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
	for n := 1; n <= 24; n++ {
		for at := range n {
			for c := range 256 {
				b := []byte(strings.Repeat("a", n))
				b[at] = byte(c)
				if s := string(b); needsQuoting(s) != slogs(s) {
					t.Fatalf("needsQuoting(%q) = %v, slog's rule %v", s, needsQuoting(s), slogs(s))
				}
			}
			for _, r := range []string{"é", "\u00a0", "\ufffd", "😀", "\u2028"} {
				s := strings.Repeat("a", at) + r + strings.Repeat("a", n-at)
				if needsQuoting(s) != slogs(s) {
					t.Fatalf("needsQuoting(%q) = %v, slog's rule %v", s, needsQuoting(s), slogs(s))
				}
			}
		}
	}
}

// A record's time, written from the second kept, is written as slog
// writes it: times of one second, of the next, back again, in other
// zones and the same instant in each, at the edges of milliseconds and
// seconds, and years appendRFC3339Millis writes otherwise.
func TestLineTime(t *testing.T) {
	base := time.Date(2026, 11, 24, 23, 59, 59, 0, time.UTC)
	zones := []*time.Location{time.UTC, time.Local, time.FixedZone("MSK", 3*3600), time.FixedZone("odd", -(9*3600 + 30*60))}
	var times []time.Time
	for _, ns := range []int{0, 999_999, 1_000_000, 1_500_000, 123_456_789, 999_000_000, 999_999_999, 1_000_000_000, 1_001_000_000, 61_000_000_000, 86_400_000_000_000} {
		for _, z := range zones {
			times = append(times, base.Add(time.Duration(ns)).In(z))
		}
		times = append(times, base.Add(time.Duration(ns))) // the first zone again
	}
	times = append(times, time.Now(), time.Now().Add(time.Millisecond), time.Date(-1, 1, 1, 0, 0, 0, 5e6, time.UTC),
		time.Date(12345, 1, 1, 0, 0, 0, 5e6, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 999e6, time.UTC), base)
	for _, tm := range times {
		want := appendRFC3339Millis(nil, tm.Round(0))
		if got := appendLineTime(nil, tm); string(got) != string(want) {
			t.Errorf("%v: wrote %s, want %s", tm, got, want)
		}
		if got := appendLineTime([]byte("prefix "), tm); string(got) != "prefix "+string(want) {
			t.Errorf("%v after a prefix: wrote %s, want %s", tm, got, want)
		}
	}
}
