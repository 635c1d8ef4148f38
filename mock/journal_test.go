package mock_test

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/replymock/replymock/mock"
)

// Over the journals' byte budget, the oldest entries of any session go,
// and the newest are kept whole.
func TestJournalBytes(t *testing.T) {
	h := newServer(t, mock.Options{JournalBytes: 100_000})
	for i := range 8 {
		get(t, h, fmt.Sprintf("/api/v1/feedbacks?offset=%d", i), "X-Mock-Session", []string{"a", "b"}[i%2]) // about 18 KB each
	}
	entries := h.Requests(mock.JournalFilter{})
	if len(entries) < 2 || len(entries) > 5 {
		t.Fatalf("%d entries kept, want 2 to 5 of about 18 KB under a 100 KB budget", len(entries))
	}
	for i, e := range entries {
		want := fmt.Sprintf("offset=%d", 8-len(entries)+i)
		if e.Query != want || e.Response == "" || e.Truncated {
			t.Errorf("entry %d: query %q, %d bytes of response, truncated %v; want %s whole (the newest)", i, e.Query, len(e.Response), e.Truncated, want)
		}
	}
	h.ClearRequests(mock.AllSessions)
	for range 2 {
		get(t, h, "/api/v1/feedbacks")
	}
	if e := h.Requests(mock.JournalFilter{}); len(e) != 2 {
		t.Errorf("after clearing, %d entries of 2 kept: the budget was not given back", len(e))
	}
}

// kept is what a listed entry holds in strings: the least the journal
// must count of it.
func kept(e mock.JournalEntry) int {
	n := len(e.Method) + len(e.Path) + len(e.Query) + len(e.Body) + len(e.Response) + len(e.Fault)
	for k, v := range e.Headers {
		n += len(k) + len(v)
	}
	return n
}

// The byte budget counts everything an entry keeps, not only its bodies:
// requests with long query strings and big headers but small answers
// stay within it, the newest kept. (Counting bodies only, the journal
// kept all 300 of them, 20 MB.)
func TestJournalBytesCountEverything(t *testing.T) {
	const budget = 1 << 20
	h := newServer(t, mock.Options{JournalBytes: budget})
	query := "search=" + strings.Repeat("x", 60_000) // too long a search: a short 400 answer
	pad := strings.Repeat("y", 8000)
	const n = 300
	for i := range n {
		r := get(t, h, fmt.Sprintf("/api/v1/feedbacks?n=%d&%s", i, query), "X-Mock-Session", fmt.Sprintf("s%d", i%7),
			"X-Pad-A", pad, "X-Pad-B", pad)
		if r.status != 400 {
			t.Fatalf("request %d: status %d, want 400", i, r.status)
		}
	}
	entries := h.Requests(mock.JournalFilter{})
	total := 0
	for _, e := range entries {
		total += kept(e)
	}
	if total > budget {
		t.Errorf("%d entries hold %d bytes, over the %d-byte budget", len(entries), total, budget)
	}
	if len(entries) < 10 {
		t.Errorf("%d entries kept, want the budget used (at least 10)", len(entries))
	}
	if last := entries[len(entries)-1]; !strings.HasPrefix(last.Query, fmt.Sprintf("n=%d&", n-1)) {
		t.Errorf("the newest entry kept is %.20s..., want the last request", last.Query)
	}
}

