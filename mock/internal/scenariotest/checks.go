package scenariotest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// checks is what each shipped scenario must do, as its description says.
var checks = map[string]func(t *testing.T, tg Target){
	"default":             total(1009),
	"en-shop":             total(300),
	"big-shop":            total(100000),
	"empty-shop":          emptyShop,
	"all-unanswered":      allUnanswered,
	"slow":                slow,
	"flaky":               flaky,
	"first-calls-fail":    firstCallsFail,
	"rate-limited":        rateLimited,
	"unauthorized":        unauthorized,
	"down":                down,
	"broken-json":         brokenJSON,
	"connection-drops":    connectionDrops,
	"gateway-timeout":     gatewayTimeout,
	"settings-save-fails": settingsSaveFails,
	"demo":                demo,
	"demo-frozen":         demoFrozen,
	"strict-tones":        strictTones,
	"live-shop-races":     liveShopRaces,
}

// total wants the scenario's data to hold n reviews.
func total(n int) func(t *testing.T, tg Target) {
	return func(t *testing.T, tg Target) {
		if c := counts(t, tg); c.Total != n {
			t.Errorf("total %d, want %d", c.Total, n)
		}
	}
}

func emptyShop(t *testing.T, tg Target) {
	if c := counts(t, tg); c != (countsData{}) {
		t.Errorf("counts %+v, want zeros", c)
	}
	for _, q := range []string{"rating=5", "answered=1", "search=a", "search=a&rating=2", "nm_id=5&counts_only=1", "date_from=2026-01-01"} {
		if d := get(t, tg, "/api/v1/feedbacks?"+q); d.Status != 200 || strings.Contains(string(d.Body), `"total":1`) {
			t.Errorf("%s: %d %s", q, d.Status, d.Body)
		}
	}
	if r := get(t, tg, "/api/v1/feedbacks"); !strings.Contains(string(r.Body), `"feedbacks":[],"total":0`) {
		t.Errorf("list %s", r.Body)
	}
}

func allUnanswered(t *testing.T, tg Target) {
	if c := counts(t, tg); c.Total != 500 || c.Answered != 0 {
		t.Errorf("counts %+v, want 500 unanswered", c)
	}
	// Filters whose posting lists are empty match nothing, not everything.
	for _, q := range []string{"answered=1", "answered=1&rating=5", "answered=1&search=%D1%82", "answered=0&nm_id=1"} {
		if d := list(t, tg, q); d.Total != 0 {
			t.Errorf("%s: total %d, want 0", q, d.Total)
		}
	}
	if d := list(t, tg, "answered=0&search=%D1%82"); d.Total == 0 {
		t.Error("search over unanswered reviews found nothing")
	}
}

func slow(t *testing.T, tg Target) {
	start := time.Now()
	get(t, tg, "/api/v1/settings/ai", mock.HeaderSession, "slow-1")
	// The session's draws are fixed by the seed; the first is well above this.
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("request took %v, want a log-normal delay around 400ms", d)
	}
}

func flaky(t *testing.T, tg Target) {
	failed := 0
	for range 60 {
		switch r := get(t, tg, "/api/v1/feedbacks?limit=1", mock.HeaderSession, "flaky-1"); r.Status {
		case 503:
			failed++
		case 200:
		default:
			t.Fatalf("status %d", r.Status)
		}
	}
	if failed < 5 || failed > 20 {
		t.Errorf("%d of 60 failed, want about 20%%", failed)
	}
	if r := get(t, tg, "/api/v1/settings/ai", mock.HeaderSession, "flaky-1"); r.Status != 200 {
		t.Errorf("settings: %d; only the list is flaky", r.Status)
	}
}

func firstCallsFail(t *testing.T, tg Target) {
	for _, session := range []string{"a", "b"} {
		var got []int
		for range 4 {
			got = append(got, get(t, tg, "/api/v1/feedbacks?limit=1", mock.HeaderSession, session).Status)
		}
		if fmt.Sprint(got) != "[500 500 200 200]" {
			t.Errorf("session %s: %v, want [500 500 200 200]", session, got)
		}
	}
}

func rateLimited(t *testing.T, tg Target) {
	for i := range 5 {
		if r := get(t, tg, "/api/v1/feedbacks?limit=1"); r.Status != 200 {
			t.Fatalf("request %d: %d", i+1, r.Status)
		}
	}
	r := get(t, tg, "/api/v1/feedbacks?limit=1")
	CheckError(t, "6th request", r, 429, mock.CodeRateLimited, "")
	// The window's 10 s began with the first request: what is left of
	// it, in whole seconds up; all of it where the clock stands still.
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if want := 10; err != nil || ra > want || ra < 1 || (!tg.RealClock() && ra != want) {
		t.Errorf("Retry-After = %q, want 10 where the clock stands still, 1 to 10 where it runs", r.Header.Get("Retry-After"))
	}
	if r := get(t, tg, "/api/v1/feedbacks?limit=1", mock.HeaderSession, "other"); r.Status != 200 {
		t.Errorf("another session is limited too: %d", r.Status)
	}
}

