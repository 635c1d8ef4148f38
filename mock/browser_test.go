package mock_test

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/replymock/replymock/mock"
)

const chromiumPath = "/usr/bin/chromium"

// newBrowser starts headless Chromium for one test. Without Chromium the
// test is skipped with a message, unless REPLYMOCK_REQUIRE_BROWSER is set
// (as CI does), when it fails.
func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		if os.Getenv("REPLYMOCK_REQUIRE_BROWSER") != "" {
			t.Fatalf("browser tests need %s (apt-get install chromium): %v", chromiumPath, err)
		}
		t.Skipf("browser tests need %s (apt-get install chromium); skipped", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.UserDataDir(t.TempDir()), chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true), chromedp.WindowSize(1366, 900))
	opts = append(opts, extra...)
	// Started here, not by the test's first action: on a loaded machine
	// Chromium now and then exits before it listens, which says nothing
	// of the page; it is started again, up to three times in all.
	for attempt := 1; ; attempt++ {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelC := chromedp.NewContext(actx)
		ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
		err := chromedp.Do(ctx)
		if err == nil {
			t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
			return ctx
		}
		cancelT()
		cancelC()
		cancelA()
		if attempt == 3 || !strings.Contains(err.Error(), "chrome failed to start") {
			t.Fatalf("starting Chromium (attempt %d): %v", attempt, err)
		}
		t.Logf("Chromium exited before it listened (attempt %d); starting it again: %v", attempt, err)
	}
}

// screenshot saves the page as an artifact: in $REPLYMOCK_ARTIFACTS, or a
// temporary folder named in the test log.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("REPLYMOCK_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "replymock-artifacts")
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100 gives a PNG
	if err != nil {
		t.Errorf("screenshot: %v", err)
		return
	}
	path := filepath.Join(dir, "screenshots", name+".png")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// waitText waits until the element's text satisfies ok.
func waitText(ctx context.Context, sel string, ok func(string) bool) (string, error) {
	for {
		text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			return text, err
		}
		if ok(text) {
			return text, nil
		}
		select {
		case <-ctx.Done():
			return text, fmt.Errorf("waiting for %s: last text %q: %w", sel, text, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func countsOver(t *testing.T, base string) countsData {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/feedbacks?counts_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var c countsData
	body, err := io.ReadAll(resp.Body)
	if err != nil || decodeQuiet(body, &c) != nil {
		t.Fatalf("counts: %d %s: %v", resp.StatusCode, body, err)
	}
	return c
}

// Switching the scenario in the page switches what the API answers.
func TestPanelSwitchesScenario(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="empty-shop"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,009" || s == "1009" }); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "panel-default")
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#scenario-select"), "empty-shop"),
		chromedp.Click(chromedp.CSS("#scenario-switch")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == "empty-shop" }); err != nil {
		t.Fatal(err)
	}
	if c := countsOver(t, ts.URL); c.Total != 0 {
		t.Errorf("after the switch in the page the API serves %d reviews, want empty-shop's 0", c.Total)
	}
	screenshot(t, ctx, "panel-empty-shop")
}

// An error fault added in the page fails the API, and the page's log
// shows the failing request.
func TestPanelAddsErrorFault(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	req, _ := http.NewRequest(http.MethodPatch, ts.URL+"/api/v1/settings/ai", strings.NewReader(`{"question":{"signature":"kept after heal"}}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PATCH: %v %v", resp, err)
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="default"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// A control being edited survives the page's poll: set it as a person
	// would, run the poll, and only then apply.
	edited, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(async () => {
		const rate = document.getElementById("error-rate"), status = document.getElementById("error-status");
		rate.value = "100"; rate.dispatchEvent(new Event("input"));
		status.value = "503"; status.dispatchEvent(new Event("change"));
		rate.blur(); status.blur();
		await loadFaults();
		return rate.value + " " + status.value;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if edited != "100 503" {
		t.Fatalf("the poll overwrote the controls being edited: %q, want \"100 503\"", edited)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#error-apply"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "error 503") }); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(ts.URL + "/api/v1/feedbacks?limit=1&from=test")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("API status after the page's fault: %d, want 503", resp.StatusCode)
	}
	if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.Contains(s, "from=test") && strings.Contains(s, "503") }); err != nil {
		t.Fatal(err)
	}
	// The row opens the whole request and answer.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#log-body tr`)), chromedp.WaitVisible(chromedp.CSS("#log-detail")))
	if err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "#detail-response", func(s string) bool { return strings.Contains(s, "service_unavailable") }); err != nil {
		t.Errorf("detail: %q: %v", text, err)
	}
	screenshot(t, ctx, "panel-error-fault")
	// Heal: the faults go; the setting patched before and the log stay.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "none") }); err != nil {
		t.Fatal(err)
	}
	if c := countsOver(t, ts.URL); c.Total == 0 {
		t.Error("the API still fails after healing in the page")
	}
	resp, err = http.Get(ts.URL + "/api/v1/settings/ai")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "kept after heal") {
		t.Errorf("heal reset the patched settings: %s", body)
	}
	if text, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("#log-body"))); err != nil || !strings.Contains(text, "from=test") {
		t.Errorf("heal cleared the request log: %q %v", text, err)
	}
}

