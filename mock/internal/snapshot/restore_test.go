package snapshot

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
)

// A bad snapshot is refused with the field that is wrong, and the session
// it was meant for stays exactly as it was.
func TestRestoreRefusesBadDocuments(t *testing.T) {
	k := shopSession(t, func(set *settings.Settings) { set.Feedback[0].ReplyMode = "auto" }, 5*time.Hour)
	good := []byte(taken(t, k, "a"))
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	sc0 := func(m map[string]any) map[string]any { return m["scenarios"].([]any)[0].(map[string]any) }
	shop := func(m map[string]any) map[string]any { return sc0(m)["shop"].(map[string]any) }
	for _, tc := range []struct {
		name, body string
		yaml       bool // sent as YAML (Decode), else as JSON (DecodeJSON)
		field      string
	}{
		{"not JSON", "{", false, ""},
		{"a scenario file", "description: x\ndata: {fixture: default}\n", true, "description"},
		{"another format", edit(func(m map[string]any) { m["format"] = "replymock-snapshot/9" }), false, "format"},
		{"unknown field", edit(func(m map[string]any) { m["journal"] = []any{} }), false, "journal"},
		{"bad session id", edit(func(m map[string]any) { m["session"] = "a b" }), false, "session"},
		{"settings against the rules", edit(func(m map[string]any) {
			sc0(m)["settings"].(map[string]any)["feedback"].([]any)[0].(map[string]any)["reply_mode"] = "sometimes"
		}), false, "scenarios[0].settings.feedback[0].reply_mode"},
		{"stale reads below 0", edit(func(m map[string]any) {
			sc0(m)["last_write"].(map[string]any)["stale_reads"] = -1
		}), false, "scenarios[0].last_write.stale_reads"},
		{"settings before a write against the rules", edit(func(m map[string]any) {
			sc0(m)["last_write"].(map[string]any)["before"].(map[string]any)["feedback"].([]any)[0].(map[string]any)["reply_mode"] = "sometimes"
		}), false, "scenarios[0].last_write.before.feedback[0].reply_mode"},
		{"a fault that is not one", edit(func(m map[string]any) {
			m["faults"] = []any{map[string]any{"error": map[string]any{"status": 99}, "matched": 0, "hit": 0}}
		}), false, "faults[0].error.status"},
		{"a counter that cannot be", edit(func(m map[string]any) {
			m["faults"] = []any{map[string]any{"drop": true, "matched": 1, "hit": 2}}
		}), false, "faults[0].hit"},
		{"a review without a rating", edit(func(m map[string]any) {
			shop(m)["arrivals"].([]any)[0].(map[string]any)["product_valuation"] = 0
		}), false, "scenarios[0].shop.arrivals[0].product_valuation"},
		{"a review with a field it has not", edit(func(m map[string]any) {
			shop(m)["changed"].([]any)[0].(map[string]any)["answer"] = "x"
		}), false, "scenarios[0].shop.changed[0].answer"},
		{"a changed review not in the data", edit(func(m map[string]any) {
			shop(m)["changed"].([]any)[0].(map[string]any)["id"] = 99999999
		}), false, "scenarios[0].shop.changed[0].id"},
		{"arrivals out of the data's ids", edit(func(m map[string]any) {
			shop(m)["arrivals"].([]any)[0].(map[string]any)["id"] = 5
		}), false, "scenarios[0].shop.arrivals[0].id"},
		{"a time out of range", edit(func(m map[string]any) { shop(m)["origin"] = "1970-01-01T00:00:00Z" }), false, "scenarios[0].shop.origin"},
		{"a lead of centuries", edit(func(m map[string]any) { shop(m)["lead"] = "2000000h" }), false, "scenarios[0].shop.lead"},
		{"an id past the bound", edit(func(m map[string]any) {
			shop(m)["arrivals"].([]any)[0].(map[string]any)["id"] = int64(1) << 60
		}), false, "scenarios[0].shop.arrivals[0].id"},
		{"a media base that is no URL", edit(func(m map[string]any) { m["media_base"] = `"` }), false, "media_base"},
		{"a video that is not one", edit(func(m map[string]any) {
			shop(m)["arrivals"].([]any)[0].(map[string]any)["video"] = []any{"/__mock/media/a"}
		}), false, "scenarios[0].shop.arrivals[0].video"},
		{"tokens past the bound", edit(func(m map[string]any) {
			m["overrides"] = map[string]any{"auth": map[string]any{"type": "bearer", "tokens": []string{strings.Repeat("t", 70<<10)}}}
		}), false, "overrides.auth.tokens"},
		{"an arrival older than the data", edit(func(m map[string]any) {
			shop(m)["arrivals"].([]any)[0].(map[string]any)["created_date"] = "2026-01-02 03:04:05"
		}), false, "scenarios[0].shop.arrivals[0].created_date"},
		{"an origin before the data", edit(func(m map[string]any) { shop(m)["origin"] = "2026-01-01T00:00:00Z" }), false, "scenarios[0].shop.origin"},
		{"too many arrivals, counted before reading them", edit(func(m map[string]any) {
			shop(m)["arrivals"] = make([]any, scenario.MaxShopReviews+1)
		}), false, "scenarios[0].shop.arrivals"},
		{"another clock", edit(func(m map[string]any) { shop(m)["clock"] = "real" }), false, "scenarios[0].shop.clock"},
		{"an engine state that is not one", edit(func(m map[string]any) { shop(m)["replies"] = "AAAA" }), false, "scenarios[0].shop.replies"},
		{"a scenario twice", edit(func(m map[string]any) {
			m["scenarios"] = append(m["scenarios"].([]any), m["scenarios"].([]any)[0])
		}), false, "scenarios[1].name"},
		{"a scenario fault that is not there", edit(func(m map[string]any) {
			sc0(m)["fault_counters"] = []any{map[string]any{"index": 7, "matched": 1, "hit": 1}}
		}), false, "scenarios[0].fault_counters[0].index"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := taken(t, k, "a")
			decode := DecodeJSON
			if tc.yaml {
				decode = Decode
			}
			snap, err := decode([]byte(tc.body))
			if err == nil {
				_, err = k.Restore("a", snap)
			}
			checkError(t, err, http.StatusBadRequest, wire.CodeInvalidBody, tc.field)
			if after := taken(t, k, "a"); after != before {
				t.Errorf("a refused snapshot changed the session")
			}
		})
	}
}