func unauthorized(t *testing.T, tg Target) {
	r := get(t, tg, "/api/v1/feedbacks")
	CheckError(t, "no token", r, 401, mock.CodeUnauthorized, "")
	if !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("WWW-Authenticate = %q", r.Header.Get("WWW-Authenticate"))
	}
	CheckError(t, "wrong token", get(t, tg, "/api/v1/feedbacks", "Authorization", "Bearer demo-tokens"), 401, mock.CodeUnauthorized, "")
	CheckError(t, "basic auth", get(t, tg, "/api/v1/feedbacks", "Authorization", "Basic ZGVtbzp0b2tlbg=="), 401, mock.CodeUnauthorized, "")
	CheckError(t, "no token after the scheme", get(t, tg, "/api/v1/feedbacks", "Authorization", "Bearer "), 401, mock.CodeUnauthorized, "")
	CheckError(t, "the token glued to the scheme", get(t, tg, "/api/v1/feedbacks", "Authorization", "Bearerdemo-token"), 401, mock.CodeUnauthorized, "")
	// The scheme is case-insensitive (RFC 9110, 11.1).
	for _, auth := range []string{"Bearer demo-token", "bearer demo-token", "BEARER demo-token", "Bearer   demo-token"} {
		if r := get(t, tg, "/api/v1/feedbacks", "Authorization", auth); r.Status != 200 {
			t.Errorf("with %q: %d", auth, r.Status)
		}
	}
	if r := get(t, tg, "/__mock/health"); r.Status != 200 {
		t.Errorf("health needs no API token: %d", r.Status)
	}
}

func down(t *testing.T, tg Target) {
	for _, target := range []string{"/api/v1/feedbacks", "/api/v1/settings/ai", "/api/v1/nope"} {
		r := get(t, tg, target)
		CheckError(t, target, r, 503, mock.CodeServiceUnavailable, "")
		if r.Header.Get("Retry-After") != "30" {
			t.Errorf("%s: Retry-After = %q", target, r.Header.Get("Retry-After"))
		}
	}
}

