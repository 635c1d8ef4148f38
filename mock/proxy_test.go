package mock_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// upstream is a stand-in for the real service on loopback: it records
// what reached it and answers with its own JSON.
type upstream struct {
	*httptest.Server
	mu   sync.Mutex
	seen []*http.Request
	body []string
}

func newUpstream(t *testing.T, answer http.HandlerFunc) *upstream {
	u := &upstream{}
	u.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.seen, u.body = append(u.seen, r), append(u.body, string(b))
		u.mu.Unlock()
		r.Body = io.NopCloser(strings.NewReader(string(b))) // for answer to read again
		answer(w, r)
	}))
	t.Cleanup(u.Close)
	return u
}

func (u *upstream) requests() ([]*http.Request, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]*http.Request(nil), u.seen...), append([]string(nil), u.body...)
}

// With --proxy, a path replymock does not fake goes to the real service
// with the caller's method, query, body and headers, but none of the
// mock's own; its answer comes back as it is, and the journal marks it.
// What replymock fakes stays here.
func TestProxyForwardsWhatIsNotFaked(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Upstream", "yes")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"data":{"id":"q1"},"error":false}`)
	})
	h := newServer(t, mock.Options{Proxy: up.URL})
	r := do(t, h, http.MethodPost, "/api/v1/feedbacks/answer?x=%D0%B9&y=1", `{"id":"abc","text":"Спасибо"}`,
		"Content-Type", "application/json", "Authorization", "Bearer real-token", "X-Mock-Session", "p1", "X-Mock-Admin-Token", "adm1n", "X-Mock-Scenario", "default")
	if r.status != http.StatusCreated || string(r.body) != `{"data":{"id":"q1"},"error":false}` || r.header.Get("X-Upstream") != "yes" || r.header.Get(mock.HeaderProxied) != "1" {
		t.Fatalf("proxied answer: %d %q %v", r.status, r.body, r.header)
	}
	seen, bodies := up.requests()
	if len(seen) != 1 {
		t.Fatalf("the upstream saw %d requests, want 1", len(seen))
	}
	got := seen[0]
	if got.Method != http.MethodPost || got.URL.Path != "/api/v1/feedbacks/answer" || got.URL.RawQuery != "x=%D0%B9&y=1" || bodies[0] != `{"id":"abc","text":"Спасибо"}` {
		t.Errorf("the upstream saw %s %s?%s %q", got.Method, got.URL.Path, got.URL.RawQuery, bodies[0])
	}
	if got.Header.Get("Authorization") != "Bearer real-token" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("the caller's headers did not reach the upstream: %v", got.Header)
	}
	for name := range got.Header {
		if strings.HasPrefix(name, "X-Mock-") {
			t.Errorf("the mock's own header %s reached the upstream", name)
		}
	}
	var list struct {
		Count    int
		Requests []mock.JournalEntry
	}
	decodeOK(t, "journal", admin(t, h, "GET", "/__mock/requests?session=p1", ""), &list)
	if len(list.Requests) != 1 || !list.Requests[0].Proxied || list.Requests[0].Status != http.StatusCreated || !strings.Contains(list.Requests[0].Response, "q1") {
		t.Errorf("journal: %+v; want one proxied entry with the upstream's answer", list.Requests)
	}
	// What replymock fakes is answered here, and not journaled as proxied.
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "p1"); r.status != 200 || r.header.Get(mock.HeaderProxied) != "" {
		t.Errorf("GET /feedbacks with a proxy: %d, %s %q", r.status, mock.HeaderProxied, r.header.Get(mock.HeaderProxied))
	}
	if seen, _ := up.requests(); len(seen) != 1 {
		t.Errorf("a faked operation reached the upstream")
	}
	// Without a proxy, the same path is a 404 here.
	checkError(t, "no proxy", do(t, newServer(t, mock.Options{}), http.MethodPost, "/api/v1/feedbacks/answer", `{}`, "Content-Type", "application/json"), 404, mock.CodeNotFound, "")
}