// The panel fits a phone and a laptop: no horizontal scroll, a header of
// a few lines, and each log row's status and path on screen.
func TestPanelFitsTheScreen(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	for i := range 5 {
		resp, err := http.Get(fmt.Sprintf("%s/api/v1/feedbacks?limit=%d&search=%s", ts.URL, i+1, strings.Repeat("длинный-поиск-", 8)))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for _, tc := range []struct {
		width int64
		lang  string
	}{{360, "en"}, {360, "ru"}, {390, "en"}, {390, "ru"}, {1366, "en"}, {1366, "ru"}} {
		width := tc.width
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, 844), chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(localStorage.setItem("replymock-lang", "`+tc.lang+`"), true)`)); err != nil {
			t.Fatal(err)
		}
		err := chromedp.Do(ctx,
			chromedp.Navigate(ts.URL+"/__mock/"),
			chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="default"]`)),
			chromedp.WaitReady(chromedp.CSS(`#log-body tr`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		// The page speaks the language picked, and only it.
		words, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.lang + " " + document.getElementById("faults-title").textContent`))
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"en": "en Break and heal", "ru": "ru Сломать и починить"}[tc.lang]; words != want {
			t.Errorf("at %d px in %s: %q, want %q", width, tc.lang, words, want)
		}
		layout, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`(() => {
			const row = document.querySelector("#log-body tr"), vw = document.documentElement.clientWidth;
			const status = row.cells[0].getBoundingClientRect(), path = row.cells[2].getBoundingClientRect();
			const wrap = document.querySelector("#log").closest(".table-wrap").getBoundingClientRect();
			return {viewport: vw, scroll: document.documentElement.scrollWidth, header: document.querySelector("header").offsetHeight,
				statusRight: Math.min(status.right, wrap.right), pathLeft: path.left, wrapRight: wrap.right};
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("at %d px in %s", width, tc.lang)
		if layout["scroll"] > layout["viewport"] {
			t.Errorf("%s: the page scrolls sideways: %v px of content in %v", what, layout["scroll"], layout["viewport"])
		}
		if layout["header"] > 120 {
			t.Errorf("%s: the header is %v px high, want a few lines", what, layout["header"])
		}
		if layout["statusRight"] > layout["viewport"] || layout["pathLeft"] >= layout["wrapRight"] {
			t.Errorf("%s: a log row's status or path is off screen: %v", what, layout)
		}
		screenshot(t, ctx, fmt.Sprintf("panel-%dpx-%s", width, tc.lang))
	}
}

// The page speaks the browser's language until a person picks another
// in the header: Russian for a Russian browser, with the scenarios'
// Russian descriptions, then English with their English ones, kept
// across a reload.
func TestPanelSpeaksTheBrowsersLanguage(t *testing.T) {
	ctx := newBrowser(t, chromedp.Flag("accept-lang", "ru-RU,ru"), chromedp.Flag("lang", "ru-RU"))
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	text := func(js string) string {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if nav := text(`navigator.language`); !strings.HasPrefix(nav, "ru") {
		t.Fatalf("the browser's language is %q; the test needs a Russian one", nav)
	}
	desc, err := waitText(ctx, "#scenario-description", func(s string) bool { return s != "" })
	if err != nil {
		t.Fatal(err)
	}
	if got := text(`document.documentElement.lang + " | " + document.getElementById("heal").textContent`); got != "ru | Починить: убрать все сбои и переключатели" || !strings.HasPrefix(desc, "Магазин с годом отзывов") {
		t.Errorf("in a Russian browser: %q, description %q", got, desc)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool {
		return strings.Contains(s, "ничего: API отвечает как должно")
	}); err != nil {
		t.Error(err)
	}
	screenshot(t, ctx, "panel-ru")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById("lang"); s.value = "en"; s.dispatchEvent(new Event("change")); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	if desc, err := waitText(ctx, "#scenario-description", func(s string) bool { return strings.HasPrefix(s, "A shop with a year of reviews") }); err != nil {
		t.Errorf("after picking English, the description is %q: %v", desc, err)
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#faults-title", func(s string) bool { return s == "Break and heal" }); err != nil {
		t.Errorf("English was not kept across a reload: %v", err)
	}
}

// With an admin token, the page asks for it and then works.
func TestPanelAsksForAdminToken(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{AdminToken: "s3cret"}))
	defer ts.Close()
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitVisible(chromedp.CSS("#token-input")),
	)
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "panel-token-prompt")
	// The token control is offered where a token is needed.
	if hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("token-button").hidden`)); err != nil || hidden {
		t.Errorf("a server with an admin token hides the token control (%v)", err)
	}
	err = chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS("#token-input"), "s3cret"),
		chromedp.Click(chromedp.CSS("#token-save")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == "default" }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#settings-body", func(s string) bool { return strings.Contains(s, "questions") }); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "panel-after-token")
}

// A page on another origin calls PATCH with JSON and Authorization and
// reads the answer: CORS works in a real browser, preflight included.
func TestBrowserCrossOriginPatch(t *testing.T) {
	ctx := newBrowser(t)
	api := httptest.NewServer(newServer(t, mock.Options{Scenario: "unauthorized"}))
	defer api.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><p id="result">waiting</p><script>
fetch(%q + "/api/v1/settings/ai", {method: "PATCH", credentials: "include",
  headers: {"Content-Type": "application/json", "Authorization": "Bearer demo-token", "X-Mock-Session": "browser"},
  body: JSON.stringify({feedback: [{rating: 5, tone: "formal"}]})})
 .then(async r => { const d = await r.json(); document.getElementById("result").textContent = r.status + " " + d.data.feedback[4].tone + " " + r.headers.get("X-Request-Id"); })
 .catch(e => { document.getElementById("result").textContent = "failed: " + e; });
</script>`, api.URL)
	}))
	defer page.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL)); err != nil {
		t.Fatal(err)
	}
	text, err := waitText(ctx, "#result", func(s string) bool { return s != "waiting" })
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "200 formal rm-") {
		t.Errorf("cross-origin PATCH from the page: %q, want 200, the new tone and a readable X-Request-Id", text)
	}
	screenshot(t, ctx, "cors-patch")
}

