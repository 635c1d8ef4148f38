package mock_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/replymock/replymock/mock"
)

// The OpenAPI document, loaded and validated by kin-openapi once.
var contract = sync.OnceValues(func() (routers.Router, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(mock.OpenAPI)
	if err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is invalid: %w", err)
	}
	return gorillamux.NewRouter(doc)
})

// validated counts the responses checked against the document, by
// operation and status, so TestMain can tell the checks really ran.
var validated = struct {
	sync.Mutex
	seen map[string]int
}{seen: map[string]int{}}

// checkContract validates every API answer a test receives through do
// against the OpenAPI document, so the two cannot drift apart. Answers
// with no operation (unknown paths and methods) and bodies a fault wrote
// itself (not JSON) have nothing to be checked against.
func checkContract(t testing.TB, req *http.Request, status int, header http.Header, body []byte) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, mock.APIPrefix+"/") || req.Method == http.MethodHead {
		return
	}
	router, err := contract()
	if err != nil {
		t.Fatal(err)
	}
	route, params, err := router.FindRoute(req)
	if err != nil || !strings.HasPrefix(header.Get("Content-Type"), "application/json") {
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
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
			"GET /feedbacks 200", "GET /feedbacks 400", "GET /feedbacks 401", "GET /feedbacks 429", "GET /feedbacks 503",
			"GET /settings/ai 200", "PATCH /settings/ai 200", "PATCH /settings/ai 400", "PATCH /settings/ai 413", "PATCH /settings/ai 415", "PATCH /settings/ai 500",
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

func TestOpenAPIServed(t *testing.T) {
	h := newServer(t, mock.Options{})
	y := do(t, h, "GET", "/__mock/openapi.yaml", "")
	if y.status != 200 || string(y.body) != string(mock.OpenAPI) || !strings.HasPrefix(y.header.Get("Content-Type"), "application/yaml") {
		t.Errorf("openapi.yaml: %d %q", y.status, y.header.Get("Content-Type"))
	}
	j := do(t, h, "GET", "/__mock/openapi.json", "")
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(j.body)
	if err != nil || doc.Validate(context.Background()) != nil || doc.Paths.Find("/feedbacks") == nil {
		t.Errorf("openapi.json does not load as the same document: %v", err)
	}
	if _, err := contract(); err != nil {
		t.Fatal(err)
	}
}
