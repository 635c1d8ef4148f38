package mock_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/scenariotest"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// defaultServer is built once: the default scenario is immutable data,
// and tests that change settings build their own server.
var defaultServer = sync.OnceValues(func() (*mock.Server, error) { return mock.New(mock.Options{}) })

func newDefault(t testing.TB) *mock.Server {
	t.Helper()
	s, err := defaultServer()
	if err != nil {
		t.Fatalf("mock.New: %v", err)
	}
	return s
}

func newServer(t testing.TB, opts mock.Options) *mock.Server {
	t.Helper()
	s, err := mock.New(opts)
	if err != nil {
		t.Fatalf("mock.New: %v", err)
	}
	return s
}

// response is a recorded answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends one request straight to the handler.
func do(t testing.TB, h http.Handler, method, target, body string, header ...string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	// Without a query, a body on GET or a charset, a request is clean: it
	// warns of nothing, in any test (warnings_test.go has the others), but
	// that its session was evicted.
	warned := slices.DeleteFunc(slices.Clone(rec.Header().Values(mock.HeaderWarning)), func(v string) bool { return strings.Contains(v, journal.EvictedWords) })
	if strings.HasPrefix(req.URL.Path, mock.APIPrefix+"/") && req.URL.RawQuery == "" && (body == "" || method == http.MethodPatch) &&
		!strings.Contains(strings.ToLower(req.Header.Get("Content-Type")), "charset") && len(warned) > 0 {
		t.Errorf("%s %s: a clean request got warnings %q", method, target, warned)
	}
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// getUnchecked sends a GET that no document describes the answer of: to
// a handler that is not the whole server (APIHandler, whose 404s for the
// admin API are not the admin listener's answers).
func getUnchecked(h http.Handler, target string) response {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func patch(t testing.TB, h http.Handler, body string) response {
	t.Helper()
	return do(t, h, http.MethodPatch, "/api/v1/settings/ai", body, "Content-Type", "application/json")
}

// errorBody is the contract's error envelope, decoded strictly.
type errorBody = scenariotest.ErrorBody

// checkError asserts that r is the error envelope with status and code,
// and field when it is not "-" (scenariotest's check).
func checkError(t testing.TB, what string, r response, status int, code, field string) {
	t.Helper()
	scenariotest.CheckError(t, what, r.scenario(), status, code, field)
}

// decodeOK decodes a success envelope's data into v, strictly
// (scenariotest's).
func decodeOK(t testing.TB, what string, r response, v any) {
	t.Helper()
	scenariotest.DecodeOK(t, what, r.scenario(), v)
}

// scenario is r as scenariotest's checks take it.
func (r response) scenario() scenariotest.Response {
	return scenariotest.Response{Status: r.status, Header: r.header, Body: r.body}
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file; run go test -run %s -update if the change is intended\ngot:\n%s", path, t.Name(), truncate(got, 2000))
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}

// decodeQuiet decodes a success envelope's data without failing the test,
// for use in goroutines.
func decodeQuiet(body []byte, v any) error {
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return err
	}
	if !env.Success {
		return fmt.Errorf("success false: %s", body)
	}
	return json.Unmarshal(env.Data, v)
}

func fsGlob(fsys fs.FS) ([]string, error) { return fs.Glob(fsys, "*.yaml") }

// swapFS is an fs.FS whose contents a test changes while the server reads it.
type swapFS struct{ get func() fstest.MapFS }

func (s *swapFS) Open(name string) (fs.File, error) { return s.get().Open(name) }
func (s *swapFS) ReadFile(name string) ([]byte, error) {
	return fs.ReadFile(s.get(), name)
}
func (s *swapFS) Glob(pattern string) ([]string, error) { return fs.Glob(s.get(), pattern) }

// get sends a GET with headers to the handler.
func get(t testing.TB, h http.Handler, target string, header ...string) response {
	t.Helper()
	return do(t, h, http.MethodGet, target, "", header...)
}

func counts(t testing.TB, h http.Handler, header ...string) countsData {
	t.Helper()
	var c countsData
	decodeOK(t, "counts", get(t, h, "/api/v1/feedbacks?counts_only=1", header...), &c)
	return c
}

// fakeClock is a settable Options.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// The OpenAPI document, loaded and validated by kin-openapi once.
var contract = sync.OnceValues(func() (routers.Router, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(mock.OpenAPIDocument())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	return gorillamux.NewRouter(doc)
})

// The admin API's OpenAPI document, likewise.
var adminContract = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(mock.AdminOpenAPIDocument())
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the admin OpenAPI document is invalid: %w", err)
	}
	return gorillamux.NewRouter(doc)
})