// A page on another site, in a real browser, steers nothing: its
// cross-origin PATCH, its no-cors long polls and its <img> on the admin
// API are refused before they run; a page on a name rebound to the mock
// (served, as in a container, on a listener that is not loopback) gets
// a 403 for its Host. A page on a local dev origin still PATCHes.
func TestBrowserForeignPageCannotSteer(t *testing.T) {
	ctx := newBrowser(t,
		chromedp.Flag("host-resolver-rules", "MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1"),
		chromedp.Flag("disable-features", "HttpsUpgrades"))
	s := newServer(t, mock.Options{})
	var mu sync.Mutex
	statuses := map[string][]int{} // by path, what the mock answered
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mockSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		s.ServeHTTP(rec, r)
		if r.Method != http.MethodOptions {
			mu.Lock()
			statuses[r.URL.Path] = append(statuses[r.URL.Path], rec.status)
			mu.Unlock()
		}
	})}
	go mockSrv.Serve(containerListener{ln})
	defer mockSrv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	api := "http://localhost:" + port
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if strings.HasPrefix(r.Host, "localhost:") {
			// A page on a local dev origin may still steer: the flow of every day.
			fmt.Fprintf(w, `<!doctype html><p id="result">waiting</p><script>
fetch(%q + "/api/v1/settings/ai", {method: "PATCH", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({question: {signature: "from the dev page"}})})
 .then(r => r.json()).then(d => { document.getElementById("result").textContent = d.data.question.signature; },
   e => { document.getElementById("result").textContent = "failed: " + e; });
</script>`, api)
			return
		}
		fmt.Fprintf(w, `<!doctype html><p id="result">waiting</p><script>
const api = %q;
const patch = fetch(api + "/api/v1/settings/ai", {method: "PATCH", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({question: {signature: "steered"}})}).then(r => "patch " + r.status, e => "patch refused");
const polls = Array.from({length: 50}, (_, i) =>
  fetch(api + "/__mock/verify?path=/never&wait=2s&since=" + i, {mode: "no-cors"}).then(() => "poll", () => "poll failed"));
const img = new Promise(done => { const i = new Image(); i.onload = () => done("img loaded"); i.onerror = () => done("img refused");
  i.src = api + "/__mock/data?scenario=default&session=img"; });
Promise.all([patch, img, ...polls]).then(r => { document.getElementById("result").textContent = r.slice(0, 2).join(", ") + ", " + (r.length - 2) + " polls"; });
</script>`, api)
	}))
	defer page.Close()
	_, pagePort, _ := net.SplitHostPort(page.Listener.Addr().String())
	if err := chromedp.Do(ctx, chromedp.Navigate("http://evil.test:"+pagePort+"/")); err != nil {
		t.Fatal(err)
	}
	text, err := waitText(ctx, "#result", func(s string) bool { return s != "waiting" })
	if err != nil {
		t.Fatal(err)
	}
	if text != "patch refused, img refused, 50 polls" {
		t.Errorf("the foreign page: %q, want its PATCH and image refused", text)
	}
	screenshot(t, ctx, "foreign-page")
	mu.Lock()
	for path, want := range map[string]int{"/__mock/verify": 50, "/__mock/data": 1} {
		got := statuses[path]
		if len(got) != want || slices.ContainsFunc(got, func(st int) bool { return st != http.StatusForbidden }) {
			t.Errorf("%s from the foreign page: answered %v, want %d answers, all 403", path, got, want)
		}
	}
	if got := statuses["/api/v1/settings/ai"]; len(got) != 0 {
		t.Errorf("the foreign page's PATCH reached the mock: %v (its preflight should have stopped it)", got)
	}
	mu.Unlock()
	if r := get(t, s, "/api/v1/settings/ai"); strings.Contains(string(r.body), "steered") {
		t.Error("the foreign page changed the settings")
	}

	// A page on a name rebound to the mock's address reads nothing.
	if err := chromedp.Do(ctx, chromedp.Navigate("http://rebind.test:"+port+"/__mock/requests")); err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "body", func(s string) bool { return s != "" }); err != nil || !strings.Contains(text, `"field":"Host"`) {
		t.Errorf("a rebound name on a container's listener: %q (%v), want the 403 for its Host", text, err)
	}

	// A page on a local dev origin may still steer.
	if err := chromedp.Do(ctx, chromedp.Navigate("http://localhost:"+pagePort+"/")); err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "#result", func(s string) bool { return s != "waiting" }); err != nil || text != "from the dev page" {
		t.Errorf("a local dev page's PATCH: %q (%v)", text, err)
	}
}

