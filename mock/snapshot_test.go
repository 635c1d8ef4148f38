package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
	"gopkg.in/yaml.v3"
)

// sessionView is everything a client of the API can see of a session:
// every page of the list under several filters, their counts, and the
// settings, as the bytes sent.
func sessionView(t *testing.T, h http.Handler, session string) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{"", "answered=0", "answered=1", "rating=1", "rating=5&answered=0", "search=%D1%81%D0%BF%D0%B0%D1%81%D0%B8%D0%B1%D0%BE"} {
		for offset := 0; ; offset += 100 {
			r := get(t, h, fmt.Sprintf("/api/v1/feedbacks?limit=100&offset=%d&%s", offset, q), "X-Mock-Session", session)
			if r.status != http.StatusOK {
				t.Fatalf("list %q: %d %s", q, r.status, r.body)
			}
			b.Write(r.body)
			var d struct {
				Data listData `json:"data"`
			}
			if err := json.Unmarshal(r.body, &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Data.Feedbacks) < 100 {
				break
			}
		}
		b.Write(get(t, h, "/api/v1/feedbacks?counts_only=1&"+q, "X-Mock-Session", session).body)
	}
	b.Write(get(t, h, "/api/v1/settings/ai", "X-Mock-Session", session).body)
	return b.String()
}

// takeSnapshot is GET /__mock/snapshot of session, in the format asked.
func takeSnapshot(t *testing.T, h http.Handler, session, accept string) []byte {
	t.Helper()
	r := do(t, h, http.MethodGet, "/__mock/snapshot?session="+session, "", "Accept", accept)
	if r.status != http.StatusOK {
		t.Fatalf("GET snapshot of %s: %d %s", session, r.status, r.body)
	}
	return r.body
}

// restore is POST /__mock/snapshot into session.
func restore(t *testing.T, h http.Handler, session, ctype string, doc []byte) mock.RestoreResult {
	t.Helper()
	var res mock.RestoreResult
	decodeOK(t, "restore into "+session, do(t, h, http.MethodPost, "/__mock/snapshot?session="+session, string(doc), "Content-Type", ctype), &res)
	return res
}

// shopFiles are the shipped default and demo scenarios and a frozen
// living shop on the demo with arrivals.
func shopFiles(t *testing.T) fstest.MapFS {
	files := fstest.MapFS{}
	for _, name := range []string{"default.yaml", "demo.yaml"} {
		files[name] = &fstest.MapFile{Data: mustRead(t, scenarios.FS, name)}
	}
	files["shop.yaml"] = &fstest.MapFile{Data: []byte("extends: demo\ndescription: test shop\nshop: {arrivals_per_hour: 12, reply_delay: 10m, clock: frozen}\n")}
	return files
}

