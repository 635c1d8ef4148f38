package mock_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/replymock/replymock/mock"
)

// The control panel tells the truth and keeps it on screen: these run it
// in headless Chromium (browser_test.go's newBrowser).

// evalIn evaluates js in the page, failing the test on an error.
func evalIn[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// send makes a request to the server and fails the test unless it is
// answered with want.
func send(t *testing.T, method, url, body string, want int) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != want {
		t.Fatalf("%s %s: %d, want %d", method, url, resp.StatusCode, want)
	}
}

// An error stays on screen while the page's polls run (the log's each
// second, the rest's each five), until it is dismissed, replaced by the
// next action's error, or taken away by an action that works. A poll's
// own error (the journal failing) shows while it lasts and goes by
// itself; it never takes away an action's.
func TestPanelKeepsErrorsOnScreen(t *testing.T) {
	ctx := newBrowser(t)
	var journalDown atomic.Bool
	s := newServer(t, mock.Options{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if journalDown.Load() && r.URL.Path == "/__mock/requests" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"success":false,"data":null,"error":{"code":"service_unavailable","message":"journal down for the test"}}`))
			return
		}
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == "default" }); err != nil {
		t.Fatal(err)
	}
	banner := func() string {
		return evalIn[string](t, ctx, `document.getElementById("error-box").hidden ? "(hidden)" : document.getElementById("error").textContent`)
	}
	upload := func(text string) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "broken.yaml")
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#snapshot-file"), []string{file})); err != nil {
			t.Fatal(err)
		}
	}
	upload("format: nope\n")
	first, err := waitText(ctx, "#error", func(s string) bool { return strings.HasPrefix(s, "format: must be") })
	if err != nil {
		t.Fatal(err)
	}
	// Both polls run after it: the log shows a new request, the settings
	// table a change, and the error is still there.
	send(t, "GET", ts.URL+"/api/v1/feedbacks?limit=1&from=after-the-error", "", 200)
	send(t, "PATCH", ts.URL+"/api/v1/settings/ai", `{"question":{"signature":"changed after the error"}}`, 200)
	if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.Contains(s, "from=after-the-error") }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#settings-body", func(s string) bool { return strings.Contains(s, "changed after the error") }); err != nil {
		t.Fatal(err)
	}
	if got := banner(); got != first {
		t.Errorf("after the polls ran, the banner says %q, want the error %q", got, first)
	}
	screenshot(t, ctx, "panel-error-kept")
	// Dismissed, it goes.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#error-dismiss"))); err != nil {
		t.Fatal(err)
	}
	if got := banner(); got != "(hidden)" {
		t.Errorf("dismissed, the banner still says %q", got)
	}
	// The next action's error replaces the one before; an action that
	// works takes it away.
	upload("format: nope\n")
	if _, err := waitText(ctx, "#error", func(s string) bool { return strings.HasPrefix(s, "format: must be") }); err != nil {
		t.Fatal(err)
	}
	upload("{not yaml: [")
	if _, err := waitText(ctx, "#error", func(s string) bool { return s != "" && !strings.HasPrefix(s, "format: must be") }); err != nil {
		t.Errorf("a second error did not replace the first: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(string) bool { return banner() == "(hidden)" }); err != nil {
		t.Errorf("after Heal worked, the banner still says %q", banner())
	}
	// A poll's error shows while it lasts and goes by itself.
	journalDown.Store(true)
	if _, err := waitText(ctx, "#error", func(s string) bool { return s == "journal down for the test" }); err != nil {
		t.Fatal(err)
	}
	journalDown.Store(false)
	if _, err := waitText(ctx, "#log-body", func(string) bool { return banner() == "(hidden)" }); err != nil {
		t.Errorf("the journal works again, and the banner still says %q", banner())
	}
	// An action's error outlives a poll's recovery.
	journalDown.Store(true)
	if _, err := waitText(ctx, "#error", func(s string) bool { return s == "journal down for the test" }); err != nil {
		t.Fatal(err)
	}
	upload("format: nope\n")
	if _, err := waitText(ctx, "#error", func(s string) bool { return strings.HasPrefix(s, "format: must be") }); err != nil {
		t.Fatal(err)
	}
	journalDown.Store(false)
	send(t, "GET", ts.URL+"/api/v1/feedbacks?limit=1&from=journal-back", "", 200)
	if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.Contains(s, "from=journal-back") }); err != nil {
		t.Fatal(err)
	}
	if got := banner(); !strings.HasPrefix(got, "format: must be") {
		t.Errorf("the journal's recovery took away the action's error: the banner says %q", got)
	}
}

// In read-only mode, every control that would change the server is off
// and says why, the note under the header says what still happens, and
// what only reads (the scenario list, a snapshot saved) stays on. A
// server without an admin token offers no token control; a server not
// read-only leaves the controls on.
func TestPanelReadOnly(t *testing.T) {
	ctx := newBrowser(t)
	var writes atomic.Int64 // requests that could change something
	s := newServer(t, mock.Options{ReadOnly: true, Scenario: "demo-frozen"})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions {
			writes.Add(1)
		}
		s.ServeHTTP(w, r)
	}))
	defer ts.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/"), chromedp.WaitVisible(chromedp.CSS("#read-only-note"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return s != "" }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#shop-clock", func(s string) bool { return s != "" }); err != nil {
		t.Fatal(err)
	}
	controls := []string{"scenario-switch", "latency", "latency-apply", "error-rate", "error-status", "error-apply", "drop",
		"rate-limit", "rate-requests", "rate-window", "auth", "strict", "heal", "clear-log", "reset",
		"shop-advance", "shop-advance-apply", "snapshot-restore"}
	state := func(id string) string {
		return evalIn[string](t, ctx, `(() => { const e = document.getElementById("`+id+`"); return e.disabled + " | " + (e.title || ""); })()`)
	}
	for _, id := range controls {
		if got := state(id); got != "true | Off: this server is read-only (--read-only)" {
			t.Errorf("#%s in read-only mode: disabled | title = %q", id, got)
		}
	}
	for _, id := range []string{"scenario-select", "snapshot-save", "lang"} {
		if got := state(id); !strings.HasPrefix(got, "false") {
			t.Errorf("#%s, which only reads, is off in read-only mode: %q", id, got)
		}
	}
	note := evalIn[string](t, ctx, `document.getElementById("read-only-note").textContent`)
	if !strings.Contains(note, "--read-only") || !strings.Contains(note, "clock runs") {
		t.Errorf("the read-only note says %q", note)
	}
	if hidden := evalIn[bool](t, ctx, `document.getElementById("token-button").hidden`); !hidden {
		t.Error("a server without an admin token shows the token control")
	}
	// A click on an off control sends nothing, and shows no error.
	for _, id := range []string{"heal", "scenario-switch", "shop-advance-apply"} {
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#"+id))); err != nil {
			t.Fatal(err)
		}
	}
	send(t, "GET", ts.URL+"/api/v1/feedbacks?limit=1&from=after-the-clicks", "", 200)
	if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.Contains(s, "from=after-the-clicks") }); err != nil {
		t.Fatal(err)
	}
	if n := writes.Load(); n != 0 {
		t.Errorf("clicks on off controls sent %d writes to the server", n)
	}
	if hidden := evalIn[bool](t, ctx, `document.getElementById("error-box").hidden`); !hidden {
		t.Error("clicks on off controls show an error")
	}
	screenshot(t, ctx, "panel-read-only")

	// Not read-only: the note is hidden and the controls are on.
	ts2 := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts2.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts2.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return s != "" }); err != nil {
		t.Fatal(err)
	}
	for _, id := range controls {
		if got := state(id); got != "false | " {
			t.Errorf("#%s on a server that is not read-only: disabled | title = %q", id, got)
		}
	}
	if hidden := evalIn[bool](t, ctx, `document.getElementById("read-only-note").hidden`); !hidden {
		t.Error("the read-only note shows on a server that is not read-only")
	}
}

// Long texts in the newest reviews end with an ellipsis after a whole
// word and open whole; the page's polls keep them open.
func TestPanelClipsLongTexts(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	long := strings.Repeat("Плед очень мягкий и тёплый, после стирки не скатался и не полинял. ", 4) +
		"\n\nДоставка заняла два дня, упаковано аккуратно, продавцу спасибо за открытку."
	answer := strings.Repeat("Спасибо за подробный отзыв, нам очень приятно, что покупка понравилась! ", 3)
	body, _ := json.Marshal(map[string]any{"mode": "replace", "reviews": []map[string]any{{"product_valuation": 5, "text": long, "answer_text": answer, "user_name": "Анна"}}})
	send(t, "PUT", ts.URL+"/__mock/data?session=default", string(body), 200)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#sample li .clip", func(s string) bool { return s != "" }); err != nil {
		t.Fatal(err)
	}
	clips := evalIn[[]string](t, ctx, `[...document.querySelectorAll("#sample li .clip")].map((e) => e.textContent)`)
	if len(clips) != 2 {
		t.Fatalf("the review shows %d texts, want its text and its answer: %q", len(clips), clips)
	}
	for i, full := range []string{long, answer} {
		flat := strings.Join(strings.Fields(full), " ")
		got := clips[i]
		cut, ok := strings.CutSuffix(got, "…")
		if !ok || !strings.HasPrefix(flat, cut) || utf8.RuneCountInString(got) > 140 {
			t.Errorf("text %d shows %q: not a start of the text with an ellipsis, within 140 characters", i, got)
			continue
		}
		next, _ := utf8.DecodeRuneInString(flat[len(cut):])
		last, _ := utf8.DecodeLastRuneInString(cut)
		if unicode.IsLetter(next) && unicode.IsLetter(last) {
			t.Errorf("text %d is cut inside a word: %q | %q", i, cut, flat[len(cut):len(cut)+10])
		}
	}
	// Opened, the text shows whole, paragraphs kept; the button closes it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#sample li button.link"))); err != nil {
		t.Fatal(err)
	}
	whole := evalIn[string](t, ctx, `document.querySelector("#sample li .clip").textContent + " | " + document.querySelector("#sample li button.link").textContent`)
	if whole != long+" | Show less" {
		t.Errorf("opened, the review shows %q, want its whole text and Show less", whole)
	}
	screenshot(t, ctx, "panel-long-text-open")
	// The refresh redraws the list; the text stays open.
	send(t, "PATCH", ts.URL+"/api/v1/settings/ai", `{"question":{"signature":"a refresh happened"}}`, 200)
	if _, err := waitText(ctx, "#settings-body", func(s string) bool { return strings.Contains(s, "a refresh happened") }); err != nil {
		t.Fatal(err)
	}
	if got := evalIn[string](t, ctx, `document.querySelector("#sample li .clip").textContent`); got != long {
		t.Errorf("after a refresh, the opened text shows %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#sample li button.link"))); err != nil {
		t.Fatal(err)
	}
	if got := evalIn[string](t, ctx, `document.querySelector("#sample li .clip").textContent`); !strings.HasSuffix(got, "…") {
		t.Errorf("closed again, the text shows %q", got)
	}
}

// Every time on the page (the shop's clock, a review's date, the log's
// times) is in one format, the viewer's locale, and the viewer's time
// zone: a browser in en-US shows 12-hour times everywhere, one in ru-RU
// in Moscow 24-hour times three hours past the API's UTC. A scenario's
// description reads alone, its base on a line of its own.
func TestPanelTimesInOneFormat(t *testing.T) {
	for _, c := range []struct {
		name, lang, tz string
		time           *regexp.Regexp
		hourOffset     int
	}{
		{"en-US", "en-US", "UTC", regexp.MustCompile(`^\d{1,2}:\d{2}:\d{2}\s?[AP]M$`), 0},
		{"ru-RU", "ru-RU", "Europe/Moscow", regexp.MustCompile(`^\d{2}:\d{2}:\d{2}$`), 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := newBrowser(t, chromedp.Flag("accept-lang", c.lang), chromedp.Flag("lang", c.lang), chromedp.Env("TZ="+c.tz))
			ts := httptest.NewServer(newServer(t, mock.Options{Scenario: "demo-frozen"}))
			defer ts.Close()
			if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
				t.Fatal(err)
			}
			send(t, "GET", ts.URL+"/api/v1/feedbacks?limit=1", "", 200)
			if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.Contains(s, "/api/v1/feedbacks") }); err != nil {
				t.Fatal(err)
			}
			if _, err := waitText(ctx, "#shop-clock", func(s string) bool { return s != "" }); err != nil {
				t.Fatal(err)
			}
			if _, err := waitText(ctx, "#sample", func(s string) bool { return s != "" }); err != nil {
				t.Fatal(err)
			}
			got := evalIn[map[string]string](t, ctx, `(() => ({
				clock: document.getElementById("shop-clock").textContent,
				clockRaw: document.getElementById("shop-clock").title,
				review: document.querySelector("#sample time").textContent,
				log: document.querySelector("#log-body tr td:nth-child(4)").textContent,
			}))()`)
			timeOf := func(s string) string { // the time after the date
				i := strings.LastIndex(s, ", ")
				return s[i+2:]
			}
			for what, s := range map[string]string{"the shop's clock": timeOf(got["clock"]), "a review's date": timeOf(got["review"]), "the log": got["log"]} {
				if !c.time.MatchString(s) {
					t.Errorf("%s shows the time %q, want the %s format (%s)", what, s, c.lang, c.time)
				}
			}
			var clock mock.Clock
			resp, err := http.Get(ts.URL + "/__mock/clock")
			if err != nil {
				t.Fatal(err)
			}
			err = json.NewDecoder(resp.Body).Decode(&struct{ Data *mock.Clock }{&clock})
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			if got["clockRaw"] != clock.Now+" UTC" {
				t.Errorf("the clock's title is %q, want the API's %q UTC", got["clockRaw"], clock.Now)
			}
			// The hour shown, on 24 hours, is the API's in the viewer's zone.
			shown := timeOf(got["clock"])
			h, _ := strconv.Atoi(shown[:strings.Index(shown, ":")])
			if strings.HasSuffix(shown, "PM") && h != 12 {
				h += 12
			} else if strings.HasSuffix(shown, "AM") && h == 12 {
				h = 0
			}
			utc, _ := strconv.Atoi(clock.Now[11:13])
			if want := (utc + c.hourOffset) % 24; h != want {
				t.Errorf("in %s, the clock shows %q for the API's %s UTC, want the hour %d", c.tz, got["clock"], clock.Now, want)
			}
			screenshot(t, ctx, "panel-times-"+c.name)

			// The description alone, its base apart.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("scenario-select"); s.value = "flaky"; s.dispatchEvent(new Event("change")); return true; })()`)); err != nil {
				t.Fatal(err)
			}
			desc := evalIn[string](t, ctx, `document.getElementById("scenario-description").textContent + " | " + document.getElementById("scenario-extends").textContent`)
			if strings.Contains(desc, "(") || !strings.HasSuffix(desc, "default.") {
				t.Errorf("flaky's description reads %q", desc)
			}
		})
	}
}