// A page on another site reaching the mock by a name that is not this
// machine (a container's service name), where Chromium sends no
// Sec-Fetch-* headers, steers nothing either: its Referer gives it away,
// and without one an admin read that builds a scenario or waits on the
// journal is refused unless a header no page can send marks it.
func TestBrowserForeignPageViaAName(t *testing.T) {
	ctx := newBrowser(t,
		chromedp.Flag("host-resolver-rules", "MAP evil.test 127.0.0.1, MAP mockhost 127.0.0.1"),
		chromedp.Flag("disable-features", "HttpsUpgrades"))
	s := newServer(t, mock.Options{})
	if r := admin(t, s, "POST", "/__mock/faults", `{"times":1,"path":"/feedbacks","error":{"status":503}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	var mu sync.Mutex
	type seen struct {
		path    string
		status  int
		referer string
		fetch   bool // any Sec-Fetch-* header came
	}
	var got []seen
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mockSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		s.ServeHTTP(rec, r)
		mu.Lock()
		got = append(got, seen{r.URL.Path, rec.status, r.Referer(), r.Header.Get("Sec-Fetch-Site") != ""})
		mu.Unlock()
	})}
	go mockSrv.Serve(containerListener{ln})
	defer mockSrv.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	api := "http://mockhost:" + port
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		policy := ""
		if r.URL.Path == "/no-referrer" {
			policy = `<meta name="referrer" content="no-referrer">`
		}
		fmt.Fprintf(w, `<!doctype html>%s<p id="result">waiting</p><script>
const api = %q;
const img = (path) => new Promise(done => { const i = new Image(); i.onload = () => done("loaded"); i.onerror = () => done("refused"); i.src = api + path; });
const bare = (path) => fetch(api + path, {mode: "no-cors"}).then(() => "sent", () => "failed");
Promise.all([img("/__mock/data?scenario=big-shop"), img("/__mock/clock?scenario=demo"),
  bare("/__mock/verify?path=/never&wait=2s"), bare("/api/v1/feedbacks?limit=1")])
 .then(r => { document.getElementById("result").textContent = r.join(", "); });
</script>`, policy, api)
	}))
	defer page.Close()
	_, pagePort, _ := net.SplitHostPort(page.Listener.Addr().String())
	visit := func(path string) map[string]seen {
		t.Helper()
		mu.Lock()
		got = nil
		mu.Unlock()
		if err := chromedp.Do(ctx, chromedp.Navigate("http://evil.test:"+pagePort+path)); err != nil {
			t.Fatal(err)
		}
		if _, err := waitText(ctx, "#result", func(s string) bool { return s != "waiting" }); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		by := map[string]seen{}
		for _, g := range got {
			if g.fetch {
				t.Logf("%s came with Sec-Fetch-*: the browser treats the name as trustworthy, and this test proves less", g.path)
			}
			by[g.path] = g
		}
		return by
	}

	// With a Referer: every request is refused, the API's read too.
	by := visit("/")
	for _, path := range []string{"/__mock/data", "/__mock/clock", "/__mock/verify", "/api/v1/feedbacks"} {
		if g, ok := by[path]; !ok || g.status != http.StatusForbidden || g.referer == "" {
			t.Errorf("%s from the foreign page, with its Referer: %+v (came: %v), want 403", path, g, ok)
		}
	}
	if r := get(t, s, "/api/v1/feedbacks?limit=1"); r.status != http.StatusServiceUnavailable {
		t.Errorf("the default session's one 503 was used up by the page: the next read got %d", r.status)
	}
	screenshot(t, ctx, "foreign-page-by-name")

	// Without a Referer: the admin reads that build or wait are refused;
	// the API's read, which curl sends alike, is served.
	by = visit("/no-referrer")
	for _, path := range []string{"/__mock/data", "/__mock/clock", "/__mock/verify"} {
		if g, ok := by[path]; !ok || g.status != http.StatusForbidden || g.referer != "" {
			t.Errorf("%s from the foreign page, no Referer: %+v (came: %v), want 403", path, g, ok)
		}
	}
	if g := by["/api/v1/feedbacks"]; g.status != http.StatusOK {
		t.Errorf("the API's read without any sign of a page: %+v, want it served", g)
	}
	// A tool, or a helper, calling the name with a header no page sends.
	req := httptest.NewRequest("GET", api+"/__mock/data?scenario=en-shop", nil)
	req.Header.Set("X-Mock-Session", "tool")
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "tcp", ln.Addr().String())
	}}}
	req.RequestURI = ""
	if resp, err := c.Do(req); err != nil || resp.StatusCode != 200 {
		t.Errorf("a tool's read with X-Mock-Session by the name: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// statusRecorder remembers the status a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// A request with warnings shows a marker on its log row, beside the
// status even on a phone, and its warnings when opened; the strict
// switch turns them into 400s.
func TestPanelShowsWarnings(t *testing.T) {
	ctx := newBrowser(t)
	s := newServer(t, mock.Options{})
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, q := range []string{"limit=1", "isAnswered=0&take=100", "limit=2"} {
		resp, err := http.Get(ts.URL + "/api/v1/feedbacks?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#log-body tr .warn-mark`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]any](`[...document.querySelectorAll("#log-body tr")].map((tr) => {
		const mark = tr.querySelector(".warn-mark"), vw = document.documentElement.clientWidth;
		return {path: tr.cells[2].textContent, marked: !!mark, label: mark ? mark.getAttribute("aria-label") : "",
			onScreen: mark ? mark.getBoundingClientRect().right <= vw : true};
	})`))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 {
		t.Fatalf("log rows %v, want 3", rows)
	}
	for _, row := range rows {
		warned := strings.Contains(row["path"].(string), "isAnswered")
		if row["marked"] != warned || warned && (row["label"] != "2 warnings" || row["onScreen"] != true) {
			t.Errorf("log row %v: want a marker, labelled and on screen at 390 px, only on the warned request", row)
		}
	}
	screenshot(t, ctx, "panel-warnings-390px")
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#log-body tr .warn-mark`)), chromedp.WaitVisible(chromedp.CSS("#detail-warnings-box")))
	if err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "#detail-warnings", func(s string) bool {
		return strings.Contains(s, "did you mean `answered`?") && strings.Contains(s, "did you mean `limit`?")
	}); err != nil {
		t.Errorf("opened row's warnings: %q: %v", text, err)
	}
	layout, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]float64](`({viewport: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth})`))
	if err != nil {
		t.Fatal(err)
	}
	if layout["scroll"] > layout["viewport"] {
		t.Errorf("with the warnings open the page scrolls sideways at 390 px: %v", layout)
	}
	screenshot(t, ctx, "panel-warnings-detail")
	// A clean request's row opens without a warnings box.
	err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#log-body tr:first-child td`)), chromedp.WaitNotVisible(chromedp.CSS("#detail-warnings-box")))
	if err != nil {
		t.Fatal(err)
	}
	// The strict switch: the same request now answers 400.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#strict"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "strict: on") }); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(ts.URL + "/api/v1/feedbacks?isAnswered=0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("after the strict switch: status %d, want 400", resp.StatusCode)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "none") }); err != nil {
		t.Fatal(err)
	}
	if o := s.Overrides(); o.Strict != nil {
		t.Errorf("heal left strict at %v", *o.Strict)
	}
}