// validated counts the responses checked against the document, by
// operation and status, so TestMain can tell the checks really ran.
var validated = struct {
	sync.Mutex
	seen map[string]int
}{seen: map[string]int{}}

// checkContract validates every answer a test receives through do (and
// admin) against the OpenAPI document of its side: the API's, or the
// admin API's under /__mock/, so neither can drift from the server.
// Answers with no operation (unknown paths and methods) and API bodies a
// fault wrote itself (not JSON) have nothing to be checked against; an
// admin answer that is not JSON (an image, a page, the metrics) has its
// status, content type and headers checked, not its bytes.
func checkContract(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	api := strings.HasPrefix(req.URL.Path, mock.APIPrefix+"/")
	if !api && !strings.HasPrefix(req.URL.Path, mock.AdminPrefix) || req.Method == http.MethodHead && !api || header.Get(mock.HeaderProxied) != "" {
		return // the real service's answer is not the document's
	}
	load := contract
	if !api {
		load = adminContract
	}
	router, err := load()
	if err != nil {
		t.Fatal(err)
	}
	route, params, err := router.FindRoute(req)
	isJSON := strings.HasPrefix(header.Get("Content-Type"), "application/json")
	head := req.Method == http.MethodHead // the status and headers of a GET, no body
	if err != nil || api && !isJSON && !head {
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: !isJSON || head}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts},
		Status:                 status,
		Header:                 header,
		Options:                opts,
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s: answer %d does not match the OpenAPI document: %v\nbody: %s", req.Method, req.URL, status, err, truncate(body, 500))
		return
	}
	validated.Lock()
	validated.seen[fmt.Sprintf("%s %s %d", req.Method, route.Path, status)]++
	validated.Unlock()
}

func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !testing.Short() && len(os.Args) > 0 && !runFiltered() {
		validated.Lock()
		keys := make([]string, 0, len(validated.seen))
		for k := range validated.seen {
			keys = append(keys, k)
		}
		validated.Unlock()
		sort.Strings(keys)
		// Every operation, with success and error answers, must have been
		// checked; otherwise the contract test silently checks nothing.
		for _, want := range []string{
			"GET /feedbacks 200", "GET /feedbacks 400", "HEAD /feedbacks 200", "HEAD /feedbacks 400", "HEAD /settings/ai 200", "GET /feedbacks 401", "GET /feedbacks 429", "GET /feedbacks 503",
			"GET /settings/ai 200", "PATCH /settings/ai 200", "PATCH /settings/ai 400", "PATCH /settings/ai 413", "PATCH /settings/ai 415", "PATCH /settings/ai 500",
			"GET /__mock/health 200", "GET /__mock/requests 200", "GET /__mock/verify 200", "GET /__mock/verify 409",
			"POST /__mock/faults 201", "POST /__mock/faults 400", "PUT /__mock/faults 200", "PUT /__mock/faults 400", "PUT /__mock/data 200", "PUT /__mock/data 400",
			"GET /__mock/data 200", "PUT /__mock/overrides 200", "GET /__mock/clock 200", "GET /__mock/scenarios 200",
		} {
			found := false
			for _, k := range keys {
				found = found || strings.HasSuffix(k, want) || strings.Contains(k, strings.Replace(want, " /", " /api/v1/", 1))
			}
			if !found {
				fmt.Printf("contract check never saw %q; saw %v\n", want, keys)
				code = 1
			}
		}
	}
	os.Exit(code)
}

// runFiltered reports whether -run selects only some tests, when the
// coverage of the contract check cannot be expected.
func runFiltered() bool {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.run") {
			return true
		}
	}
	return false
}