// checkError fails unless err is an *wire.APIError of status and code,
// with a message, naming field.
func checkError(t *testing.T, err error, status int, code, field string) {
	t.Helper()
	var ae *wire.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("got %v, want an APIError %d %s", err, status, code)
	}
	if ae.Status != status || ae.Code != code || ae.Message == "" || ae.Field != field {
		t.Errorf("got %d %s field %q (%q), want %d %s field %q", ae.Status, ae.Code, ae.Field, ae.Message, status, code, field)
	}
}

// What belongs to a scenario that is gone, or changed, is said in
// dropped; what still fits comes back.
func TestRestoreDropsWhatNoLongerFits(t *testing.T) {
	k := shopSession(t, func(set *settings.Settings) { set.Feedback[0].Signature = "С уважением" }, 2*time.Hour)
	snap := take(t, k, "a")
	snap.Scenarios[0].Fingerprint = "0000"
	res, err := k.Restore("b", snap)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "living shop start") {
		t.Errorf("a changed scenario: dropped %q, want the shop named", res.Dropped)
	}
	ss, sc, err := k.State().Resolve("b", "")
	if err != nil {
		t.Fatal(err)
	}
	if got := ss.Settings(sc).Feedback[0].Signature; got != "С уважением" {
		t.Errorf("a changed scenario's settings did not come back: signature %q", got)
	}
	snap.Scenarios[0].Name = "gone"
	snap.Scenario = "gone"
	if res, err := k.Restore("c", snap); err != nil || len(res.Dropped) != 2 {
		t.Errorf("a scenario that is gone: dropped %q (%v), want it named twice (the pick and the state)", res.Dropped, err)
	}
}

// A snapshot whose faults would take the server's run-time faults past
// their bound is refused (the session's own, which it replaces, not
// counted), and changes nothing.
func TestRestoreFaultBound(t *testing.T) {
	k := newKeeper(t, "default")
	st := k.State()
	for range fault.MaxRuntime - 2 {
		if _, _, err := st.PutFault(session.All, fault.Fault{Path: "/nothing-here", Drop: true}, false); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, _, err := st.PutFault("a", fault.Fault{Path: "/x", Drop: true}, false); err != nil {
			t.Fatal(err)
		}
	}
	snap := take(t, k, "a")
	if _, err := k.Restore("a", snap); err != nil { // in place of its own two: fits
		t.Fatal(err)
	}
	before := taken(t, k, "a")
	_, err := k.Restore("b", snap)
	checkError(t, err, http.StatusConflict, wire.CodeTooManyFaults, "")
	if after := taken(t, k, "a"); after != before {
		t.Error("a refused restore changed another session")
	}
	if got := st.Faults("b"); len(got) != fault.MaxRuntime-2 {
		t.Errorf("the refused session meets %d faults, want only the %d for every session", len(got), fault.MaxRuntime-2)
	}
	if _, ok := st.Sessions().Find("b"); ok {
		t.Error("the refused session was made")
	}
}
