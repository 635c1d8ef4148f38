package journal

import (
	"bytes"
	"net/http"
	"testing"
)

// BenchmarkRecordPage measures what the journal costs a GET of the
// default page: a lent response of 21 KB, the same as the session's
// newest entry's, and a client's usual headers, into a full ring.
func BenchmarkRecordPage(b *testing.B) {
	j := New(DefaultSize, 128<<20, 100_000)
	k := j.Open("default")
	page := bytes.Repeat([]byte(`{"id":"abc","text":"Отзыв"},`), 21_000/30)
	h := http.Header{"User-Agent": {"Go-http-client/1.1"}, "Accept": {"application/json"}, "Accept-Encoding": {"gzip"},
		"Authorization": {"Bearer token"}, "X-Mock-Session": {"default"}, "X-Request-Id": {"client-1"}}
	for range DefaultSize {
		j.Record(k, Record{Entry: Entry{Method: "GET", Path: "/api/v1/feedbacks", Session: "default"}, Header: h, Resp: page, Lent: true})
	}
	b.ReportAllocs()
	for b.Loop() {
		j.Record(k, Record{Entry: Entry{RequestID: "rm-1000000", Method: "GET", Path: "/api/v1/feedbacks", Session: "default",
			Scenario: "default", Status: 200}, Header: h, Resp: page, Lent: true})
	}
}