// A session restored from its snapshot, into another session or into
// itself after it changed, answers every list page, count and its
// settings byte for byte as the session did, in YAML and in JSON; and
// a living shop goes on exactly as the original does (its engine's and
// generator's sequences stand where they stood).
func TestSnapshotRoundTrip(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	seed := func(t *testing.T, h http.Handler, s, mode string) {
		recs := []mock.SeedReview{
			{ProductValuation: 1, Text: "Спасибо, но пришло разбитым"},
			{ProductValuation: 5, Text: "Отлично, спасибо!", AnswerText: "Рады стараться"},
			{ProductValuation: 3},
		}
		decodeOK(t, "seed", putData(t, h, s, "application/json", seedBody(t, mode, recs)), new(mock.SeedResult))
	}
	for _, tc := range []struct {
		name  string
		opts  mock.Options
		setup func(t *testing.T, h http.Handler, s string)
		later func(t *testing.T, h http.Handler, s string) // moves a living shop on
	}{
		{name: "seeded on the data, settings patched, faults and overrides",
			setup: func(t *testing.T, h http.Handler, s string) {
				seed(t, h, s, "append")
				patchIn(t, h, s, `{"feedback":[{"rating":1,"signature":"Команда магазина"}]}`)
				decodeOK(t, "fault", admin(t, h, "POST", "/__mock/faults?session="+s, `{"name":"flaky patch","method":"PATCH","path":"/settings/ai","after":1,"error":{"status":500}}`), new(mock.Fault))
				decodeOK(t, "overrides", admin(t, h, "PUT", "/__mock/overrides?session="+s, `{"rate_limit":{"requests":1000,"window":"1s"}}`), new(mock.Overrides))
				patchIn(t, h, s, `{"feedback":[{"rating":2,"tone":"formal"}]}`) // the fault lets the first through
			}},
		{name: "seeded in place of the data",
			setup: func(t *testing.T, h http.Handler, s string) { seed(t, h, s, "replace") }},
		{name: "frozen living shop, a day on, settings changed on the way",
			opts: mock.Options{Scenario: "shop"},
			setup: func(t *testing.T, h http.Handler, s string) {
				patchIn(t, h, s, `{"feedback":[{"rating":1,"reply_mode":"auto"}]}`)
				advance(t, h, s, "20h")
				patchIn(t, h, s, `{"feedback":[{"rating":5,"reply_mode":"semi_auto"}]}`)
				advance(t, h, s, "4h")
			},
			later: func(t *testing.T, h http.Handler, s string) { advance(t, h, s, "6h") }},
		{name: "living shop on seeded data",
			opts: mock.Options{Scenario: "shop"},
			setup: func(t *testing.T, h http.Handler, s string) {
				seed(t, h, s, "append")
				advance(t, h, s, "3h")
			},
			later: func(t *testing.T, h http.Handler, s string) { advance(t, h, s, "2h") }},
		{name: "real-clock demo, moved ahead",
			opts: mock.Options{Scenario: "demo", Now: clock.now},
			setup: func(t *testing.T, h http.Handler, s string) {
				clock.add(90 * time.Minute)
				advance(t, h, s, "1h")
			},
			later: func(t *testing.T, h http.Handler, s string) { clock.add(2 * time.Hour) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			opts.Scenarios = shopFiles(t)
			if opts.Now == nil {
				opts.Now = (&fakeClock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}).now
			}
			h := newServer(t, opts)
			tc.setup(t, h, "a")
			want := sessionView(t, h, "a")
			doc := takeSnapshot(t, h, "a", "")
			var probe map[string]any
			if err := yaml.Unmarshal(doc, &probe); err != nil || probe["format"] != mock.SnapshotFormat {
				t.Fatalf("the snapshot is not YAML of format %s: %v\n%s", mock.SnapshotFormat, err, truncate(doc, 400))
			}
			docJSON := takeSnapshot(t, h, "a", "application/json")
			if !json.Valid(docJSON) {
				t.Fatalf("Accept: application/json gave %s", truncate(docJSON, 200))
			}
			for _, res := range []mock.RestoreResult{
				restore(t, h, "b", "application/yaml", doc),
				restore(t, h, "c", "application/json", docJSON),
			} {
				if len(res.Dropped) != 0 {
					t.Errorf("restore into %s dropped %q", res.Session, res.Dropped)
				}
				if got := sessionView(t, h, res.Session); got != want {
					t.Errorf("restored into %s, the session answers differently:\n%s", res.Session, firstDiff(got, want))
				}
			}
			// The same snapshot taken of the copy: the same state.
			again, err := mock.DecodeSnapshot(takeSnapshot(t, h, "b", "application/json"))
			if err != nil {
				t.Fatal(err)
			}
			orig, err := mock.DecodeSnapshot(docJSON)
			if err != nil {
				t.Fatal(err)
			}
			if a, b := comparable(t, orig), comparable(t, again); a != b {
				t.Errorf("the copy's snapshot differs from the original's:\n%s", firstDiff(b, a))
			}
			// Changed, then restored into itself: back as it was.
			admin(t, h, "DELETE", "/__mock/faults?session=a", "")
			admin(t, h, "DELETE", "/__mock/data?session=a", "")
			patchIn(t, h, "a", `{"feedback":[{"rating":3,"signature":"Другая подпись"}]}`)
			if sessionView(t, h, "a") == want {
				t.Fatal("the change changed nothing")
			}
			restore(t, h, "a", "application/yaml", doc)
			if got := sessionView(t, h, "a"); got != want {
				t.Errorf("restored into itself, the session answers differently:\n%s", firstDiff(got, want))
			}
			if tc.later != nil {
				for _, s := range []string{"a", "b"} {
					tc.later(t, h, s)
				}
				if a, b := sessionView(t, h, "a"), sessionView(t, h, "b"); a != b || a == want {
					t.Errorf("moved on, the copy differs from the original (or nothing moved: %v):\n%s", a == want, firstDiff(b, a))
				}
			}
		})
	}
}