// The panel tells the truth about a scenario that refuses requests: the
// unauthorized scenario's auth and rate-limited's limit are listed, never
// "the API behaves"; the scenario's auth can be switched off and on.
func TestPanelShowsScenarioAuthAndLimit(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{Scenario: "unauthorized"}))
	defer ts.Close()
	status := func() int {
		resp, err := http.Get(ts.URL + "/api/v1/feedbacks?limit=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	text, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "scenario unauthorized") })
	if err != nil || !strings.Contains(text, "needs its bearer token") || strings.Contains(text, "the API behaves") {
		t.Fatalf("the panel lists %q for the unauthorized scenario (%v)", text, err)
	}
	screenshot(t, ctx, "panel-unauthorized")
	if s := status(); s != 401 {
		t.Fatalf("the unauthorized scenario answers %d, want 401", s)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#fault-list .scenario-auth button"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "switched off") }); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != 200 {
		t.Errorf("with the scenario's auth switched off in the page, the API answers %d, want 200", s)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#fault-list .scenario-auth button"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "needs its bearer token") }); err != nil {
		t.Fatal(err)
	}
	if s := status(); s != 401 {
		t.Errorf("with the scenario's auth back on, the API answers %d, want 401", s)
	}

	// A scenario's rate limit is listed too.
	req, _ := http.NewRequest(http.MethodPut, ts.URL+"/__mock/scenario", strings.NewReader(`{"name":"rate-limited"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("switch to rate-limited: %v %v", resp, err)
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "scenario rate-limited · rate limit:") }); err != nil {
		t.Errorf("the panel lists %q for the rate-limited scenario (%v)", text, err)
	}
	screenshot(t, ctx, "panel-rate-limited")
}

// A living shop moves in the page: its clock is shown, the page moves it
// ahead, and the arrivals show in the counts and the newest reviews
// without a reload. A scenario without a shop shows no clock.
func TestPanelShowsTheLivingShop(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{Scenario: "demo-frozen"}))
	defer ts.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	clock, err := waitText(ctx, "#shop-clock", func(s string) bool { return s != "" })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,009" || s == "1009" }); err != nil {
		t.Fatal(err)
	}
	before, _ := waitText(ctx, "#sample li", func(string) bool { return true })
	err = chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#shop-advance"), "1h"),
		chromedp.Click(chromedp.CSS("#shop-advance-apply")),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,039" || s == "1039" }); err != nil {
		t.Errorf("after an hour of demo-frozen (30 arrivals an hour), the page shows %v reviews", err)
	}
	if after, err := waitText(ctx, "#shop-clock", func(s string) bool { return s != clock }); err != nil {
		t.Errorf("the clock still says %q: %v", after, err)
	}
	if newest, _ := waitText(ctx, "#sample li", func(s string) bool { return s != before }); newest == before {
		t.Errorf("the newest reviews did not change: %q", newest)
	}
	screenshot(t, ctx, "panel-living-shop")

	// Time passing on the server shows within the page's poll, unasked.
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/__mock/clock", strings.NewReader(`{"advance":"2h"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("POST clock: %v %v", resp, err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,099" || s == "1099" }); err != nil {
		t.Errorf("the page did not show the arrivals of two more hours by itself: %v", err)
	}

	// No shop, no clock.
	req, _ = http.NewRequest(http.MethodPut, ts.URL+"/__mock/scenario", strings.NewReader(`{"name":"default"}`))
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("switch to default: %v %v", resp, err)
	}
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == "default" }); err != nil {
		t.Fatal(err)
	}
	// Shown before the reload, for demo-frozen; the page's check for
	// default takes it away (the poll checks again every 5 s).
	state := ""
	for deadline := time.Now().Add(12 * time.Second); state != "true " && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if state, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const s = document.getElementById("shop"); return s.hidden + " " + (s.dataset.scenario || ""); })()`)); err != nil {
			t.Fatal(err)
		}
	}
	if state != "true " {
		t.Errorf("the shop's clock for default, which has no shop: hidden and scenario %q", state)
	}
}

// The panel saves the default session's snapshot as a file, and
// restoring a file brings the session back: a living shop an hour on,
// reset meanwhile, shows its arrivals again.
func TestPanelSavesAndRestoresASnapshot(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{Scenario: "demo-frozen"}))
	defer ts.Close()
	post := func(path, ctype, body string) string {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("POST %s: %v %v", path, resp, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	post("/__mock/clock", "application/json", `{"advance":"1h"}`)
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,039" || s == "1039" }); err != nil {
		t.Fatal(err)
	}
	// Save: the file the page hands the browser is the session's snapshot.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.saved = null; URL.createObjectURL = (b) => { window.saved = b; return "blob:none"; }; true`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#snapshot-save"))); err != nil {
		t.Fatal(err)
	}
	var doc string
	for deadline := time.Now().Add(10 * time.Second); doc == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		doc, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`window.saved ? window.saved.text() : ""`, chromedp.EvalAwaitPromise))
	}
	if !strings.HasPrefix(doc, "format: "+mock.SnapshotFormat) || !strings.Contains(doc, "arrivals:") {
		t.Fatalf("the saved file is not the session's snapshot: %.200s", doc)
	}
	if _, err := waitText(ctx, "#snapshot-status", func(s string) bool { return strings.HasPrefix(s, "Saved replymock-default-") }); err != nil {
		t.Error(err)
	}
	// Reset, then restore the file.
	post("/__mock/reset", "application/json", "")
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,009" || s == "1009" }); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "seen.yaml")
	os.WriteFile(file, []byte(doc), 0o600)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#snapshot-file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#snapshot-status", func(s string) bool { return s == "Restored from seen.yaml." }); err != nil {
		t.Error(err)
	}
	if _, err := waitText(ctx, "#reviews", func(s string) bool { return s == "1,039" || s == "1039" }); err != nil {
		t.Errorf("restored, the page shows %v reviews, want the 1,039 of the snapshot", err)
	}
	screenshot(t, ctx, "panel-snapshot-restored")
	// A broken file is refused with its field, and changes nothing.
	os.WriteFile(file, []byte(strings.Replace(doc, "format: "+mock.SnapshotFormat, "format: nope", 1)), 0o600)
	if err := chromedp.Do(ctx, chromedp.SetUploadFiles(chromedp.CSS("#snapshot-file"), []string{file})); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#error", func(s string) bool { return strings.HasPrefix(s, "format: must be") }); err != nil {
		t.Error(err)
	}
}

