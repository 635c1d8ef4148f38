package mock_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/mock"
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
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func patch(t testing.TB, h http.Handler, body string) response {
	t.Helper()
	return do(t, h, http.MethodPatch, "/api/v1/settings/ai", body, "Content-Type", "application/json")
}

// errorBody is the contract's error envelope, decoded strictly.
type errorBody struct {
	Success *bool           `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
		Field   string `json:"field"`
	} `json:"error"`
}

// checkError asserts that r is the error envelope with status and code,
// and field when it is not "-".
func checkError(t testing.TB, what string, r response, status int, code, field string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status = %d, want %d; body %s", what, r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s: Content-Type = %q", what, ct)
	}
	var eb errorBody
	dec := json.NewDecoder(strings.NewReader(string(r.body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil {
		t.Fatalf("%s: error body %s: %v", what, r.body, err)
	}
	if eb.Success == nil || *eb.Success || string(eb.Data) != "null" {
		t.Errorf("%s: envelope = %s, want success false and data null", what, r.body)
	}
	if eb.Error.Code != code {
		t.Errorf("%s: error.code = %q, want %q", what, eb.Error.Code, code)
	}
	if eb.Error.Message == "" {
		t.Errorf("%s: error.message is empty", what)
	}
	if field != "-" && eb.Error.Field != field {
		t.Errorf("%s: error.field = %q, want %q (message %q)", what, eb.Error.Field, field, eb.Error.Message)
	}
}

// decodeOK decodes a success envelope's data into v.
func decodeOK(t testing.TB, what string, r response, v any) {
	t.Helper()
	if r.status != http.StatusOK && r.status != http.StatusCreated {
		t.Fatalf("%s: status = %d, want 200; body %s", what, r.status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Errorf("%s: Content-Type = %q", what, ct)
	}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil {
		t.Fatalf("%s: %v; body %s", what, err, r.body)
	}
	if !env.Success {
		t.Fatalf("%s: success = false; body %s", what, r.body)
	}
	dec := json.NewDecoder(strings.NewReader(string(env.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: data %s: %v", what, env.Data, err)
	}
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
