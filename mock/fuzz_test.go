package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// Properties every answer has: a known status, and the contract's
// envelope (success with data, or failure with an error code).
func checkEnvelope(t *testing.T, what string, status int, body []byte) {
	t.Helper()
	var env struct {
		Success *bool           `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Success == nil {
		t.Fatalf("%s: answer %d is not the envelope: %q", what, status, truncate(body, 300))
	}
	switch {
	case *env.Success && (status != 200 && status != 201 || len(env.Data) == 0 || string(env.Data) == "null"):
		t.Fatalf("%s: success with status %d and data %s", what, status, truncate(env.Data, 100))
	case !*env.Success && (status < 400 || status >= 500 || env.Error == nil || env.Error.Code == "" || string(env.Data) != "null"):
		t.Fatalf("%s: failure with status %d: %s", what, status, truncate(body, 300))
	}
}

func serveRaw(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func FuzzFeedbackQuery(f *testing.F) {
	for _, seed := range []string{"", "limit=5&offset=3", "answered=1&rating=5", "date_from=2026-01-01&date_to=2026-02-01",
		"search=%D0%BF%D0%BB%D0%B5%D0%B4", "nm_id=555000111&counts_only=1", "limit=0", "limit=1&limit=1", "%zz=1",
		"offset=9223372036854775807", "search=" + strings.Repeat("a", 201), "date_from=2026-02-30", "a=b;c=d&&&=",
		"isAnswered=0&take=100", "Limit=5&date-from=1&search=%C2%A0", "%22%5C%0D%0A=1"} {
		f.Add(seed)
	}
	h, err := mock.New(mock.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		req := httptest.NewRequest("GET", "/api/v1/feedbacks", nil)
		req.URL.RawQuery = raw
		rec := serveRaw(h, req)
		if rec.Code != 200 && rec.Code != 400 {
			t.Fatalf("?%s: status %d", raw, rec.Code)
		}
		checkEnvelope(t, "?"+raw, rec.Code, rec.Body.Bytes())
		if ws := warningTexts(t, "?"+raw, rec.Header()); len(ws) > mock.MaxWarnings+1 {
			t.Fatalf("?%s: %d warnings", raw, len(ws))
		}
		if rec.Code == 200 && !strings.Contains(raw, "counts_only") {
			var d struct {
				Data struct {
					Feedbacks []json.RawMessage `json:"feedbacks"`
					Total     int               `json:"total"`
					Limit     int               `json:"limit"`
				} `json:"data"`
			}
			json.Unmarshal(rec.Body.Bytes(), &d)
			if d.Data.Feedbacks == nil || len(d.Data.Feedbacks) > d.Data.Limit || len(d.Data.Feedbacks) > d.Data.Total {
				t.Fatalf("?%s: %d records, limit %d, total %d", raw, len(d.Data.Feedbacks), d.Data.Limit, d.Data.Total)
			}
		}
	})
}

func FuzzSettingsPatch(f *testing.F) {
	for _, seed := range []string{`{}`, `{"feedback":[{"rating":1,"tone":"calm"}]}`, `{"question":{"reply_mode":"auto"}}`,
		`{"feedback":[{"rating":2,"use_unified_settings":1,"signature":"S"}]}`, `{"feedback":[{"rating":2},{"rating":2}]}`,
		`{"feedback":[{"rating":1,"use_unified_settings":1},{"rating":3,"use_unified_settings":0}]}`,
		`{"feedback":[{"rating":5,"reply_from_date":null,"empty_review_mode":"generate"}]}`, `[]`, `null`, `{"a":1`, "{\"question\":{\"tone\":\"\xff\"}}"} {
		f.Add([]byte(seed))
	}
	h, err := mock.New(mock.Options{MaxSessions: 100})
	if err != nil {
		f.Fatal(err)
	}
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, body []byte) {
		sid := fmt.Sprintf("fuzz-%d", n.Add(1))
		getS := func() (mock.Settings, []byte) {
			req := httptest.NewRequest("GET", "/api/v1/settings/ai", nil)
			req.Header.Set("X-Mock-Session", sid)
			rec := serveRaw(h, req)
			var env struct{ Data mock.Settings }
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || rec.Code != 200 {
				t.Fatalf("GET settings: %d %v", rec.Code, err)
			}
			return env.Data, rec.Body.Bytes()
		}
		before, _ := getS()
		req := httptest.NewRequest("PATCH", "/api/v1/settings/ai", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mock-Session", sid)
		rec := serveRaw(h, req)
		checkEnvelope(t, "PATCH", rec.Code, rec.Body.Bytes())
		after, afterBody := getS()
		switch rec.Code {
		case 200:
			var env struct{ Data json.RawMessage }
			json.Unmarshal(rec.Body.Bytes(), &env)
			if !strings.Contains(string(afterBody), string(env.Data)) {
				t.Fatalf("GET after PATCH differs from the PATCH answer")
			}
			checkUnified(t, after)
		case 400:
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("a rejected PATCH changed the settings: %s", body)
			}
		default:
			t.Fatalf("PATCH %q: status %d", body, rec.Code)
		}
	})
}

// checkUnified asserts the settings' invariants: five elements by rating,
// one flag, and equal shared fields while it is 1.
func checkUnified(t *testing.T, s mock.Settings) {
	t.Helper()
	f0 := s.Feedback[0]
	for i, e := range s.Feedback {
		if e.Rating != i+1 || e.UseUnifiedSettings != f0.UseUnifiedSettings {
			t.Fatalf("feedback[%d]: rating %d, flag %d vs %d", i, e.Rating, e.UseUnifiedSettings, f0.UseUnifiedSettings)
		}
		if f0.UseUnifiedSettings == 1 && (e.Signature != f0.Signature || e.ExcludedWords != f0.ExcludedWords || e.RequiredWords != f0.RequiredWords ||
			e.EmptyReviewMode != f0.EmptyReviewMode || e.AIInstructions != f0.AIInstructions || (e.ReplyFromDate == nil) != (f0.ReplyFromDate == nil) ||
			e.ReplyFromDate != nil && *e.ReplyFromDate != *f0.ReplyFromDate) {
			t.Fatalf("unified settings, but feedback[%d]'s shared fields differ from feedback[0]'s", i)
		}
	}
}

func FuzzScenarioYAML(f *testing.F) {
	for _, seed := range []string{"description: x\nseed: 1\nsettings: settings/default.yaml\n",
		"extends: default\ndescription: y\nfaults: [{latency: {median: 1s, p99: 2s}}]\n",
		"extends: default\ndescription: z\nauth: {type: bearer, tokens: [t]}\nrate_limit: {requests: 1, window: 1s}\n",
		"kind: reviews\nreviews: [{feedback_id: a, nm_id: 1, product_name: p, product_valuation: 5, created_date: \"2026-01-01 00:00:00\"}]\n",
		"kind: settings\nfeedback: []\n", "kind: phrases\n", "a: [b\n", "&a [*a]\n", "seed: !!binary aGVsbG8=\n",
		"extends: default\ndescription: q\ndata: {generate: {count: 10, rating_weights: [0, 0, 0, 0, 1]}}\n",
		"extends: demo\ndescription: s\nshop: {arrivals_per_hour: 0.5, reply_delay: 1m, clock: frozen}\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := mock.ValidateFile(mock.Options{}, "fuzz.yaml", data)
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "fuzz.yaml") && !strings.HasPrefix(line, "(shipped) fixtures/") && !strings.HasPrefix(line, "(shipped) scenarios/") && !strings.HasPrefix(line, "scenario name") {
				t.Fatalf("a problem without its file: %q", line)
			}
		}
	})
}

func FuzzAdminBodies(f *testing.F) {
	for _, seed := range []struct {
		route uint8
		body  string
	}{{0, `{"method":"GET","path":"/feedbacks","times":3,"error":{"status":503}}`}, {0, `{"latency":{"fixed":"1s"}}`},
		{0, `{"latency":{"median":"100ms","p99":"1s"},"probability":0.5}`}, {0, `{"drop":true,"path":"/[a-"}`},
		{1, `{"name":"slow"}`}, {1, `{"name":"../x"}`}, {1, `{}`}, {0, `{"error":{"status":503,"headers":{"Bad Name":"x"}}}`}} {
		f.Add(seed.route, []byte(seed.body))
	}
	h, err := mock.New(mock.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, route uint8, body []byte) {
		method, target := "POST", "/__mock/faults?session=fuzz"
		if route%2 == 1 {
			method, target = "PUT", "/__mock/scenario?session=fuzz"
		}
		faults := len(h.Faults("fuzz"))
		active := h.Scenarios("fuzz")
		req := httptest.NewRequest(method, target, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := serveRaw(h, req)
		checkEnvelope(t, method+" "+target, rec.Code, rec.Body.Bytes())
		if rec.Code >= 400 {
			if len(h.Faults("fuzz")) != faults || !reflect.DeepEqual(active, h.Scenarios("fuzz")) {
				t.Fatalf("a rejected %s %s changed the state: %s", method, target, body)
			}
		}
		if route%2 == 0 && rec.Code == 201 {
			h.RemoveFaults("fuzz", "") // keep the list short
			// An accepted fault must be usable: a request through it
			// answers (or drops, which httptest turns into a panic).
			defer func() {
				if v := recover(); v != nil && v != http.ErrAbortHandler {
					panic(v)
				}
			}()
		}
	})
}

// FuzzSnapshotRestore: any body POSTed as a snapshot is restored (200)
// or refused (400, 409) in the envelope, never a panic; a refused one
// leaves the session as it was, and a restored one still answers its list.
func FuzzSnapshotRestore(f *testing.F) {
	files := fstest.MapFS{}
	for _, name := range []string{"default.yaml", "demo.yaml"} {
		data, err := scenarios.FS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	files["shop.yaml"] = &fstest.MapFile{Data: []byte("extends: demo\ndescription: s\nshop: {arrivals_per_hour: 6, clock: frozen}\n")}
	h, err := mock.New(mock.Options{Scenarios: files, Scenario: "shop", MaxSessions: 100})
	if err != nil {
		f.Fatal(err)
	}
	send := func(method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return serveRaw(h, req)
	}
	send("POST", "/__mock/clock?session=seed", `{"advance":"2h"}`)
	good := send("GET", "/__mock/snapshot?session=seed&format=json", "").Body.String()
	f.Add([]byte(good))
	f.Add([]byte(strings.Replace(good, `"clock":"frozen"`, `"clock":"real"`, 1)))
	f.Add([]byte(`{"format":"replymock-snapshot/1","session":"x","taken_at":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"format":"replymock-snapshot/1","session":"x","taken_at":"2026-01-01T00:00:00Z","scenarios":[{"name":"default","fingerprint":"","seeded":{"mode":"append","reviews":[{"id":1}]}}]}`))
	f.Add([]byte(`{"format":1}`))
	var n atomic.Int64
	f.Fuzz(func(t *testing.T, body []byte) {
		sid := fmt.Sprintf("fuzz-%d", n.Add(1))
		before := send("GET", "/__mock/snapshot?session="+sid+"&format=json", "").Body.Bytes()
		rec := send("POST", "/__mock/snapshot?session="+sid, string(body))
		checkEnvelope(t, "POST snapshot", rec.Code, rec.Body.Bytes())
		switch rec.Code {
		case 200:
			req := httptest.NewRequest("GET", "/api/v1/feedbacks?limit=100", nil)
			req.Header.Set("X-Mock-Session", sid)
			if list := serveRaw(h, req); list.Code != 200 && list.Code != 401 && list.Code != 429 {
				t.Fatalf("the restored session's list: %d %s", list.Code, list.Body)
			} else if list.Code == 200 && !json.Valid(list.Body.Bytes()) {
				t.Fatalf("the restored session's list is not JSON: %.300s", list.Body)
			}
		case 400, 409:
			after := send("GET", "/__mock/snapshot?session="+sid+"&format=json", "").Body.Bytes()
			if withoutTakenAt(after) != withoutTakenAt(before) {
				t.Fatalf("a refused snapshot (%d %s) changed the session", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	})
}