// A page on another origin shows a review's photo and plays its video: a
// 12-second playlist, across the discontinuity between its two segments,
// to the end. A Chromium without HLS skips the video.
func TestBrowserShowsMedia(t *testing.T) {
	ctx := newBrowser(t, chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
	api := httptest.NewServer(newDefault(t))
	defer api.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><img id="photo" src="%[1]s/__mock/media/photos/k/1/fs.jpg"><video id="video" muted></video>`, api.URL)
	}))
	defer page.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(page.URL)); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`new Promise(done => {
  const img = document.getElementById("photo"), v = document.getElementById("video");
  const shown = () => img.naturalWidth + "x" + img.naturalHeight;
  if (!v.canPlayType("application/vnd.apple.mpegurl")) { img.decode().then(() => done(shown() + " no HLS")); return; }
  v.onended = () => done(shown() + " ended at " + Math.round(v.currentTime) + " s");
  v.onerror = () => done(shown() + " video error " + v.error.code);
  v.src = "`+api.URL+`/__mock/media/videos/k/12s/index.m3u8";
  v.playbackRate = 4;
  v.play().catch(e => done(shown() + " " + e));
})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got == "450x600 no HLS" {
		t.Skip("this Chromium plays no HLS; the photo showed")
	}
	if got != "450x600 ended at 12 s" {
		t.Errorf("the page: %q, want the photo 450x600 and the video ended at 12 s", got)
	}
}

// At 1280 px the break-and-heal controls read as one piece each: the
// rate limit's window keeps its unit on its line, the bearer token is
// not broken inside, and the action buttons do not touch.
func TestPanelLayoutAt1280(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	for _, lang := range []string{"en", "ru"} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
			t.Fatal(err)
		}
		evalIn[bool](t, ctx, `(localStorage.setItem("replymock-lang", "`+lang+`"), true)`)
		err := chromedp.Do(ctx,
			chromedp.Navigate(ts.URL+"/__mock/"),
			chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="default"]`)),
		)
		if err != nil {
			t.Fatal(err)
		}
		got := evalIn[map[string]any](t, ctx, `(() => {
			const box = (el) => el.getBoundingClientRect();
			// The lines the words "Bearer demo-token" take, wherever they are.
			const code = [...document.querySelectorAll("label code")].find((c) => c.textContent.includes("Bearer demo-token"));
			const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT), range = document.createRange();
			let started = false;
			for (let n = walk.nextNode(); n; n = walk.nextNode()) {
				const at = n.data.indexOf("Bearer");
				if (!started && at >= 0) { range.setStart(n, at); started = true; }
				if (started && n.data.includes("token")) { range.setEnd(n, n.data.indexOf("token") + 5); break; }
			}
			const tokenLines = new Set([...range.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top))).size;
			const win = box(document.getElementById("rate-window")), unit = box(document.querySelector('[data-i18n="seconds-short"]'));
			const buttons = ["heal", "clear-log", "reset"].map((id) => [id, box(document.getElementById(id))]);
			const touching = [];
			for (let i = 0; i < buttons.length; i++) for (let j = i + 1; j < buttons.length; j++) {
				const [a, ra] = buttons[i], [b, rb] = buttons[j];
				const gap = Math.max(rb.left - ra.right, ra.left - rb.right, rb.top - ra.bottom, ra.top - rb.bottom);
				if (gap < 4) touching.push(a + "/" + b + " " + gap.toFixed(1) + " px apart");
			}
			const per = box(document.querySelector('[data-i18n="requests-per"]'));
			return {unitOnWindowLine: unit.top < win.bottom && unit.bottom > win.top && unit.left >= win.right &&
					per.top < win.bottom && per.bottom > win.top && per.right <= win.left,
				tokenLines, touching: touching.join("; "),
				scroll: document.documentElement.scrollWidth - document.documentElement.clientWidth};
		})()`)
		what := "at 1280 px in " + lang
		if got["unitOnWindowLine"] != true {
			t.Errorf("%s: \"requests per [10] s\" is not on one line", what)
		}
		if got["tokenLines"] != float64(1) {
			t.Errorf("%s: \"Bearer demo-token\" takes %v lines, want 1", what, got["tokenLines"])
		}
		if got["touching"] != "" {
			t.Errorf("%s: buttons touch: %v", what, got["touching"])
		}
		if got["scroll"].(float64) > 0 {
			t.Errorf("%s: the page scrolls sideways by %v px", what, got["scroll"])
		}
		screenshot(t, ctx, "panel-1280px-"+lang)
	}
}

// At 400 px a failed request's row says why it failed without a
// sideways scroll: the fault of a failure scenario, and the error code
// of a request the scenario's auth refused, show within the viewport.
func TestPanelShowsWhyARequestFailedAt400(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{}))
	defer ts.Close()
	for _, sc := range []string{"down", "unauthorized"} {
		send(t, http.MethodPut, ts.URL+"/__mock/scenario", `{"name":"`+sc+`"}`, 200)
		resp, err := http.Get(ts.URL + "/api/v1/feedbacks?limit=1&from=" + sc)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	err := chromedp.Do(ctx,
		chromedp.EmulateViewport(400, 844),
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#log-body tr:nth-child(2)`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	rows := evalIn[[]map[string]any](t, ctx, `[...document.querySelectorAll("#log-body tr")].map((tr) => {
		const why = tr.querySelector(".why"), vw = document.documentElement.clientWidth, r = why ? why.getBoundingClientRect() : null;
		const wrap = tr.closest(".table-wrap").getBoundingClientRect();
		return {path: tr.cells[2].firstChild.textContent, status: tr.cells[0].firstChild.textContent, why: why ? why.textContent : "",
			shown: !!r && r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= Math.min(vw, wrap.right) && why.scrollWidth <= why.clientWidth + 1,
			scroll: document.documentElement.scrollWidth - vw};
	})`)
	want := map[string]struct{ status, why string }{
		"/api/v1/feedbacks?limit=1&from=down":         {"503", "down: error 503"},
		"/api/v1/feedbacks?limit=1&from=unauthorized": {"401", "unauthorized"},
	}
	if len(rows) != len(want) {
		t.Fatalf("log rows %v, want %d", rows, len(want))
	}
	for _, row := range rows {
		w, ok := want[row["path"].(string)]
		if !ok || row["status"] != w.status || !strings.HasPrefix(row["why"].(string), w.why) || row["shown"] != true {
			t.Errorf("at 400 px, row %v: want status %s and %q shown whole within the viewport", row, w.status, w.why)
		}
		if row["scroll"].(float64) > 0 {
			t.Errorf("at 400 px the page scrolls sideways by %v px", row["scroll"])
		}
	}
	screenshot(t, ctx, "panel-400px-why-failed")
}

