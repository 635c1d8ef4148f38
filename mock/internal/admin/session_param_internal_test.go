package admin

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/shared"
)

// TestEmptySessionIsRefused: an empty session id, in session= or in
// X-Mock-Session, is a 400 naming the parameter on every route that
// takes a session, API and admin, and changes nothing. An unset
// variable in a client must not mean the default session, nor every
// session.
func TestEmptySessionIsRefused(t *testing.T) {
	s := newTestServer(t, "default")
	send := func(method, target, body string, h http.Header) *httptest.ResponseRecorder {
		return serve(s, method, target, body, h)
	}
	// Two sessions with something to lose.
	for _, sid := range []string{"alice", "bob"} {
		h := http.Header{shared.HeaderSession: {sid}}
		if w := send(http.MethodPatch, api.Prefix+"/settings/ai", `{"feedback":[{"rating":1,"signature":"kept-`+sid+`"}]}`, h); w.Code != 200 {
			t.Fatalf("PATCH for %s: %d %s", sid, w.Code, w.Body)
		}
		if w := send(http.MethodPost, Prefix+"/faults?session="+sid, `{"times":1000,"path":"/feedbacks","error":{"status":503}}`, nil); w.Code != 201 {
			t.Fatalf("fault for %s: %d %s", sid, w.Code, w.Body)
		}
	}
	// Routes that read no session.
	noSession := map[string]bool{Prefix + "/health": true, Prefix + "/metrics": true, Prefix + "/scenarios": true}
	bodies := map[string]string{
		Prefix + "/scenario":  `{"name":"en-shop"}`,
		Prefix + "/faults":    `{"error":{"status":500}}`,
		Prefix + "/overrides": `{}`,
		Prefix + "/data":      `{"feedbacks":[]}`,
		Prefix + "/clock":     `{"advance":"1h"}`,
		Prefix + "/snapshot":  `{}`,
	}
	type target struct{ method, path string }
	targets := []target{{http.MethodGet, api.Prefix + "/feedbacks"}, {http.MethodGet, api.Prefix + "/settings/ai"}, {http.MethodPatch, api.Prefix + "/settings/ai"}}
	for _, rt := range s.Routes() {
		if noSession[rt.Path] {
			continue
		}
		for _, m := range rt.Methods {
			if m != http.MethodHead {
				targets = append(targets, target{m, strings.Replace(rt.Path, "{id}", "f1", 1)})
			}
		}
	}
	for _, tg := range targets {
		isAPI := strings.HasPrefix(tg.path, api.Prefix)
		ways := map[string]func() *httptest.ResponseRecorder{
			"an empty X-Mock-Session": func() *httptest.ResponseRecorder {
				return send(tg.method, tg.path, bodies[tg.path], http.Header{shared.HeaderSession: {""}})
			},
		}
		if !isAPI {
			ways["session="] = func() *httptest.ResponseRecorder { return send(tg.method, tg.path+"?session=", bodies[tg.path], nil) }
		}
		for way, do := range ways {
			w := do()
			var env struct {
				Error struct{ Code, Field, Message string }
			}
			json.Unmarshal(w.Body.Bytes(), &env)
			field := "session"
			if isAPI || way != "session=" {
				field = shared.HeaderSession
			}
			if w.Code != http.StatusBadRequest || env.Error.Field != field {
				t.Errorf("%s %s with %s: %d %s; want 400 naming %s", tg.method, tg.path, way, w.Code, w.Body, field)
			}
		}
	}
	// Nothing changed: each session keeps its settings and its fault.
	for _, sid := range []string{"alice", "bob"} {
		w := send(http.MethodGet, api.Prefix+"/settings/ai", "", http.Header{shared.HeaderSession: {sid}})
		if !strings.Contains(w.Body.String(), "kept-"+sid) {
			t.Errorf("session %s lost its settings: %s", sid, w.Body)
		}
		if w := send(http.MethodGet, Prefix+"/faults?session="+sid, "", nil); !strings.Contains(w.Body.String(), `"/feedbacks"`) {
			t.Errorf("session %s lost its fault: %s", sid, w.Body)
		}
	}
}