// An entry's method, path, query and headers are cut to MaxJournalHead
// each, and Cut says what went.
func TestJournalTrimsOversizedRequests(t *testing.T) {
	h := newServer(t, mock.Options{})
	query := "q=" + strings.Repeat("é", 30_000) // 60,002 bytes: cut on a character boundary
	get(t, h, "/api/v1/feedbacks?"+query, "X-Mock-Session", "trim", "X-Big", strings.Repeat("b", 40_000), "X-Small", "kept")
	path := "/api/v1/" + strings.Repeat("p", 20_000)
	get(t, h, path, "X-Mock-Session", "trim")
	e := h.Requests(mock.JournalFilter{Session: "trim"})
	if len(e) != 2 {
		t.Fatalf("%d entries, want 2", len(e))
	}
	q := e[0]
	if !q.Truncated || len(q.Query) > mock.MaxJournalHead || len(q.Query) < mock.MaxJournalHead-1 || !strings.HasPrefix(query, q.Query) {
		t.Errorf("query kept: %d bytes, truncated %v; want the first %d bytes or so", len(q.Query), q.Truncated, mock.MaxJournalHead)
	}
	if !utf8.ValidString(q.Query) {
		t.Error("the query was cut inside a character")
	}
	if _, ok := q.Headers["X-Big"]; ok || q.Headers["X-Small"] != "kept" || q.Headers["X-Mock-Session"] != "trim" {
		t.Errorf("headers kept: %v; want all but X-Big", slices.Sorted(maps.Keys(q.Headers)))
	}
	wantCut := []string{fmt.Sprintf("query: kept %d of 60002 bytes", len(q.Query)), "headers: kept "}
	if len(q.Cut) != 2 || q.Cut[0] != wantCut[0] || !strings.HasPrefix(q.Cut[1], wantCut[1]) || !strings.HasSuffix(q.Cut[1], "; dropped X-Big") {
		t.Errorf("cut = %q, want %q and the headers', dropping X-Big", q.Cut, wantCut[0])
	}
	p := e[1]
	if p.Status != 404 || p.Path != path[:mock.MaxJournalHead] || len(p.Cut) != 1 || p.Cut[0] != fmt.Sprintf("path: kept %d of %d bytes", mock.MaxJournalHead, len(path)) {
		t.Errorf("long path: status %d, %d bytes kept, cut %q", p.Status, len(p.Path), p.Cut)
	}
	// A body and an answer past MaxJournalBody are named too.
	body := `{"feedback":[{"rating":2,"tone":"warm"}]` + strings.Repeat(" ", mock.MaxJournalBody) + "}"
	do(t, h, "PATCH", "/api/v1/settings/ai", body, "X-Mock-Session", "trim", "Content-Type", "application/json")
	get(t, h, "/api/v1/feedbacks?limit=100", "X-Mock-Session", "trim")
	e = h.Requests(mock.JournalFilter{Session: "trim"})
	if len(e) != 4 {
		t.Fatalf("%d entries, want 4", len(e))
	}
	wantPatch := fmt.Sprintf("body: kept %d of %d bytes read", mock.MaxJournalBody, len(body))
	if pe := e[2]; pe.Status != 200 || !slices.Contains(pe.Cut, wantPatch) {
		t.Errorf("PATCH with a %d-byte body: status %d, cut %q; want %q", len(body), pe.Status, pe.Cut, wantPatch)
	}
	if le := e[3]; len(le.Cut) != 1 || !strings.HasPrefix(le.Cut[0], fmt.Sprintf("response: kept %d of ", mock.MaxJournalBody)) {
		t.Errorf("a list of 100: cut %q; want the response's", le.Cut)
	}
	if r := h.Requests(mock.JournalFilter{Path: "/api/v1/feedbacks"}); len(r) != 2 || r[0].Cut == nil {
		t.Errorf("the trimmed entry is not found by its path: %d entries", len(r))
	}
}

// An entry larger than the whole budget keeps only its method and path;
// with a budget too small even for that, nothing is kept.
func TestJournalTinyBudget(t *testing.T) {
	h := newServer(t, mock.Options{JournalBytes: 4000})
	get(t, h, "/api/v1/feedbacks?limit=50")
	e := h.Requests(mock.JournalFilter{})
	if len(e) != 1 || e[0].Method != "GET" || e[0].Path != "/api/v1/feedbacks" || e[0].Query != "" || e[0].Response != "" ||
		!e[0].Truncated || len(e[0].Cut) != 1 || !strings.HasPrefix(e[0].Cut[0], "all but method and path:") {
		t.Errorf("entry over the whole budget: %+v", e)
	}
	h = newServer(t, mock.Options{JournalBytes: 10})
	get(t, h, "/api/v1/feedbacks?limit=1")
	if e := h.Requests(mock.JournalFilter{}); len(e) != 0 {
		t.Errorf("a 10-byte budget keeps %d entries", len(e))
	}
}

