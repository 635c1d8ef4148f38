package journal

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"
	"time"
)

// TestStoredEntryRoundTrip: what appendStored writes of an entry is
// valid JSON that decodes to what encoding/json's own encoding of it
// decodes to, every field of Entry set (a field added to Entry fails
// here until appendStored writes it, or decodeRecord sets it again),
// with text that needs escaping, invalid UTF-8 among it.
func TestStoredEntryRoundTrip(t *testing.T) {
	odd := "кириллица \"quoted\" \\ <b>&</b> \u2028 \t\n\x01 bad:\xff\xfe end"
	full := storedEntry{
		Entry: Entry{Seq: 7, RequestID: "rm-1 " + odd, Time: time.Date(2026, 11, 28, 4, 5, 6, 789012345, time.FixedZone("MSK", 3*3600)),
			Method: "PATCH", Path: "/api/v1/settings/ai" + odd, Query: "a=1&b=" + odd, Headers: map[string]string{"X-One": "1"},
			Body: "{}", Status: 503, DurationMS: 0.000123456789, Session: "s." + odd, Scenario: "demo", Fault: "error 503 " + odd,
			Response: "{...}", Truncated: true, Cut: []string{"query: kept 1 of 2 bytes", odd}, Warnings: []string{"w1", odd}, Proxied: true},
		Header: http.Header{"Authorization": {"Bearer [redacted]"}, "X-Odd" + odd: {odd, ""}, "Accept": {"*/*"}},
		Kept:   123456,
	}
	v := reflect.ValueOf(full.Entry)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the test sets no value of Entry.%s: set one, and have appendStored write it", v.Type().Field(i).Name)
		}
	}
	for _, se := range []storedEntry{full, {Entry: Entry{Time: full.Time, DurationMS: 1e21}}, {Entry: Entry{Time: full.Time, Status: 200, DurationMS: 12.5}, Kept: 1}} {
		got := appendStored(nil, &se)
		if !json.Valid(got) {
			t.Fatalf("not valid JSON: %s", got)
		}
		ref, err := json.Marshal(&se)
		if err != nil {
			t.Fatal(err)
		}
		var a, b storedEntry
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%v: %s", err, got)
		}
		if err := json.Unmarshal(ref, &b); err != nil {
			t.Fatal(err)
		}
		// What decodeRecord sets again, whatever the entry says.
		b.Seq, b.Headers, b.Body, b.Response = 0, nil, "", ""
		if !a.Time.Equal(b.Time) {
			t.Errorf("time %v, encoding/json's %v", a.Time, b.Time)
		}
		a.Time, b.Time = time.Time{}, time.Time{}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("decoded\n%+v\nencoding/json's\n%+v\nfrom %s", a, b, got)
		}
	}
}

// BenchmarkAppendStored is an entry of the default page's request, as
// a load test sends it, written for the shared journal.
func BenchmarkAppendStored(b *testing.B) {
	se := storedEntry{Entry: Entry{RequestID: "rm-123456", Time: time.Now(), Method: "GET", Path: "/api/v1/feedbacks",
		Query: "isAnswered=false&take=10&skip=0", Status: 200, DurationMS: 0.123, Session: "default", Scenario: "default",
		Warnings: []string{"isAnswered is the upstream's name: did you mean `answered`? It is ignored", "take is the upstream's name", "skip is the upstream's name"}},
		Header: http.Header{"User-Agent": {"wrk"}, "Accept": {"*/*"}, "Host": {"127.0.0.1:8080"}}, Kept: 20000}
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = appendStored(buf[:0], &se)
	}
}