// A scenario's proxy sends its listed paths upstream too, even ones
// replymock fakes; faults, auth and the rate limit apply before it.
func TestScenarioProxyPathsAndFaults(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"real":true}`)
	})
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"bridge.yaml": {Data: []byte("extends: default\ndescription: the real settings, the mock's reviews\nproxy:\n  url: " + up.URL + "/base\n  paths: [/settings/**]\n" +
			"faults:\n  - {path: /questions, times: 1, error: {status: 503}}\n")},
	}
	h := newServer(t, mock.Options{Scenarios: files, Scenario: "bridge"})
	if r := get(t, h, "/api/v1/settings/ai"); r.status != 200 || string(r.body) != `{"real":true}` {
		t.Errorf("GET /settings/ai on bridge: %d %s; want the upstream's answer", r.status, r.body)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.status != 200 || strings.Contains(string(r.body), "real") {
		t.Errorf("GET /feedbacks on bridge: %d; want replymock's list", r.status)
	}
	if r := get(t, h, "/api/v1/questions"); r.status != 503 {
		t.Errorf("the scenario's fault on /questions: %d, want 503 before the upstream", r.status)
	}
	if r := get(t, h, "/api/v1/questions"); r.status != 200 {
		t.Errorf("/questions after the fault: %d, want the upstream's 200", r.status)
	}
	seen, _ := up.requests()
	paths := []string{}
	for _, r := range seen {
		paths = append(paths, r.URL.Path)
	}
	if strings.Join(paths, " ") != "/base/api/v1/settings/ai /base/api/v1/questions" {
		t.Errorf("the upstream saw %v", paths)
	}
}

// An upstream that is down, or too slow, is a clear 502 or 504 in the
// envelope, journaled as proxied.
func TestProxyUpstreamFails(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	base := down.URL
	down.Close()
	h := newServer(t, mock.Options{Proxy: base})
	r := get(t, h, "/api/v1/questions")
	checkError(t, "upstream down", r, http.StatusBadGateway, mock.CodeBadGateway, "")
	if !strings.Contains(string(r.body), "the upstream 127.0.0.1") {
		t.Errorf("502 body: %s", r.body)
	}

	release := make(chan struct{})
	slow := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { <-release })
	defer close(release)
	h = newServer(t, mock.Options{Proxy: slow.URL, ProxyTimeout: 200 * time.Millisecond})
	start := time.Now()
	r = get(t, h, "/api/v1/questions", "X-Mock-Session", "slow")
	checkError(t, "upstream too slow", r, http.StatusGatewayTimeout, mock.CodeGatewayTimeout, "")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the 504 took %v", took)
	}
	var list struct {
		Count    int
		Requests []mock.JournalEntry
	}
	decodeOK(t, "journal", admin(t, h, "GET", "/__mock/requests?session=slow", ""), &list)
	if len(list.Requests) != 1 || !list.Requests[0].Proxied || list.Requests[0].Status != 504 {
		t.Errorf("journal: %+v", list.Requests)
	}
}

// A bad proxy is refused: by mock.New, and in a scenario file with the
// field at fault.
func TestProxyRefusesBadSpecs(t *testing.T) {
	for _, base := range []string{"ftp://x", "localhost:8080", "http://x/?q=1", "http://u:p@x/"} {
		if _, err := mock.New(mock.Options{Proxy: base}); err == nil || !strings.Contains(err.Error(), "proxy") {
			t.Errorf("Proxy %q: %v; want an error", base, err)
		}
	}
	err := mock.ValidateFile(mock.Options{}, "bad.yaml", []byte("description: x\nseed: 1\nsettings: settings/default.yaml\nproxy:\n  url: nowhere\n  paths: [feedbacks]\n"))
	if err == nil || !strings.Contains(err.Error(), "proxy.url") || !strings.Contains(err.Error(), "proxy.paths[0]") {
		t.Errorf("a bad proxy key: %v", err)
	}
}

// A large answer, written by the upstream in many pieces, streams
// through whole (the proxy's copy loop reuses its buffer; the journal
// keeps a copy of the start), with the mock's own CORS headers and
// request id only; a body sent with Expect: 100-continue, or with a GET
// on a listed path, reaches the upstream whole.
func TestProxyStreamsLargeAnswersWhole(t *testing.T) {
	var b strings.Builder
	for i := range 28_000 {
		fmt.Fprintf(&b, "%08d,", i) // no two pieces alike: a reused buffer shows
	}
	big := b.String() // 252 KB, over many reads
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/v1/big" {
			w.Header().Set("Access-Control-Allow-Origin", "https://upstream.example")
			w.Header().Set("X-Request-Id", "upstream-id")
			for i := 0; i < len(big); i += 4096 {
				io.WriteString(w, big[i:min(i+4096, len(big))])
				w.(http.Flusher).Flush()
			}
			return
		}
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"got":`+strconv.Quote(string(b))+`}`)
	})
	srv := httptest.NewServer(newServer(t, mock.Options{Proxy: up.URL}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/big", nil)
	req.Header.Set("Origin", "http://localhost:5173")
	req.Header.Set("X-Mock-Session", "big")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != big {
		t.Fatalf("the 256 KB answer came through as %d bytes (%v); equal %v", len(body), err, string(body) == big)
	}
	if got := resp.Header.Values("Access-Control-Allow-Origin"); len(got) != 1 || got[0] != "http://localhost:5173" {
		t.Errorf("Access-Control-Allow-Origin: %q; want only the mock's", got)
	}
	if got := resp.Header.Values("X-Request-Id"); len(got) != 1 || got[0] == "upstream-id" {
		t.Errorf("X-Request-Id: %q; want only the mock's", got)
	}
	var list struct {
		Count    int
		Requests []mock.JournalEntry
	}
	// The journal of the streamed one, read from the server that served it.
	jr, err := http.Get(srv.URL + "/__mock/requests?session=big")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(jr.Body).Decode(&struct{ Data any }{&list})
	jr.Body.Close()
	if len(list.Requests) != 1 || !strings.HasPrefix(big, list.Requests[0].Response) || len(list.Requests[0].Response) < 4096 || !list.Requests[0].Truncated {
		t.Errorf("journal of the big answer: %d entries, response %d bytes, a prefix %v", len(list.Requests), len(list.Requests[0].Response), strings.HasPrefix(big, list.Requests[0].Response))
	}

	// A body sent with Expect: 100-continue reaches the upstream whole.
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/api/v1/echo", strings.NewReader(`{"a":1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != `{"got":"{\"a\":1}"}` {
		t.Errorf("POST with Expect: %d %s", resp.StatusCode, body)
	}

	// A GET with a body on a path a scenario's proxy lists: the body is
	// not eaten by the body-on-GET warning.
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"default.yaml": {Data: def}, "up.yaml": {Data: []byte("extends: default\ndescription: x\nproxy: {url: \"" + up.URL + "\", paths: [/feedbacks]}\n")}}
	r := do(t, newServer(t, mock.Options{Scenarios: files, Scenario: "up"}), http.MethodGet, "/api/v1/feedbacks", `{"q":2}`)
	if r.status != 200 || string(r.body) != `{"got":"{\"q\":2}"}` {
		t.Errorf("GET with a body on a listed path: %d %s", r.status, r.body)
	}
}

// The admin token never reaches the upstream, whether sent as a bearer
// token or in X-Mock-Admin-Token; the caller's own token does.
func TestProxyKeepsTheAdminToken(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := newServer(t, mock.Options{Proxy: up.URL, AdminToken: "adm1n-s3cret"})
	for _, header := range [][]string{
		{"Authorization", "Bearer adm1n-s3cret"},
		{"Authorization", "bearer adm1n-s3cret"},
		{"X-Mock-Admin-Token", "adm1n-s3cret"},
		{"Authorization", "Bearer real-token"},
	} {
		if r := do(t, h, http.MethodGet, "/api/v1/questions", "", header...); r.status != http.StatusNoContent {
			t.Fatalf("%q: %d %s", header, r.status, r.body)
		}
	}
	seen, _ := up.requests()
	if len(seen) != 4 {
		t.Fatalf("the upstream saw %d requests, want 4", len(seen))
	}
	for i, r := range seen {
		for name, vs := range r.Header {
			if strings.Contains(strings.Join(vs, " "), "adm1n") {
				t.Errorf("request %d: the admin token reached the upstream in %s", i, name)
			}
		}
	}
	if got := seen[3].Header.Get("Authorization"); got != "Bearer real-token" {
		t.Errorf("the caller's own token reached the upstream as %q", got)
	}
}

// A path that could lead out of /api/v1 at the upstream, once decoded
// there, is refused with a 400 in the envelope and goes nowhere; the
// journal keeps it, not marked proxied.
func TestProxyRefusesPathsLeavingTheAPI(t *testing.T) {
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h := newServer(t, mock.Options{Proxy: up.URL})
	paths := []string{
		"/api/v1/../../admin",
		"/api/v1/..%2f..%2fadmin",
		"/api/v1/%2e%2e/%2e%2e/admin",
		"/api/v1/..;/admin",
		"/api/v1/..%5cadmin",
		"/api/v1/questions/%2fadmin",
		"/api/v1/./questions",
		"/api/v1/%252e%252e/admin",
	}
	for i, p := range paths {
		sid := fmt.Sprintf("p%d", i)
		r := do(t, h, http.MethodGet, p, "", "X-Mock-Session", sid)
		checkError(t, p, r, http.StatusBadRequest, mock.CodeInvalidParameter, "path")
		if e := h.Requests(mock.JournalFilter{Session: sid}); len(e) != 1 || e[0].Proxied || e[0].Status != 400 {
			t.Errorf("%s: journal %+v", p, e)
		}
	}
	if seen, _ := up.requests(); len(seen) != 0 {
		t.Errorf("the upstream saw %d requests, the first %s", len(seen), seen[0].URL)
	}
	// What stays plainly under /api/v1 goes.
	for _, p := range []string{"/api/v1/questions", "/api/v1/questions/a.b", "/api/v1/x%20y"} {
		if r := get(t, h, p); r.status != http.StatusNoContent {
			t.Errorf("%s: %d %s", p, r.status, r.body)
		}
	}
}

// The upstream's body goes to the client as the upstream sent it: the
// mock asks for no compression the client did not ask for, and inflates
// nothing, so a small gzip answer cannot reach the client gigabytes long.
func TestProxyPassesCompressionThrough(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(make([]byte, 4<<20)) // 4 MiB of zeros, some 4 KB zipped
	zw.Close()
	up := newUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
			return
		}
		io.WriteString(w, "plain")
	})
	srv := httptest.NewServer(newServer(t, mock.Options{Proxy: up.URL}))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}} // sends Accept-Encoding only when told
	for _, accept := range []string{"", "gzip"} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/zip", nil)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want, wantEncoding := "plain", ""
		if accept != "" {
			want, wantEncoding = zipped.String(), "gzip"
		}
		if string(body) != want || resp.Header.Get("Content-Encoding") != wantEncoding {
			t.Errorf("Accept-Encoding %q: %d bytes, Content-Encoding %q; want %d bytes, %q",
				accept, len(body), resp.Header.Get("Content-Encoding"), len(want), wantEncoding)
		}
	}
	seen, _ := up.requests()
	if len(seen) != 2 || seen[0].Header.Get("Accept-Encoding") != "" || seen[1].Header.Get("Accept-Encoding") != "gzip" {
		t.Errorf("the upstream saw Accept-Encoding %q, %q; want the client's", seen[0].Header.Get("Accept-Encoding"), seen[1].Header.Get("Accept-Encoding"))
	}
}