// patchIn patches session s's settings.
func patchIn(t *testing.T, h http.Handler, s, body string) {
	t.Helper()
	r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", body, "Content-Type", "application/json", "X-Mock-Session", s)
	if r.status != http.StatusOK {
		t.Fatalf("PATCH %s: %d %s", body, r.status, r.body)
	}
}

// comparable is a snapshot without what names its taking: the session,
// the time, and the ids of faults.
func comparable(t *testing.T, snap *mock.Snapshot) string {
	c := *snap
	c.Session, c.TakenAt = "", time.Time{}
	c.Faults = append([]mock.SnapshotFault(nil), snap.Faults...)
	for i := range c.Faults {
		c.Faults[i].ID = ""
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// firstDiff shows where got first differs from want.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("at byte %d of %d/%d:\n got …%s\nwant …%s", i, len(got), len(want), got[from:min(i+160, len(got))], want[from:min(i+160, len(want))])
}

// A bad snapshot is refused over HTTP with the field that is wrong, and
// the session it was meant for stays exactly as it was; so are a body
// past its bound or of another type, and a bad query. (Every problem of
// the document itself: mock/internal/snapshot's tests.)
func TestSnapshotRestoreErrors(t *testing.T) {
	h := newServer(t, mock.Options{Scenarios: shopFiles(t), Scenario: "shop"})
	patchIn(t, h, "a", `{"feedback":[{"rating":1,"reply_mode":"auto"}]}`)
	advance(t, h, "a", "5h")
	good := takeSnapshot(t, h, "a", "application/json")
	for _, tc := range []struct {
		name, ctype, body string
		status            int
		code, field       string
	}{
		{"not JSON", "application/json", "{", 400, "invalid_body", ""},
		{"a scenario file", "application/yaml", "description: x\ndata: {fixture: default}\n", 400, "invalid_body", "description"},
		{"another format", "application/json", strings.Replace(string(good), mock.SnapshotFormat, "replymock-snapshot/9", 1), 400, "invalid_body", "format"},
		{"YAML past its bound", "application/yaml", "format: x\n" + strings.Repeat("# padding\n", (mock.MaxSnapshotYAMLBytes/10)+1), 413, "payload_too_large", "-"},
		{"plain text", "text/plain", string(good), 415, "unsupported_media_type", "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := takeSnapshot(t, h, "a", "application/json")
			checkError(t, tc.name, do(t, h, http.MethodPost, "/__mock/snapshot?session=a", tc.body, "Content-Type", tc.ctype), tc.status, tc.code, tc.field)
			if after := takeSnapshot(t, h, "a", "application/json"); withoutTakenAt(after) != withoutTakenAt(before) {
				t.Errorf("a refused snapshot changed the session")
			}
		})
	}
	for _, tc := range []struct{ target, field string }{
		{"/__mock/snapshot?session=*", "session"},
		{"/__mock/snapshot?session=a&format=xml", "format"},
		{"/__mock/snapshot?sesion=a", "sesion"},
	} {
		checkError(t, tc.target, do(t, h, http.MethodGet, tc.target, ""), 400, "invalid_parameter", tc.field)
	}
	checkError(t, "POST into *", do(t, h, http.MethodPost, "/__mock/snapshot?session=*", string(good), "Content-Type", "application/json"), 400, "invalid_parameter", "session")
}

// withoutTakenAt is a JSON snapshot without its taken_at.
func withoutTakenAt(doc []byte) string {
	var m map[string]any
	json.Unmarshal(doc, &m)
	delete(m, "taken_at")
	b, _ := json.Marshal(m)
	return string(b)
}

