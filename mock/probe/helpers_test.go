package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
)

// fastRate lets tests run at the speed of the machine: the limiter's
// spacing is a microsecond.
const fastRate = 1e6

// newMock is replymock with the given options.
func newMock(t *testing.T, opts mock.Options) *mock.Server {
	t.Helper()
	s, err := mock.New(opts)
	if err != nil {
		t.Fatalf("mock.New: %v", err)
	}
	return s
}

// counter counts the requests that reach its handler.
type counter struct {
	h http.Handler
	n atomic.Int64
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.n.Add(1)
	c.h.ServeHTTP(w, r)
}

// serve starts h on loopback and returns the target: its URL up to /api/v1.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/api/v1"
}

// run probes target at fastRate, cfg changed by mod.
func run(t *testing.T, target string, mod func(*probe.Config)) (*probe.Report, error) {
	t.Helper()
	cfg := probe.Config{Target: target, Rate: fastRate}
	if mod != nil {
		mod(&cfg)
	}
	rep, err := probe.Run(context.Background(), cfg)
	if rep != nil {
		checkReport(t, rep)
	}
	return rep, err
}

// checkReport checks what every report must be: each rule once, with a
// known status and a detail of one line.
func checkReport(t *testing.T, rep *probe.Report) {
	t.Helper()
	seen := map[string]bool{}
	for _, res := range rep.Results {
		if seen[res.Rule] {
			t.Errorf("rule %s is reported twice", res.Rule)
		}
		seen[res.Rule] = true
		switch res.Status {
		case probe.Holds, probe.Differs, probe.NotChecked:
		default:
			t.Errorf("%s: status %q", res.Rule, res.Status)
		}
		if res.Detail == "" || strings.ContainsAny(res.Detail, "\n\r") {
			t.Errorf("%s: detail %q, want one non-empty line", res.Rule, res.Detail)
		}
		if res.Status == probe.Differs && len(res.Evidence) == 0 {
			t.Errorf("%s differs with no evidence: %s", res.Rule, res.Detail)
		}
	}
}

// statuses maps each rule to its status.
func statuses(rep *probe.Report) map[string]probe.Status {
	m := map[string]probe.Status{}
	for _, res := range rep.Results {
		m[res.Rule] = res.Status
	}
	return m
}

// allHold fails t for each rule of rep that does not hold.
func allHold(t *testing.T, rep *probe.Report) {
	t.Helper()
	for _, res := range rep.Results {
		if res.Status != probe.Holds {
			t.Errorf("%s: %s: %s", res.Rule, res.Status, res.Detail)
		}
	}
}

// result is the result of one rule.
func result(t *testing.T, rep *probe.Report, rule string) probe.Result {
	t.Helper()
	for _, res := range rep.Results {
		if res.Rule == rule {
			return res
		}
	}
	t.Fatalf("no result for %s", rule)
	return probe.Result{}
}

// table is the report as a table, for failure messages.
func table(rep *probe.Report) string {
	var b bytes.Buffer
	rep.WriteTable(&b)
	return b.String()
}

// settingsOf reads h's settings as GET shows them.
func settingsOf(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/settings/ai", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /settings/ai: %d %s", rec.Code, rec.Body)
	}
	return rec.Body.String()
}

// decodeData is the data of an envelope, numbers kept as written.
func decodeData(b []byte) map[string]any {
	var top struct {
		Data map[string]any `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		panic("decodeData: " + err.Error() + ": " + string(b))
	}
	return top.Data
}

// writeData answers a success envelope around data.
func writeData(w http.ResponseWriter, data any) {
	b, err := json.Marshal(map[string]any{"success": true, "data": data})
	if err != nil {
		panic(err)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

// copyAnswer writes a recorded answer as it is.
func copyAnswer(w http.ResponseWriter, rec *httptest.ResponseRecorder) {
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	io.Copy(w, rec.Body)
}