// Over the entry budget of all journals, the oldest entry of any session goes.
func TestJournalEntries(t *testing.T) {
	h := newServer(t, mock.Options{JournalEntries: 5})
	for i := range 9 {
		get(t, h, fmt.Sprintf("/api/v1/feedbacks?limit=%d", i+1), "X-Mock-Session", []string{"a", "b", "c"}[i%3])
	}
	e := h.Requests(mock.JournalFilter{})
	if len(e) != 5 {
		t.Fatalf("%d entries kept, want 5", len(e))
	}
	for i, want := range []string{"limit=5", "limit=6", "limit=7", "limit=8", "limit=9"} {
		if e[i].Query != want {
			t.Errorf("entry %d: %s, want %s (the newest five)", i, e[i].Query, want)
		}
	}
	if a := h.Requests(mock.JournalFilter{Session: "a"}); len(a) != 1 || a[0].Query != "limit=7" {
		t.Errorf("session a keeps %+v, want only its newest", a)
	}
}

// The bound on all journals holds when one session's requests race.
func TestJournalEntriesConcurrent(t *testing.T) {
	h := newServer(t, mock.Options{JournalEntries: 20})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				do(t, h, "GET", "/api/v1/settings/ai", "")
			}
		})
	}
	wg.Wait()
	if n := len(h.Requests(mock.JournalFilter{})); n > 20 {
		t.Errorf("%d entries kept, want at most 20", n)
	}
}

