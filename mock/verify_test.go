package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

// verified is the data of GET /__mock/verify, or a 409's error.details.
type verified struct {
	Matched    int             `json:"matched"`
	Want       string          `json:"want"`
	Seqs       []int64         `json:"seqs"`
	Incomplete bool            `json:"incomplete"`
	NearMisses []mock.NearMiss `json:"near_misses"`
}

// verifyFailed decodes a 409 verification_failed answer strictly.
func verifyFailed(t *testing.T, what string, r response) (string, verified) {
	t.Helper()
	if r.status != http.StatusConflict {
		t.Fatalf("%s: status = %d, want 409; body %s", what, r.status, r.body)
	}
	var env struct {
		Success *bool           `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   struct {
			Code    string   `json:"code"`
			Message string   `json:"message"`
			Details verified `json:"details"`
		} `json:"error"`
	}
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("%s: %v; body %s", what, err, r.body)
	}
	if env.Success == nil || *env.Success || string(env.Data) != "null" || env.Error.Code != mock.CodeVerificationFailed {
		t.Errorf("%s: envelope %s, want success false, data null, code verification_failed", what, r.body)
	}
	return env.Error.Message, env.Error.Details
}

// journalFixture records, in session v of a fresh server:
//
//	1 GET /api/v1/feedbacks?answered=0&rating=5  X-Client: web, Authorization: Bearer tok-s3cret
//	2 PATCH /api/v1/settings/ai  a valid body (tone formal for rating 5)
//	3 GET /api/v1/feedbacks?search=a+b&rating=1&rating=2  (a 400)
//	4 PATCH /api/v1/settings/ai  a body the API refuses, with numbers, booleans, null, escapes
//	5 PATCH /api/v1/settings/ai  malformed JSON
//
// and one request in session w.
func journalFixture(t *testing.T) *mock.Server {
	t.Helper()
	h := newServer(t, mock.Options{})
	v := func(method, target, body string, header ...string) {
		t.Helper()
		header = append(header, "X-Mock-Session", "v")
		if body != "" {
			header = append(header, "Content-Type", "application/json")
		}
		do(t, h, method, target, body, header...)
	}
	v("GET", "/api/v1/feedbacks?answered=0&rating=5", "", "X-Client", "web", "Authorization", "Bearer tok-s3cret")
	v("PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"tone":"formal"}],"question":{"reply_mode":"auto", "tone": "calm"}}`)
	v("GET", "/api/v1/feedbacks?search=a+b&rating=1&rating=2", "")
	v("PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"tone":"fo\u0072mal"},{"rating":4}],"n":1.50,"flag":true,"none":null,"list":[1, 2],"s":"1"}`)
	v("PATCH", "/api/v1/settings/ai", `{"feedback":`)
	get(t, h, "/api/v1/feedbacks?answered=0", "X-Mock-Session", "w")
	return h
}

// Each part of a pattern, alone and together: which entries it matches.
func TestVerifyPatternParts(t *testing.T) {
	h := journalFixture(t)
	for _, tc := range []struct {
		pattern string
		want    int
	}{
		{"", 5},
		{"method=GET", 2},
		{"method=get", 2}, // methods in any case
		{"method=PATCH", 3},
		{"method=DELETE", 0},
		{"path=/api/v1/feedbacks", 2},
		{"path=/api/v1/*", 5},
		{"path=/api/v1/feed*", 2},
		{"path=/api/v1/feed", 0}, // exact unless it ends in *
		{"path=*", 5},
		{"query.answered=0", 1},
		{"query.answered=false", 0}, // values as sent
		{"query.rating=5", 1},
		{"query.rating=2", 1}, // one of a repeated parameter's values
		{"query.rating=1", 1},
		{"query.search=a+b", 1}, // decoded: a space
		{"query.search=a%20b", 1},
		{"query.answered=", 0},
		{"query.nope=1", 0},
		{"header.X-Client=web", 1},
		{"header.x-client=web", 1}, // header names in any case
		{"header.X-CLIENT=web", 1},
		{"header.X-Client=Web", 0}, // values exactly
		{"header.X-Other=web", 0},
		{"header.Authorization=Bearer", 1}, // a secret by its scheme
		{"header.authorization=bearer", 1},
		{"header.Authorization=Bearer+[redacted]", 1},
		{"header.Authorization=Basic", 0},
		{"header.Authorization=[redacted]", 0},
		{"body.feedback.0.tone=formal", 2}, // an escape in the JSON string is decoded
		{"body.feedback.0.rating=5", 2},    // numbers by their JSON text
		{"body.feedback.1.rating=4", 1},
		{"body.feedback.1.tone=formal", 0}, // no such field
		{"body.feedback.2.rating=4", 0},    // no such index
		{"body.feedback.x.rating=5", 0},    // arrays take an index
		{"body.feedback.-1.rating=4", 0},
		{"body.feedback.0.tone.x=formal", 0}, // into a string
		{"body.question.reply_mode=auto", 1},
		{`body.question={"reply_mode":"auto","tone":"calm"}`, 1}, // objects compacted
		{"body.list=[1,2]", 1},
		{"body.n=1.50", 1}, // numbers as written
		{"body.n=1.5", 0},
		{"body.flag=true", 1},
		{"body.none=null", 1},
		{"body.s=1", 1}, // a string by its text
		{"body.nope=1", 0},
		{"method=PATCH&path=/api/v1/settings/ai&body.feedback.0.tone=formal", 2},
		{"method=GET&query.answered=0&header.x-client=web", 1},
		{"method=GET&query.answered=0&header.x-client=app", 0},
		{"since=2", 3},
		{"since=2&method=GET", 1},
		{"since=99", 0},
	} {
		target := "/__mock/verify?session=v&min=0&" + tc.pattern
		var v verified
		decodeOK(t, "GET "+target, admin(t, h, "GET", target, ""), &v)
		if v.Matched != tc.want || len(v.Seqs) != tc.want {
			t.Errorf("GET %s: matched %d (seqs %v), want %d", target, v.Matched, v.Seqs, tc.want)
		}
		// The journal listing takes the same pattern and finds the same.
		var list struct {
			Count    int                 `json:"count"`
			Requests []mock.JournalEntry `json:"requests"`
		}
		target = "/__mock/requests?session=v&" + tc.pattern
		decodeOK(t, "GET "+target, admin(t, h, "GET", target, ""), &list)
		for i, e := range list.Requests {
			if i >= len(v.Seqs) || e.Seq != v.Seqs[i] {
				t.Errorf("GET %s: entry %d has seq %d; verify found %v", target, i, e.Seq, v.Seqs)
			}
		}
		if list.Count != tc.want {
			t.Errorf("GET %s: count %d, want %d", target, list.Count, tc.want)
		}
	}
	// The session scopes the search; without it, every session.
	for target, want := range map[string]int{
		"/__mock/verify?min=0&query.answered=0":            2,
		"/__mock/verify?min=0&query.answered=0&session=w":  1,
		"/__mock/verify?min=0&query.answered=0&session=*":  2,
		"/__mock/verify?min=0&query.answered=0&session=no": 0,
	} {
		var v verified
		decodeOK(t, "GET "+target, admin(t, h, "GET", target, ""), &v)
		if v.Matched != want {
			t.Errorf("GET %s: matched %d, want %d", target, v.Matched, want)
		}
	}
	var v verified
	decodeOK(t, "X-Mock-Session", admin(t, h, "GET", "/__mock/verify?min=0&query.answered=0", "", "X-Mock-Session", "w"), &v)
	if v.Matched != 1 {
		t.Errorf("with X-Mock-Session: w: matched %d, want 1", v.Matched)
	}
	// The Go API is the same matcher.
	got := h.Requests(mock.JournalFilter{Session: "v", Method: "patch", Header: map[string]string{"content-type": "application/json"},
		Body: map[string]string{"feedback.0.tone": "formal"}})
	if len(got) != 2 || got[0].Seq != 2 || got[1].Seq != 4 {
		t.Errorf("Requests with a body pattern: %d entries, want seqs 2 and 4", len(got))
	}
	if got := h.Requests(mock.JournalFilter{Body: map[string]string{"a..b": "1"}}); got != nil {
		t.Errorf("Requests with an invalid pattern: %d entries, want none", len(got))
	}
}

// count is exact; min and max bound; none wants at least one. Near
// misses come only when fewer matched than wanted.
func TestVerifyCounts(t *testing.T) {
	h := journalFixture(t) // 3 PATCHes in session v, none in w
	for _, tc := range []struct {
		query    string
		ok       bool
		wanted   string
		nearMiss bool
	}{
		{"", true, "at least 1", false},
		{"count=3", true, "exactly 3", false},
		{"count=2", false, "exactly 2", false},
		{"count=4", false, "exactly 4", true},
		{"count=0", false, "exactly 0", false},
		{"min=3", true, "at least 3", false},
		{"min=4", false, "at least 4", true},
		{"min=0", true, "any number", false},
		{"max=3", true, "at most 3", false},
		{"max=2", false, "at most 2", false},
		{"min=1&max=3", true, "from 1 to 3", false},
		{"min=3&max=3", true, "exactly 3", false},
		{"min=4&max=9", false, "from 4 to 9", true},
		{"min=0&max=0", false, "exactly 0", false},
		{"session=w", false, "at least 1", true},
		{"session=w&count=0", true, "exactly 0", false},
		{"session=w&max=0", true, "exactly 0", false},
		{"session=w&max=1", true, "at most 1", false},
		{"session=w&min=0", true, "any number", false},
	} {
		target := "/__mock/verify?method=PATCH&" + tc.query
		if !strings.Contains(tc.query, "session") {
			target += "&session=v"
		}
		r := admin(t, h, "GET", target, "")
		var v verified
		if tc.ok {
			decodeOK(t, "GET "+target, r, &v)
		} else {
			_, v = verifyFailed(t, "GET "+target, r)
		}
		if v.Want != tc.wanted {
			t.Errorf("GET %s: want %q, want %q", target, v.Want, tc.wanted)
		}
		if tc.nearMiss != (v.NearMisses != nil) {
			t.Errorf("GET %s: near misses %v with %d matched; want them: %v", target, v.NearMisses, v.Matched, tc.nearMiss)
		}
	}
}

// Every bad pattern is a 400 invalid_parameter naming the parameter.
func TestVerifyBadPatterns(t *testing.T) {
	h := journalFixture(t)
	for _, tc := range []struct{ query, field string }{
		{"foo=1", "foo"},
		{"limit=1", "limit"}, // the listing's, not verify's
		{"count=abc", "count"},
		{"count=-1", "count"},
		{"count=1.5", "count"},
		{"count=", "count"},
		{"count=1000000001", "count"},
		{"min=x", "min"},
		{"max=", "max"},
		{"max=+1", "max"},
		{"count=1&min=1", "count"},
		{"count=1&max=1", "count"},
		{"min=3&max=2", "min"},
		{"wait=31s", "wait"},
		{"wait=31", "wait"},
		{"wait=abc", "wait"},
		{"wait=-1s", "wait"},
		{"wait=", "wait"},
		{"since=-1", "since"},
		{"since=x", "since"},
		{"method=G%20T", "method"},
		{"path=feedbacks", "path"},
		{"session=bad%20id", "session"},
		{"query.=x", "query."},
		{"header.=x", "header."},
		{"header.bad%20name=x", "header.bad name"},
		{"header.X-A=1&header.x-a=1", "header.x-a"},
		{"header.Authorization=Bearer%20tok-s3cret", "header.Authorization"},
		{"header.Authorization=tok-s3cret", "header.Authorization"}, // a bare token, the upstream's form: a guess at the secret
		{"header.X-Mock-Admin-Token=s3cret", "header.X-Mock-Admin-Token"},
		{"header.cookie=sid%3Ds3cret", "header.cookie"},
		{"body.=x", "body."},
		{"body.a..b=x", "body.a..b"},
		{"body.a.=x", "body.a."},
		{"method=GET&method=GET", "method"},
		{"query.a=1&query.a=2", "query.a"},
		{"path=%zz", "path"},
		{"%zz=1", "%zz"},
		{"=1", "=1"},
	} {
		target := "/__mock/verify?" + tc.query
		checkError(t, "GET "+target, admin(t, h, "GET", target, ""), 400, mock.CodeInvalidParameter, tc.field)
	}
	for _, tc := range []struct{ query, field string }{
		{"count=1", "count"},
		{"foo=1", "foo"},
		{"limit=0", "limit"},
		{"wait=1m", "wait"},
		{"body.a..b=1", "body.a..b"},
		{"since=1&since=2", "since"},
	} {
		target := "/__mock/requests?" + tc.query
		checkError(t, "GET "+target, admin(t, h, "GET", target, ""), 400, mock.CodeInvalidParameter, tc.field)
	}
	// A pattern's size is bounded: 32 query, header and body parts, 32
	// steps in a body path.
	parts, deep := "", "body"
	for i := range 33 {
		parts += fmt.Sprintf("&query.q%02d=1", i)
		deep += ".a"
	}
	checkError(t, "verify with 33 parts", admin(t, h, "GET", "/__mock/verify?"+parts[1:], ""), 400, mock.CodeInvalidParameter, "query.q32")
	checkError(t, "verify with a body path of 33 steps", admin(t, h, "GET", "/__mock/verify?"+deep+"=1", ""), 400, mock.CodeInvalidParameter, deep)
	if r := admin(t, h, "GET", "/__mock/verify?min=0&"+strings.TrimSuffix(parts, "&query.q32=1")[1:], ""); r.status != 200 {
		t.Errorf("verify with 32 parts: %d %s", r.status, r.body)
	}
	for _, f := range []mock.JournalFilter{
		{Path: "x"}, {Method: "A B"}, {Query: map[string]string{"": "1"}}, {Header: map[string]string{"Cookie": "a=b"}},
		{Header: map[string]string{"X-A": "1", "x-a": "1"}}, {Body: map[string]string{"": "1"}},
	} {
		if _, err := h.Verify(f, mock.AtLeast(1)); err == nil {
			t.Errorf("Verify(%+v): no error", f)
		}
	}
}

// A failed verification names, for the nearest entries, each part that
// differs: fewest differing parts first, then newest.
func TestVerifyNearMisses(t *testing.T) {
	h := newServer(t, mock.Options{})
	s := func(method, target, body string) {
		t.Helper()
		do(t, h, method, target, body, "X-Mock-Session", "nm", "Content-Type", "application/json")
	}
	s("GET", "/api/v1/feedbacks?answered=0", "")                                       // 1: method, path, body
	s("PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"tone":"friendly"}]}`) // 2: body
	s("PATCH", "/api/v1/settings/aix", `{"feedback":[{"rating":5,"tone":"formal"}]}`)  // 3: path, body (not read: a 404)
	s("GET", "/api/v1/feedbacks?answered=1", "")                                       // 4: method, path, body
	s("PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":4,"tone":"friendly"}]}`) // 5: body
	s("GET", "/api/v1/settings/ai", "")                                                // 6: method, body

	msg, v := verifyFailed(t, "verify", admin(t, h, "GET",
		"/__mock/verify?session=nm&method=PATCH&path=/api/v1/settings/ai&body.feedback.0.tone=formal", ""))
	if v.Matched != 0 || len(v.Seqs) != 0 || v.Want != "at least 1" || v.Incomplete {
		t.Errorf("verification %+v, want 0 matched of at least 1", v)
	}
	str := func(s string) *string { return &s }
	want := []mock.NearMiss{
		{Seq: 5, Session: "nm", Method: "PATCH", Path: "/api/v1/settings/ai", Differs: map[string]mock.Difference{
			"body.feedback.0.tone": {Want: "formal", Got: str("friendly")}}},
		{Seq: 2, Session: "nm", Method: "PATCH", Path: "/api/v1/settings/ai", Differs: map[string]mock.Difference{
			"body.feedback.0.tone": {Want: "formal", Got: str("friendly")}}},
		{Seq: 6, Session: "nm", Method: "GET", Path: "/api/v1/settings/ai", Differs: map[string]mock.Difference{
			"method":               {Want: "PATCH", Got: str("GET")},
			"body.feedback.0.tone": {Want: "formal", Got: nil}}},
	}
	got, _ := json.Marshal(v.NearMisses)
	wantJSON, _ := json.Marshal(want)
	if string(got) != string(wantJSON) {
		t.Errorf("near misses:\n%s\nwant\n%s", got, wantJSON)
	}
	if !strings.Contains(msg, `matched 0, want at least 1; nearest: seq 5 PATCH /api/v1/settings/ai: body.feedback.0.tone: want "formal", got "friendly"`) {
		t.Errorf("message %q does not word the nearest miss", msg)
	}

	// A query value as sent, and the path.
	_, v = verifyFailed(t, "verify", admin(t, h, "GET", "/__mock/verify?session=nm&method=GET&path=/api/v1/feedbacks&query.answered=false", ""))
	if len(v.NearMisses) != 3 {
		t.Fatalf("near misses %+v, want 3", v.NearMisses)
	}
	if nm := v.NearMisses[0]; nm.Seq != 4 || len(nm.Differs) != 1 || *nm.Differs["query.answered"].Got != "1" {
		t.Errorf("nearest miss %+v, want seq 4 with query.answered got 1", nm)
	}
	if nm := v.NearMisses[1]; nm.Seq != 1 || len(nm.Differs) != 1 || *nm.Differs["query.answered"].Got != "0" {
		t.Errorf("second miss %+v, want seq 1 with query.answered got 0", nm)
	}
	nm := v.NearMisses[2]
	if d := nm.Differs["query.answered"]; nm.Seq != 6 || d.Got != nil || len(nm.Differs) != 2 || *nm.Differs["path"].Got != "/api/v1/settings/ai" {
		t.Errorf("third miss %+v, want seq 6: the path, and no query.answered (got null)", nm)
	}

	// Too many: the seqs say which; no near misses.
	_, v = verifyFailed(t, "verify", admin(t, h, "GET", "/__mock/verify?session=nm&method=PATCH&max=1", ""))
	if v.Matched != 3 || fmt.Sprint(v.Seqs) != "[2 3 5]" || v.NearMisses != nil {
		t.Errorf("too many: %+v, want seqs 2, 3, 5 and no near misses", v)
	}
	// Nothing in the session: no near misses, an empty list.
	r := admin(t, h, "GET", "/__mock/verify?session=none", "")
	if _, v = verifyFailed(t, "verify", r); v.NearMisses == nil || len(v.NearMisses) != 0 || !strings.Contains(string(r.body), `"near_misses":[]`) {
		t.Errorf("an empty session: %s, want near_misses []", r.body)
	}
}

// A secret is never matched, nor shown, by its value.
func TestVerifySecrets(t *testing.T) {
	h := newServer(t, mock.Options{})
	get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "sec", "Authorization", "Basic dXNlcjpzM2NyZXQ=", "Cookie", "sid=s3cret")
	r := admin(t, h, "GET", "/__mock/verify?session=sec&header.Authorization=Bearer&header.cookie=[redacted]", "")
	_, v := verifyFailed(t, "verify", r)
	if d := v.NearMisses[0].Differs; len(d) != 1 || *d["header.Authorization"].Got != "Basic [redacted]" {
		t.Errorf("differs %+v, want Authorization's scheme only", d)
	}
	for _, secret := range []string{"dXNlcjpzM2NyZXQ=", "s3cret"} {
		if strings.Contains(string(r.body), secret) {
			t.Errorf("the answer gives back %q: %s", secret, r.body)
		}
	}
	var ok verified
	decodeOK(t, "verify", admin(t, h, "GET", "/__mock/verify?session=sec&header.Authorization=basic&header.Cookie=[redacted]", ""), &ok)
	checkError(t, "by value", admin(t, h, "GET", "/__mock/verify?session=sec&header.Authorization=Basic+dXNlcjpzM2NyZXQ%3D", ""),
		400, mock.CodeInvalidParameter, "header.Authorization")
}

// A verification lists the newest MaxVerifySeqs matching seqs, and says
// when the journal lost entries it might have counted.
func TestVerifyBoundsAndIncomplete(t *testing.T) {
	h := newServer(t, mock.Options{JournalSize: 150})
	for range mock.MaxVerifySeqs + 20 {
		get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "many")
	}
	var v verified
	decodeOK(t, "verify", admin(t, h, "GET", "/__mock/verify?session=many", ""), &v)
	if v.Matched != mock.MaxVerifySeqs+20 || len(v.Seqs) != mock.MaxVerifySeqs || v.Seqs[0] != 21 || v.Incomplete {
		t.Errorf("%d matched, %d seqs from %d, incomplete %v; want 120, the newest 100 from 21, complete", v.Matched, len(v.Seqs), v.Seqs[0], v.Incomplete)
	}

	h = newServer(t, mock.Options{JournalSize: 3})
	for range 5 {
		get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "small") // seqs 1..5; 1 and 2 fall out
	}
	get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "other")
	for query, want := range map[string]bool{
		"session=small":         true,
		"session=small&since=1": true,
		"session=small&since=2": false,
		"session=other":         false,
		"":                      true, // every session
	} {
		decodeOK(t, "verify", admin(t, h, "GET", "/__mock/verify?min=0&"+query, ""), &v)
		if v.Incomplete != want {
			t.Errorf("verify?%s: incomplete %v, want %v", query, v.Incomplete, want)
		}
	}
	admin(t, h, "DELETE", "/__mock/requests?session=small", "")
	if decodeOK(t, "verify", admin(t, h, "GET", "/__mock/verify?min=0&session=small", ""), &v); v.Incomplete {
		t.Error("incomplete after clearing the journal: a clear is not a loss")
	}

	// Entries another session's pushed out of the global bound count too.
	h = newServer(t, mock.Options{JournalEntries: 4})
	get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "a")
	for range 4 {
		get(t, h, "/api/v1/feedbacks", "X-Mock-Session", "b")
	}
	_, v = verifyFailed(t, "verify", admin(t, h, "GET", "/__mock/verify?session=a", ""))
	if !v.Incomplete || !strings.Contains(string(admin(t, h, "GET", "/__mock/verify?session=a", "").body), "lost") {
		t.Errorf("session a lost its entry to b's: incomplete %v", v.Incomplete)
	}
}

// One verification, listing or wait reads at most journal.MaxScanBytes
// of the journal: past it, a 503 that says how to narrow the pattern, not
// 100 s of CPU; narrowed, it is answered.
func TestVerifyBoundedWork(t *testing.T) {
	h := newServer(t, mock.Options{})
	// 31 keys a pattern matches, and padding to the most an entry keeps:
	// each of 32 body parts reads the whole body.
	var b strings.Builder
	b.WriteString("{")
	pattern := "session=wide"
	for i := range 31 {
		fmt.Fprintf(&b, `"k%d":"x",`, i)
		pattern += fmt.Sprintf("&body.k%d=x", i)
	}
	pattern += "&body.z=x" // not there: checked last
	b.WriteString(`"pad":"` + strings.Repeat("x", mock.MaxJournalBody-b.Len()-10) + `"}`)
	const n = 70 // 70 entries read 33 times: past 64 MiB
	for range n {
		r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", b.String(), "Content-Type", "application/json", "X-Mock-Session", "wide")
		if r.status != 400 {
			t.Fatalf("PATCH: %d", r.status)
		}
	}
	if e := h.Requests(mock.JournalFilter{Session: "wide", Limit: 1}); len(e) != 1 || e[0].Truncated {
		t.Fatalf("the body was not kept whole: %+v", e)
	}
	for _, target := range []string{"/__mock/verify?" + pattern, "/__mock/requests?" + pattern, "/__mock/requests?wait=1s&" + pattern} {
		what := "GET " + target[:strings.Index(target, "?")]
		r := admin(t, h, "GET", target, "")
		checkError(t, what, r, http.StatusServiceUnavailable, "service_unavailable", "")
		if !strings.Contains(string(r.body), "narrow it") {
			t.Errorf("%s: the 503 does not say what to do: %s", what, r.body)
		}
	}
	if _, err := h.Verify(mock.JournalFilter{Session: "wide", Body: map[string]string{"z": "x"}}, mock.AtLeast(0)); err != nil {
		t.Errorf("one body part over the same journal: %v", err)
	}
	seqs := h.Requests(mock.JournalFilter{Session: "wide"})
	r := admin(t, h, "GET", fmt.Sprintf("/__mock/verify?min=0&since=%d&%s", seqs[n-10].Seq, pattern), "")
	if r.status != 200 {
		t.Errorf("the newest ten only: %d %s", r.status, r.body)
	}
}

// Any request pattern and any journaled body: no panic, the envelope
// always, 200, 400 naming a field, or 409 with details. The request's
// client has already left, so a wait= ends at once.
func FuzzJournalPattern(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"feedback":[{"rating":5,"tone":"formal"}]}`, "method=PATCH&body.feedback.0.tone=formal"},
		{`{"a":{"b":[1,{"c":null}]}}`, "body.a.b.1.c=null&count=1"},
		{`[1,2,3]`, "body.0=1&min=1&max=2"},
		{`{"a":1`, "body.a=1&wait=1s"},
		{"\xff", "query.x=1&header.X-A=b&path=/api/v1/*"},
		{`{}`, "header.Authorization=Bearer+[redacted]&since=0"},
		{`{"a.b":1}`, "body.a..b=1&foo=1&%zz"},
	} {
		f.Add(seed[0], seed[1])
	}
	h, err := mock.New(mock.Options{JournalSize: 8, MaxSessions: 10})
	if err != nil {
		f.Fatal(err)
	}
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	f.Fuzz(func(t *testing.T, body, query string) {
		req := httptest.NewRequest("PATCH", "/api/v1/settings/ai?x=1", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mock-Session", "fz")
		serveRaw(h, req)
		for _, route := range []string{"/__mock/verify", "/__mock/requests"} {
			req := httptest.NewRequest("GET", route, nil).WithContext(gone)
			req.URL.RawQuery = query + "&session=fz"
			rec := serveRaw(h, req)
			what := route + "?" + req.URL.RawQuery
			checkEnvelope(t, what, rec.Code, rec.Body.Bytes())
			switch {
			case rec.Code == 200:
			case rec.Code == 400:
				var eb errorBody
				if json.Unmarshal(rec.Body.Bytes(), &eb); eb.Error.Code != mock.CodeInvalidParameter || !strings.Contains(rec.Body.String(), `"field":`) {
					t.Fatalf("%s: 400 without a field: %s", what, rec.Body.Bytes())
				}
			case rec.Code == 409 && route == "/__mock/verify":
				if !strings.Contains(rec.Body.String(), `"details":{"matched":`) {
					t.Fatalf("%s: 409 without details: %s", what, rec.Body.Bytes())
				}
			default:
				t.Fatalf("%s: status %d: %s", what, rec.Code, rec.Body.Bytes())
			}
		}
	})
}