// A snapshot of a session that does not exist is that of a fresh one,
// and restoring it makes the session fresh.
func TestSnapshotOfAFreshSession(t *testing.T) {
	h := newServer(t, mock.Options{})
	fresh := takeSnapshot(t, h, "new", "application/json")
	snap, err := mock.DecodeSnapshot(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Session != "new" || len(snap.Scenarios) != 0 || len(snap.Faults) != 0 {
		t.Errorf("a fresh session's snapshot: %s", fresh)
	}
	want := sessionView(t, h, "x")
	patchIn(t, h, "x", `{"feedback":[{"rating":4,"signature":"x"}]}`)
	restore(t, h, "x", "application/json", fresh)
	if got := sessionView(t, h, "x"); got != want {
		t.Errorf("restored fresh: %s", firstDiff(got, want))
	}
}

// Counters of a fault for every session travel by the fault's id.
func TestSnapshotSharedFaultCounters(t *testing.T) {
	h := newServer(t, mock.Options{})
	var f mock.Fault
	decodeOK(t, "fault", admin(t, h, "POST", "/__mock/faults", `{"path":"/feedbacks","times":2,"error":{"status":503}}`), &f)
	for range 3 {
		get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "a")
	}
	doc := takeSnapshot(t, h, "a", "application/json")
	snap, err := mock.DecodeSnapshot(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.SharedFaultCounters) != 1 || snap.SharedFaultCounters[0] != (mock.SharedFaultCount{ID: f.ID, Matched: 3, Hit: 2}) {
		t.Fatalf("shared counters: %+v", snap.SharedFaultCounters)
	}
	restore(t, h, "b", "application/json", doc)
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "b"); r.status != http.StatusOK {
		t.Errorf("the restored session's counter says the fault is spent; got %d", r.status)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "fresh"); r.status != http.StatusServiceUnavailable {
		t.Errorf("a fresh session meets the fault; got %d", r.status)
	}
}

// A snapshot handed out hides the bearer tokens of the session's auth
// override; restored, that override is left out and said so.
func TestSnapshotRedactsTokens(t *testing.T) {
	h := newServer(t, mock.Options{})
	decodeOK(t, "overrides", admin(t, h, "PUT", "/__mock/overrides?session=a", `{"auth":{"type":"bearer","tokens":["s3cret-token"]},"strict":true}`), new(mock.Overrides))
	for _, accept := range []string{"", "application/json"} {
		if doc := takeSnapshot(t, h, "a", accept); bytes.Contains(doc, []byte("s3cret-token")) || !bytes.Contains(doc, []byte("[redacted]")) {
			t.Errorf("the snapshot (%q) shows the token: %s", accept, doc)
		}
	}
	res := restore(t, h, "b", "application/json", takeSnapshot(t, h, "a", "application/json"))
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "overrides.auth") {
		t.Errorf("dropped %q, want the auth override named", res.Dropped)
	}
	var o mock.Overrides
	decodeOK(t, "overrides of b", admin(t, h, "GET", "/__mock/overrides?session=b", ""), &o)
	if o.Auth != nil || o.Strict == nil || !*o.Strict {
		t.Errorf("restored overrides: %+v; want strict kept and no auth", o)
	}
}

// A shop's clock stops at the end of 2199: past it, an advance is
// refused, and the session still answers and can be taken.
func TestShopClockStopsAt2200(t *testing.T) {
	h := newServer(t, mock.Options{Scenarios: shopFiles(t), Scenario: "shop"})
	advance(t, h, "a", "1h")
	var m map[string]any
	json.Unmarshal(takeSnapshot(t, h, "a", "application/json"), &m)
	shop := m["scenarios"].([]any)[0].(map[string]any)["shop"].(map[string]any)
	for _, k := range []string{"origin", "processed", "now"} {
		shop[k] = "2199-12-31T23:30:00Z"
	}
	shop["settings_changed"] = []string{}
	for range 5 {
		shop["settings_changed"] = append(shop["settings_changed"].([]string), "2199-12-31T23:30:00Z")
	}
	shop["arrivals"] = nil
	doc, _ := json.Marshal(m)
	restore(t, h, "late", "application/json", doc)
	checkError(t, "advance past 2200", admin(t, h, "POST", "/__mock/clock?session=late", `{"advance":"1h"}`), 400, "invalid_body", "advance")
	advance(t, h, "late", "20m")
	takeSnapshot(t, h, "late", "")
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "late"); r.status != http.StatusOK {
		t.Errorf("the list at the end of time: %d %s", r.status, r.body)
	}
}