// Heal brings the API back to serving: after a switch to a failure
// scenario, it removes the run-time faults and switches back to the
// scenario the page saw serving (default, or en-shop that the server
// started with), saying what it did; a page that never saw one serving
// heals to the scenario the server started with (health); a server
// started on a failure scenario heals to default.
func TestPanelHealSwitchesBackToServing(t *testing.T) {
	ctx := newBrowser(t)
	status := func(base string) int {
		t.Helper()
		resp, err := http.Get(base + "/api/v1/feedbacks?limit=1")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		started, brokenBefore, breakWith, healed, says string
	}{
		{"default", "", "down", "default", "Healed: removed 1 fault; switched from down to default for every session."},
		{"en-shop", "", "unauthorized", "en-shop", "Healed: removed 1 fault; switched from unauthorized to en-shop for every session."},
		{"en-shop", "down", "", "en-shop", "Healed: removed 1 fault; switched from down to en-shop for every session."},
		{"rate-limited", "", "", "default", "Healed: removed 1 fault; switched from rate-limited to default for every session."},
	} {
		ts := httptest.NewServer(newServer(t, mock.Options{Scenario: tc.started}))
		if tc.brokenBefore != "" { // before the page opens: it never sees the start scenario serve
			send(t, http.MethodPut, ts.URL+"/__mock/scenario", `{"name":"`+tc.brokenBefore+`"}`, 200)
		}
		err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/"), chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="down"]`)))
		if err != nil {
			t.Fatal(err)
		}
		active := cmp.Or(tc.brokenBefore, tc.started)
		if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "none") || strings.Contains(s, "scenario "+active) }); err != nil {
			t.Fatal(err)
		}
		// Each control says what it acts on.
		scopes := evalIn[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("section")].map((s) =>
			[s.getAttribute("aria-labelledby"), [...s.querySelectorAll(".scope")].map((p) => p.textContent).join(" ")]))`)
		for section, want := range map[string]string{"scenario-title": "every session", "faults-title": "every session",
			"data-title": "default session", "log-title": "every session", "settings-title": "default session"} {
			if !strings.Contains(scopes[section], want) {
				t.Errorf("section %s says %q of its scope, want %q", section, scopes[section], want)
			}
		}
		if tc.breakWith != "" {
			err = chromedp.Do(ctx,
				chromedp.SetValue(chromedp.CSS("#scenario-select"), tc.breakWith),
				chromedp.Click(chromedp.CSS("#scenario-switch")))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == tc.breakWith }); err != nil {
				t.Fatal(err)
			}
		}
		send(t, http.MethodPost, ts.URL+"/__mock/faults", `{"method":"PATCH","path":"/settings/ai","error":{"status":500}}`, 201)
		broken := cmp.Or(tc.breakWith, active)
		if broken == "rate-limited" {
			for range 5 { // use up rate-limited's 5 requests
				status(ts.URL)
			}
		}
		if s := status(ts.URL); s < 400 {
			t.Fatalf("%s answers %d before Heal, want a failure", broken, s)
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
			t.Fatal(err)
		}
		if text, err := waitText(ctx, "#heal-status", func(s string) bool { return s != "" }); err != nil || text != tc.says {
			t.Errorf("started on %s, broken with %s, Heal says %q (%v), want %q", tc.started, broken, text, err, tc.says)
		}
		if _, err := waitText(ctx, "#active-scenario", func(s string) bool { return s == tc.healed }); err != nil {
			t.Error(err)
		}
		for i := range 6 {
			if s := status(ts.URL); s != 200 {
				t.Errorf("started on %s, broken with %s, healed: GET /api/v1/feedbacks #%d answers %d, want 200", tc.started, broken, i+1, s)
				break
			}
		}
		if _, err := waitText(ctx, "#log-body", func(s string) bool { return strings.HasPrefix(s, "200") }); err != nil {
			t.Error(err)
		}
		screenshot(t, ctx, "panel-healed-from-"+broken)
		ts.Close()
	}
}

// latinLeft lists the English words the page shows, beyond names: words
// in visible text (and the options of its selects, but the scenario ids,
// error codes and language names) that hold no digit, _, :, =, * or /
// (codes, durations, paths), and are not in names. The API's warnings
// are its own text, as in X-Mock-Warning, and are left out.
const latinLeft = `((names) => {
	const skip = "pre, code, #lang, #scenario-select, #error-status, .sr-only, title, #detail-warnings";
	const texts = [];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walk.nextNode(); n; n = walk.nextNode()) {
		const el = n.parentElement;
		if (!el || el.closest(skip) || el.closest("select") || !el.checkVisibility() || el.getClientRects().length === 0) continue;
		texts.push(n.data);
	}
	document.querySelectorAll("select").forEach((s) => { if (!s.closest(skip) && s.checkVisibility()) s.querySelectorAll("option").forEach((o) => texts.push(o.textContent)); });
	const left = new Set();
	for (const text of texts) {
		for (const w of text.split(/[\s,;()«»"“”—–…]+/)) {
			const whole = w.replace(/^[.:!?'\x60]+|[.:!?'\x60]+$/g, "");
			// A Russian word joined to a name ("bearer-токен") is the name's.
			for (const word of /[а-яё]/i.test(whole) ? whole.split("-") : [whole]) {
				if (!/[A-Za-z]/.test(word) || /[0-9_:=*\/]/.test(word) || names.includes(word)) continue;
				left.add(word);
			}
		}
	}
	return [...left].sort();
})`

// The Russian panel speaks Russian: no English word is left in what it
// shows, beyond names (scenario and fault names, HTTP methods, paths,
// headers, codes and the API's values), with faults, switches, a shop,
// a failed request with warnings opened, Heal's account and a scenario
// with a latency of its own on screen.
func TestPanelRussianHasNoEnglishLeft(t *testing.T) {
	ctx := newBrowser(t)
	ts := httptest.NewServer(newServer(t, mock.Options{Scenario: "demo-frozen"}))
	defer ts.Close()
	send(t, http.MethodPut, ts.URL+"/__mock/faults", `{"name":"panel:latency","latency":{"fixed":"300ms"}}`, 200)
	send(t, http.MethodPost, ts.URL+"/__mock/faults", `{"method":"GET","path":"/feedbacks","after":1,"times":2,"probability":0.5,"error":{"status":503}}`, 201)
	send(t, http.MethodPost, ts.URL+"/__mock/faults", `{"name":"gone","method":"PATCH","path":"/settings/ai","drop":true}`, 201)
	for _, q := range []string{"limit=1", "isAnswered=0&take=1", "limit=2", "limit=3"} {
		resp, err := http.Get(ts.URL + "/api/v1/feedbacks?" + q)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	send(t, http.MethodPut, ts.URL+"/__mock/overrides", `{"auth":{"type":"bearer","tokens":["demo-token"]},"rate_limit":{"requests":5,"window":"10s"},"strict":true}`, 200)
	if resp, err := http.Get(ts.URL + "/api/v1/feedbacks?limit=4"); err == nil {
		resp.Body.Close()
	}
	names := []string{"replymock", "devel", "API", "JSON", "HTTP", "UTC", "GET", "PATCH", "PUT", "POST", "DELETE",
		"Authorization", "Bearer", "bearer", "demo-token", "X-Mock-Session", "X-Mock-Warning", "CI", "session", "read-only", "admin-token", "gone",
		"auto", "semi_auto", "manual", "friendly", "formal", "empathetic", "neutral", "skip", "template", "generate"}
	check := func(what string) {
		t.Helper()
		ids := evalIn[[]string](t, ctx, `[...document.querySelectorAll("#scenario-select option")].map((o) => o.value)`)
		js, _ := json.Marshal(append(ids, names...))
		if left := evalIn[[]string](t, ctx, latinLeft+`(`+string(js)+`)`); len(left) > 0 {
			t.Errorf("the Russian panel, %s, shows English words: %q", what, left)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/__mock/")); err != nil {
		t.Fatal(err)
	}
	evalIn[bool](t, ctx, `(localStorage.setItem("replymock-lang", "ru"), true)`)
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="default"]`)),
		chromedp.WaitReady(chromedp.CSS(`#log-body tr:nth-child(5)`)),
		chromedp.WaitVisible(chromedp.CSS(`#shop`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "строгий режим") }); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#log-body tr .warn-mark`)), chromedp.WaitVisible(chromedp.CSS("#detail-warnings-box"))); err != nil {
		t.Fatal(err)
	}
	check("with faults, switches, a shop and a request opened")
	screenshot(t, ctx, "panel-ru-faults")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
		t.Fatal(err)
	}
	if text, err := waitText(ctx, "#heal-status", func(s string) bool { return s != "" }); err != nil || !strings.HasPrefix(text, "Починено: ") {
		t.Errorf("Heal's account in Russian: %q (%v)", text, err)
	}
	check("after Heal")
	send(t, http.MethodPut, ts.URL+"/__mock/scenario", `{"name":"slow"}`, 200)
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "сценарий slow") }); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#scenario-description", func(s string) bool { return s != "" }); err != nil {
		t.Fatal(err)
	}
	check("on the slow scenario")
	send(t, http.MethodPut, ts.URL+"/__mock/scenario", `{"name":"default"}`, 200)
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#scenario-description", func(s string) bool { return strings.HasPrefix(s, "Магазин с годом") }); err != nil {
		t.Fatal(err)
	}
	check("on the default scenario")
	screenshot(t, ctx, "panel-ru-default")
}