// A verification that fails for a pattern no operation of the API takes
// says so, naming the nearest; one that matches, or a pattern an
// operation takes, says nothing of it.
func TestVerifyNamesAnUnreachablePattern(t *testing.T) {
	h := newServer(t, mock.Options{})
	get(t, h, "/api/v1/feedbacks?limit=1")
	for _, tc := range []struct {
		method, path, want string
	}{
		{"GET", "/api/v1/feedback", "did you mean /feedbacks?"},
		{"GET", "/feedback", "did you mean /feedbacks?"},
		{"DELETE", "/api/v1/feedbacks", "no operation of path /feedbacks takes DELETE (they take GET, HEAD)"},
		{"DELETE", "", "no operation takes DELETE"},
		{"", "/api/v2/*", "the journal keeps the API's requests only, under /api/v1"},
		{"", "/__mock/health", "the journal keeps the API's requests only"},
		{"PATCH", "/api/v1/settings/ai", ""},
		{"", "/api/v1/settings*", ""},
		{"HEAD", "/feedbacks", ""},
	} {
		v, err := h.Verify(mock.JournalFilter{Method: tc.method, Path: tc.path}, mock.AtLeast(5))
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" && v.Unreachable != "" || !strings.Contains(v.Unreachable, tc.want) {
			t.Errorf("%s %s: unreachable %q, want %q", tc.method, tc.path, v.Unreachable, tc.want)
		}
	}
	if v, _ := h.Verify(mock.JournalFilter{Path: "/api/v1/nope"}, mock.AtMost(0)); v.Unreachable != "" {
		t.Errorf("a verification that holds notes %q", v.Unreachable)
	}
	r := admin(t, h, "GET", "/__mock/verify?path=/api/v1/feedback", "")
	if r.status != 409 || !strings.Contains(string(r.body), "did you mean /feedbacks?") {
		t.Errorf("GET /__mock/verify?path=/api/v1/feedback: %d %s", r.status, r.body)
	}
}