// Faults healed are not kept in the state folder: after a Heal (every
// fault removed, the panel's way), one removed by id, or one replaced by
// name, and a clean shutdown, a restart restores every session whole,
// with no fault and not a word about one. Sessions that met the faults
// (the default one, visitors, one with a fault of its own) are kept
// before the heal, or only at the shutdown after it.
func TestHealedFaultsAreNotKept(t *testing.T) {
	put := func(t *testing.T, h http.Handler, target, body string) mock.Fault {
		var f mock.Fault
		decodeOK(t, "PUT "+target, admin(t, h, "PUT", target, body), &f)
		return f
	}
	heals := map[string]func(t *testing.T, h http.Handler, faults []mock.Fault){
		"heal": func(t *testing.T, h http.Handler, _ []mock.Fault) {
			decodeOK(t, "DELETE faults", admin(t, h, "DELETE", "/__mock/faults", ""), new(struct{ Removed int }))
			decodeOK(t, "PUT overrides", admin(t, h, "PUT", "/__mock/overrides", `{"auth":null,"rate_limit":null,"strict":null}`), new(mock.Overrides))
		},
		"by id": func(t *testing.T, h http.Handler, faults []mock.Fault) {
			for _, f := range faults {
				decodeOK(t, "DELETE "+f.ID, admin(t, h, "DELETE", "/__mock/faults/"+f.ID, ""), new(struct{ Removed int }))
			}
		},
		"replaced": func(t *testing.T, h http.Handler, faults []mock.Fault) {
			for _, f := range faults {
				target := "/__mock/faults"
				if f.Name == "mine" {
					target += "?session=v1"
				}
				put(t, h, target, `{"name":"`+f.Name+`","latency":{"fixed":"1ms"}}`)
			}
		},
	}
	for _, scenario := range []string{"default", "demo-frozen"} {
		for name, heal := range heals {
			for _, c := range []struct{ keptBefore, restarted bool }{{true, false}, {false, false}, {true, true}} {
				keptBefore, restarted := c.keptBefore, c.restarted
				t.Run(fmt.Sprintf("%s/%s/kept before %v/restarted %v", scenario, name, keptBefore, restarted), func(t *testing.T) {
					dir := t.TempDir()
					d1, err := mock.OpenStateDir(dir, nil)
					if err != nil {
						t.Fatal(err)
					}
					s1 := newServer(t, mock.Options{Scenario: scenario})
					d1.Restore(s1)
					faults := []mock.Fault{
						put(t, s1, "/__mock/faults", `{"name":"panel:error","probability":0.5,"error":{"status":503}}`),
						put(t, s1, "/__mock/faults", `{"name":"panel:latency","latency":{"fixed":"1ms"}}`),
						put(t, s1, "/__mock/faults?session=v1", `{"name":"mine","after":1,"error":{"status":500}}`),
					}
					for range 4 {
						for _, sid := range []string{"default", "v1", "v2"} {
							getUnchecked(withSession(s1, sid), "/api/v1/feedbacks?limit=1")
						}
					}
					if keptBefore {
						if err := d1.Save(s1); err != nil {
							t.Fatal(err)
						}
					}
					if restarted {
						// Shut down with the faults, started again, then healed.
						if err := d1.Save(s1); err != nil {
							t.Fatal(err)
						}
						if d1, err = mock.OpenStateDir(dir, nil); err != nil {
							t.Fatal(err)
						}
						s1 = newServer(t, mock.Options{Scenario: scenario})
						d1.Restore(s1)
						for _, sid := range []string{"default", "v1", "v2"} {
							getUnchecked(withSession(s1, sid), "/api/v1/feedbacks?limit=1")
						}
					}
					heal(t, s1, faults)
					if err := d1.Save(s1); err != nil { // the shutdown's
						t.Fatal(err)
					}

					var logs bytes.Buffer
					d2, err := mock.OpenStateDir(dir, slog.New(slog.NewTextHandler(&logs, nil)))
					if err != nil {
						t.Fatal(err)
					}
					s2 := newServer(t, mock.Options{Scenario: scenario})
					if n := d2.Restore(s2); n == 0 {
						t.Error("no session restored")
					}
					if strings.Contains(logs.String(), "level=WARN") || strings.Contains(logs.String(), "no such fault") {
						t.Errorf("the restart after the faults were healed warns:\n%s", logs.String())
					}
					want := 0
					if name == "replaced" {
						want = len(faults) // the replacements stay, the replaced went
					}
					if got := s2.Faults(mock.AllSessions); len(got) != want {
						t.Errorf("%d run-time faults after the restart, want %d: %+v", len(got), want, got)
					}
				})
			}
		}
	}
}

// withSession sends every request as session sid.
func withSession(h http.Handler, sid string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Set(mock.HeaderSession, sid)
		h.ServeHTTP(w, r)
	})
}