// TestFaultIsFoundOnlyInItsSession: DELETE /__mock/faults/ID with a
// session finds only that session's fault; without one, or with *, any
// session's.
func TestFaultIsFoundOnlyInItsSession(t *testing.T) {
	s := newTestServer(t, "default")
	do := func(method, target, body string) (int, string) {
		w := serve(s, method, target, body, nil)
		return w.Code, w.Body.String()
	}
	add := func(sid string) string {
		code, body := do(http.MethodPost, Prefix+"/faults?session="+sid, `{"error":{"status":503}}`)
		var env struct{ Data struct{ ID string } }
		if json.Unmarshal([]byte(body), &env); code != 201 || env.Data.ID == "" {
			t.Fatalf("fault for %s: %d %s", sid, code, body)
		}
		return env.Data.ID
	}
	for _, tc := range []struct {
		owner, from string
		found       bool
	}{
		{"alice", "bob", false},
		{"alice", "alice", true},
		{"alice", "", true},
		{"alice", "*", true},
		{"*", "bob", false},
		{"*", "*", true},
	} {
		id := add(tc.owner)
		target := Prefix + "/faults/" + id
		if tc.from != "" {
			target += "?session=" + tc.from
		}
		code, body := do(http.MethodDelete, target, "")
		want := http.StatusNotFound
		if tc.found {
			want = http.StatusOK
		}
		if code != want || !tc.found && !strings.Contains(body, "in session "+tc.from) {
			t.Errorf("%s's fault deleted from session %q: %d %s; want %d", tc.owner, tc.from, code, body, want)
		}
		do(http.MethodDelete, Prefix+"/faults", "") // every fault, for the next case
	}
}

// TestSeedStaysInTheDocument: a seed whose answer_state or state is
// outside the API document's enums, or says the opposite of its
// answer_text, is refused naming the field and what it may be, and
// nothing is stored.
func TestSeedStaysInTheDocument(t *testing.T) {
	s := newTestServer(t, "default")
	do := func(method, target, body string) (int, string) {
		w := serve(s, method, target, body, nil)
		return w.Code, w.Body.String()
	}
	for _, tc := range []struct {
		review, field, says string
	}{
		{`"answer_state":"bogus"`, "answer_state", `must be one of ["" "sent" "rejected" "draft"], got "bogus"`},
		{`"state":"weird"`, "state", `must be one of ["new" "done" "draft"], got "weird"`},
		{`"answer_text":"Спасибо!","state":"new"`, "answer_state", `an answered review`},
		{`"answer_state":"sent"`, "answer_state", `a review without answer_text is not answered`},
	} {
		code, body := do(http.MethodPut, Prefix+"/data?session=seed", `{"reviews":[{"product_valuation":5,`+tc.review+`}]}`)
		var env struct {
			Error struct{ Field, Message string }
		}
		json.Unmarshal([]byte(body), &env)
		if code != 400 || env.Error.Field != "reviews[0]."+tc.field || !strings.Contains(env.Error.Message, tc.says) {
			t.Errorf("seed {%s}: %d %s; want 400 at reviews[0].%s saying %s", tc.review, code, body, tc.field, tc.says)
		}
	}
	w := serve(s, http.MethodGet, api.Prefix+"/feedbacks?counts_only=1", "", http.Header{shared.HeaderSession: {"seed"}})
	if !strings.Contains(w.Body.String(), `"total":1009`) {
		t.Errorf("after the refused seeds, the session's counts: %d %s; want the scenario's 1009", w.Code, w.Body)
	}
	for _, ok := range []string{`"answer_text":"Спасибо!"`, `"answer_state":"draft","state":"draft"`, `"state":"new"`} {
		if code, body := do(http.MethodPut, Prefix+"/data?session=seed", `{"reviews":[{"product_valuation":5,`+ok+`}]}`); code != 200 {
			t.Errorf("seed {%s}: %d %s", ok, code, body)
		}
	}
}

// serve sends s a request with a JSON body and the headers h.
func serve(s *testServer, method, target, body string, h http.Header) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k, v := range h {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}