func TestJournal(t *testing.T) {
	h := newServer(t, mock.Options{JournalSize: 4})
	get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "j")
	patch(t, h, `{}`)
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"question":{"tone":"calm"}}`, "Content-Type", "application/json", "X-Mock-Session", "j", "X-Mock-Scenario", "strict-tones")
	get(t, h, "/api/v1/nope", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=2", "X-Mock-Session", "j")
	get(t, h, "/api/v1/feedbacks?limit=3", "X-Mock-Session", "j")

	var j struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j", ""), &j)
	if j.Count != 4 {
		t.Fatalf("journal of j: %d entries, want the newest 4", j.Count)
	}
	if j.Requests[0].Method != "PATCH" {
		t.Errorf("oldest kept entry %s %s, want the PATCH (the first GET fell out)", j.Requests[0].Method, j.Requests[0].Path)
	}
	if q := j.Requests[3].Query; q != "limit=3" {
		t.Errorf("newest entry query %q", q)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?session=j&path=/api/v1/feedbacks", ""), &j)
	if j.Count != 2 {
		t.Errorf("path filter: %d entries", j.Count)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?method=PATCH", ""), &j)
	if j.Count != 2 {
		t.Fatalf("PATCH filter over all sessions: %d entries", j.Count)
	}
	e := j.Requests[0]
	if e.Session != "default" || e.Status != 200 || e.Body != "{}" || !strings.Contains(e.Response, `"feedback"`) || e.Headers["Content-Type"] != "application/json" {
		t.Errorf("PATCH entry %+v", e)
	}
	if j.Requests[1].Scenario != "strict-tones" || j.Requests[1].Session != "j" {
		t.Errorf("entry scenario %q session %q", j.Requests[1].Scenario, j.Requests[1].Session)
	}
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests?path=/api/v1/*&limit=1", ""), &j)
	if j.Count != 1 || j.Requests[0].Query != "limit=3" {
		t.Errorf("limit=1: %+v", j.Requests)
	}
	decodeOK(t, "DELETE requests", admin(t, h, "DELETE", "/__mock/requests?session=j", ""), new(map[string]string))
	decodeOK(t, "GET requests", admin(t, h, "GET", "/__mock/requests", ""), &j)
	if j.Count != 1 || j.Requests[0].Session != "default" {
		t.Errorf("after clearing j: %+v", j.Requests)
	}
	checkError(t, "bad limit", admin(t, h, "GET", "/__mock/requests?limit=0", ""), 400, mock.CodeInvalidParameter, "limit")
}

// The journal keeps the request body even when no handler read it.
func TestJournalBodyWhenFaulted(t *testing.T) {
	for _, name := range []string{"settings-save-fails", "unauthorized", "down"} {
		h := newServer(t, mock.Options{Scenario: name})
		patch(t, h, `{"feedback":[{"rating":1,"tone":"calm"}]}`)
		if e := h.Requests(mock.JournalFilter{}); len(e) != 1 || e[0].Body != `{"feedback":[{"rating":1,"tone":"calm"}]}` {
			t.Errorf("%s: journal %+v, want the PATCH body", name, e)
		}
	}
}

// The journal never gives back a secret the client sent: credentials are
// redacted, their scheme kept; auth still checks the real token.
func TestJournalRedactsSecrets(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "unauthorized"})
	ok := get(t, h, "/api/v1/settings/ai", "Authorization", "Bearer demo-token", "Cookie", "sid=s3cret; theme=dark",
		"Proxy-Authorization", "Basic dXNlcjpzM2NyZXQ=", "X-Mock-Admin-Token", "admin-s3cret", "X-Mock-Session", "redact")
	if ok.status != 200 {
		t.Fatalf("the right token: %d", ok.status)
	}
	if r := get(t, h, "/api/v1/settings/ai", "Authorization", "Bearer wrong-token", "X-Mock-Session", "redact"); r.status != 401 {
		t.Fatalf("a wrong token: %d", r.status)
	}
	list := admin(t, h, "GET", "/__mock/requests?session=redact", "")
	for _, secret := range []string{"demo-token", "wrong-token", "s3cret", "dXNlcjpzM2NyZXQ="} {
		if strings.Contains(string(list.body), secret) {
			t.Errorf("GET /__mock/requests gives back %q: %s", secret, list.body)
		}
	}
	entries := h.Requests(mock.JournalFilter{Session: "redact"})
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	want := map[string]string{"Authorization": "Bearer [redacted]", "Cookie": "[redacted]",
		"Proxy-Authorization": "Basic [redacted]", "X-Mock-Admin-Token": "[redacted]", "X-Mock-Session": "redact"}
	for k, v := range want {
		if got := entries[0].Headers[k]; got != v {
			t.Errorf("journal header %s = %q, want %q", k, got, v)
		}
	}
}

// Credentials under any of their usual names, in a header or the query,
// and the names given in Options.Redact, never come back out: not in a
// listing, nor a verification's near misses, nor as a pattern's value;
// their presence can still be verified.
func TestJournalRedactsCredentialNames(t *testing.T) {
	h := newServer(t, mock.Options{Redact: []string{"X-Tenant", "customer_ref"}})
	headers := []string{"X-Access-Token", "Private-Token", "X-Amz-Security-Token", "X-Goog-Api-Key",
		"Ocp-Apim-Subscription-Key", "X-Forwarded-Authorization", "Token", "X-Auth", "X-Api-Key", "Cookie", "X-Tenant"}
	queries := []string{"api_key", "token", "access_token", "key", "client_secret", "password", "X-Amz-Signature", "customer_ref"}
	for i, name := range headers {
		sid := fmt.Sprintf("h%d", i)
		secret := fmt.Sprintf("s3cret-h%d", i)
		get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", sid, name, secret)
		list := admin(t, h, "GET", "/__mock/requests?session="+sid, "")
		r := admin(t, h, "GET", "/__mock/verify?session="+sid+"&header."+name+"=Bearer", "")
		_, v := verifyFailed(t, name, r)
		for what, body := range map[string][]byte{"listing": list.body, "near miss": r.body} {
			if strings.Contains(string(body), secret) {
				t.Errorf("header %s: the %s gives it back: %s", name, what, body)
			}
		}
		if e := h.Requests(mock.JournalFilter{Session: sid}); len(e) != 1 || e[0].Headers[name] != "[redacted]" {
			t.Errorf("header %s: journaled as %+v", name, e)
		}
		if d := v.NearMisses[0].Differs["header."+name]; d.Got == nil || *d.Got != "[redacted]" {
			t.Errorf("header %s: the near miss has %+v", name, d)
		}
		decodeOK(t, name, admin(t, h, "GET", "/__mock/verify?session="+sid+"&header."+name+"=[redacted]", ""), &verified{})
		checkError(t, name, admin(t, h, "GET", "/__mock/verify?session="+sid+"&header."+name+"="+secret, ""), 400, mock.CodeInvalidParameter, "header."+name)
	}
	for i, name := range queries {
		sid := fmt.Sprintf("q%d", i)
		secret := fmt.Sprintf("s3cret-q%d", i)
		r := get(t, h, "/api/v1/feedbacks?limit=1&"+name+"="+secret, "X-Mock-Session", sid)
		list := admin(t, h, "GET", "/__mock/requests?session="+sid, "")
		if strings.Contains(string(list.body), secret) || strings.Contains(r.header.Get("X-Mock-Warning"), secret) {
			t.Errorf("query %s: given back: %s", name, list.body)
		}
		if e := h.Requests(mock.JournalFilter{Session: sid}); len(e) != 1 || e[0].Query != "limit=1&"+name+"=[redacted]" {
			t.Errorf("query %s: journaled as %+v", name, e)
		}
		decodeOK(t, name, admin(t, h, "GET", "/__mock/verify?session="+sid+"&query."+name+"=[redacted]", ""), &verified{})
		checkError(t, name, admin(t, h, "GET", "/__mock/verify?session="+sid+"&query."+name+"="+secret, ""), 400, mock.CodeInvalidParameter, "query."+name)
	}
	if _, err := mock.New(mock.Options{Redact: []string{"a b"}}); err == nil || !strings.Contains(err.Error(), "redact") {
		t.Errorf("Redact [\"a b\"]: %v, want an error", err)
	}
}

// journalWatch answers like httptest.ResponseRecorder and, when the
// answer's first byte would leave, counts the journal's entries.
type journalWatch struct {
	*httptest.ResponseRecorder
	count func() int
	seen  int // entries when the answer started; -1 before
}

func (w *journalWatch) look() {
	if w.seen < 0 {
		w.seen = w.count()
	}
}

func (w *journalWatch) WriteHeader(code int) { w.look(); w.ResponseRecorder.WriteHeader(code) }

func (w *journalWatch) Write(b []byte) (int, error) { w.look(); return w.ResponseRecorder.Write(b) }

func (w *journalWatch) Flush() { w.look(); w.ResponseRecorder.Flush() }

// An API answer leaves only after its journal entry is in: a client that
// has a status (even before reading the body) finds its request in the
// journal, whatever the answer. (Recorded after the answer, a 100-review
// list was often missing from the journal when its client looked.)
func TestJournalBeforeAnswer(t *testing.T) {
	one := 1.0
	cases := []struct {
		name, method, target, body, scenario string
		fault                                *mock.Fault
		status                               int
	}{
		{name: "a full page", method: "GET", target: "/api/v1/feedbacks?limit=100", status: 200},
		{name: "settings", method: "GET", target: "/api/v1/settings/ai", status: 200},
		{name: "a patch", method: "PATCH", target: "/api/v1/settings/ai", body: `{"feedback":[{"rating":5,"tone":"formal"}]}`, status: 200},
		{name: "a bad parameter", method: "GET", target: "/api/v1/feedbacks?limit=0", status: 400},
		{name: "an unknown path", method: "GET", target: "/api/v1/nowhere", status: 404},
		{name: "a wrong method", method: "DELETE", target: "/api/v1/feedbacks", status: 405},
		{name: "a bad session", method: "GET", target: "/api/v1/feedbacks", status: 400},
		{name: "auth", method: "GET", target: "/api/v1/feedbacks", scenario: "unauthorized", status: 401},
		{name: "an injected error", method: "GET", target: "/api/v1/feedbacks",
			fault: &mock.Fault{Error: &mock.FaultError{Status: 503}}, status: 503},
		{name: "a truncated page", method: "GET", target: "/api/v1/feedbacks?limit=100",
			fault: &mock.Fault{Truncate: true, Probability: &one}, status: 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newServer(t, mock.Options{Scenario: c.scenario})
			if c.fault != nil {
				if _, err := h.AddFault(mock.AllSessions, *c.fault); err != nil {
					t.Fatal(err)
				}
			}
			req := httptest.NewRequest(c.method, c.target, strings.NewReader(c.body))
			req.Host = "127.0.0.1"
			if c.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			if c.name == "a bad session" {
				req.Header.Set(mock.HeaderSession, "no spaces allowed")
			}
			w := &journalWatch{ResponseRecorder: httptest.NewRecorder(), seen: -1,
				count: func() int { return len(h.Requests(mock.JournalFilter{Session: mock.AllSessions})) }}
			func() {
				defer func() {
					if v := recover(); v != nil && v != http.ErrAbortHandler {
						panic(v)
					}
				}()
				h.ServeHTTP(w, req)
			}()
			if w.Code != c.status {
				t.Fatalf("status %d, want %d", w.Code, c.status)
			}
			want := 1
			if c.name == "a bad session" {
				want = 0 // no session, nothing to journal
			}
			if w.seen != want {
				t.Errorf("the answer started with %d journal entries, want %d", w.seen, want)
			}
		})
	}
}

// Pages are written from pooled buffers that go back to their pool once
// sent, and a session's journal shares a response with its newest entry
// when they are the same. Under concurrent requests for pages that
// repeat, from several sessions, with the journal listed meanwhile, every
// entry's response is the body its client got, byte for byte: no entry
// keeps a buffer another request writes into.
func TestJournalKeepsPagesNotPooledBuffers(t *testing.T) {
	h := newServer(t, mock.Options{})
	const workers, each = 6, 60
	var mu sync.Mutex
	sent := make(map[string]string) // body by request id
	stop := make(chan struct{})
	var lister sync.WaitGroup
	lister.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			h.Requests(mock.JournalFilter{}) // reads every kept response
		}
	})
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := i / 2 // each page twice in a row, which the journal shares
				target := fmt.Sprintf("/api/v1/feedbacks?limit=%d&offset=%d", 10+(w+k)%3*40, (w*7+k*3)%5*20)
				if k%9 == 0 {
					target += "&counts_only=1"
				}
				req := httptest.NewRequest("GET", target, nil)
				req.Header.Set(mock.HeaderSession, fmt.Sprintf("pool-%d", w%3))
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if rec.Code != 200 {
					t.Errorf("%s: status %d", target, rec.Code)
					return
				}
				mu.Lock()
				sent[rec.Header().Get(mock.HeaderRequestID)] = rec.Body.String()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(stop)
	lister.Wait()

	entries := h.Requests(mock.JournalFilter{})
	if len(entries) != workers*each {
		t.Fatalf("%d entries, want %d", len(entries), workers*each)
	}
	for _, e := range entries {
		body, ok := sent[e.RequestID]
		switch {
		case !ok:
			t.Errorf("entry %d: request id %q was not sent", e.Seq, e.RequestID)
		case e.Response != body[:min(len(body), mock.MaxJournalBody)]:
			t.Errorf("entry %d (%s?%s): the journal kept %d bytes that differ from the %d sent", e.Seq, e.Path, e.Query, len(e.Response), len(body))
		case e.Truncated != (len(body) > mock.MaxJournalBody):
			t.Errorf("entry %d: truncated %v for a %d-byte answer", e.Seq, e.Truncated, len(body))
		case e.Truncated && !slices.Equal(e.Cut, []string{fmt.Sprintf("response: kept %d of %d bytes", mock.MaxJournalBody, len(body))}):
			t.Errorf("entry %d: cut %q for a %d-byte answer", e.Seq, e.Cut, len(body))
		}
	}
}