// brokenJSON: the headers and 200 arrive, then the body ends early.
func brokenJSON(t *testing.T, tg Target) {
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/feedbacks", nil)
	resp, err := tg.Send(t, req, nil)
	if err != nil {
		t.Fatalf("headers should arrive: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) || resp.StatusCode != 200 {
		t.Errorf("status %d, read %d bytes, err %v; want 200 and an unexpected EOF", resp.StatusCode, len(body), err)
	}
}

// connectionDrops: the connection closes with no answer; a balancer in
// front answers its own 502 for it (and sends the request nowhere else).
// Either way the server met the request once and answered nothing.
func connectionDrops(t *testing.T, tg Target) {
	req, _ := http.NewRequest(http.MethodGet, "/api/v1/feedbacks", nil)
	resp, err := tg.Send(t, req, nil)
	switch {
	case !tg.Balanced() && err == nil:
		resp.Body.Close()
		t.Fatalf("got status %d, want a connection error", resp.StatusCode)
	case tg.Balanced() && err != nil:
		t.Fatalf("through the balancer: %v, want its 502", err)
	case tg.Balanced():
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var env struct {
			Error struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if resp.StatusCode != http.StatusBadGateway || json.Unmarshal(body, &env) != nil || env.Error.Code != mock.CodeBadGateway {
			t.Errorf("through the balancer: %d %s, want its 502 envelope (%s)", resp.StatusCode, body, mock.CodeBadGateway)
		}
	}
	entries := awaitJournal(t, tg, "", func(e []mock.JournalEntry) bool { return len(e) > 0 })
	if len(entries) != 1 || entries[0].Status != 0 || !strings.Contains(entries[0].Fault, "drop") {
		t.Errorf("journal %+v: want the one request, dropped (status 0)", entries)
	}
}

// gatewayTimeout: five seconds are long for a test: the client gives
// up, and the server's delay ends with it. The client leaves once the
// server has its request (however long a loaded machine takes to get
// there), not at a set time.
func gatewayTimeout(t *testing.T, tg Target) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/feedbacks", nil)
	req.Header.Set(mock.HeaderSession, "gw")
	resp, err := tg.Send(t, req, func() { time.AfterFunc(50*time.Millisecond, cancel) })
	if err == nil {
		resp.Body.Close()
		t.Fatalf("status %d before the delay ended", resp.StatusCode)
	}
	entries := awaitJournal(t, tg, "gw", func(e []mock.JournalEntry) bool {
		return len(e) == 1 && strings.Contains(e[0].Fault, "gateway-timeout: latency error 504 (client gone)")
	})
	if len(entries) != 1 || !strings.Contains(entries[0].Fault, "gateway-timeout: latency error 504 (client gone)") {
		t.Fatalf("journal %+v: want the request ended when the client left", entries)
	}
	if entries[0].DurationMS >= 5000 {
		t.Fatalf("the request took %.0f ms: it waited out the delay though its client left", entries[0].DurationMS)
	}
}

// awaitJournal reads session's journal of the list until done holds of
// it, for 3 s at most, and answers the last reading.
func awaitJournal(t *testing.T, tg Target, session string, done func([]mock.JournalEntry) bool) []mock.JournalEntry {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		entries := journal(t, tg, session)
		if done(entries) || time.Now().After(deadline) {
			return entries
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func settingsSaveFails(t *testing.T, tg Target) {
	CheckError(t, "PATCH", patch(t, tg, `{}`), 500, mock.CodeInternal, "")
	if r := get(t, tg, "/api/v1/settings/ai"); r.Status != 200 {
		t.Errorf("GET: %d", r.Status)
	}
}

// demo: a real clock, which a test moves an hour ahead: 30 reviews
// arrive, one every 2 minutes. Where the clock runs, the time the test
// takes may bring the next one too.
func demo(t *testing.T, tg Target) {
	start := time.Now()
	before := counts(t, tg).Total
	DecodeOK(t, "advance", admin(t, tg, "POST", "/__mock/clock", `{"advance":"1h"}`), new(mock.Clock))
	got := counts(t, tg).Total
	most := before + 30
	if tg.RealClock() {
		most += int(math.Ceil(time.Since(start).Hours() * 30))
	}
	if got < before+30 || got > most {
		t.Errorf("total %d after an hour, want %d (to %d on a running clock)", got, before+30, most)
	}
}

func demoFrozen(t *testing.T, tg Target) {
	before := counts(t, tg)
	DecodeOK(t, "turn on auto", patch(t, tg, `{"feedback":[{"rating":5,"reply_mode":"auto"}]}`), new(mock.Settings))
	if c := counts(t, tg); c != before {
		t.Errorf("a frozen clock moved by itself: %+v -> %+v", before, c)
	}
	DecodeOK(t, "advance", admin(t, tg, "POST", "/__mock/clock", `{"advance":"1h"}`), new(mock.Clock))
	if c := counts(t, tg); c.Total != before.Total+30 || c.Answered <= before.Answered {
		t.Errorf("after an hour: %+v, want 30 more reviews and more answered than %d", c, before.Answered)
	}
}

func strictTones(t *testing.T, tg Target) {
	CheckError(t, "tone", patch(t, tg, `{"feedback":[{"rating":1,"tone":"sarcastic"}]}`), 400, mock.CodeInvalidBody, "feedback[0].tone")
	DecodeOK(t, "tone", patch(t, tg, `{"feedback":[{"rating":1,"tone":"neutral"}]}`), new(mock.Settings))
}

// liveShopRaces: an offset walk of the list sees reviews twice, the read
// right after a save shows the settings before it, and the counts beside
// the list disagree with it at times.
func liveShopRaces(t *testing.T, tg Target) {
	const session = "races-1"
	seen, repeats := make(map[int64]bool), 0
	for offset := 0; offset < 200; offset += 20 {
		var d listData
		DecodeOK(t, "page", get(t, tg, fmt.Sprintf("/api/v1/feedbacks?offset=%d&limit=20", offset), mock.HeaderSession, session), &d)
		for _, f := range d.Feedbacks {
			if seen[f.ID] {
				repeats++
			}
			seen[f.ID] = true
		}
	}
	if repeats == 0 {
		t.Error("an offset walk of 10 pages saw no review twice")
	}
	var set mock.Settings
	DecodeOK(t, "save", patch(t, tg, `{"feedback":[{"rating":3,"signature":"Сохранено"}]}`), &set)
	DecodeOK(t, "reload", get(t, tg, "/api/v1/settings/ai"), &set)
	if set.Feedback[2].Signature == "Сохранено" {
		t.Error("the read right after the save showed it")
	}
	lagged := 0
	for range 6 {
		c := counts(t, tg, mock.HeaderSession, session)
		var d listData
		DecodeOK(t, "list", get(t, tg, "/api/v1/feedbacks?limit=1", mock.HeaderSession, session), &d)
		if c.Total != d.Total {
			lagged++
		}
	}
	if lagged == 0 {
		t.Error("the counts never lagged the list in 6 reads")
	}
	var d listData
	DecodeOK(t, "unanswered", get(t, tg, "/api/v1/feedbacks?answered=0&limit=100", mock.HeaderSession, session), &d)
	if !slices.ContainsFunc(d.Feedbacks, func(f mock.Feedback) bool { return f.AnswerState == "rejected" && f.AnswerText != "" }) {
		t.Error("no rejected answer is back among the unanswered")
	}
}
