package mock_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/replymock/replymock/mock"
)

const chromiumPath = "/usr/bin/chromium"

// newBrowser starts headless Chromium for one test. Without Chromium the
// test is skipped with a message, unless REPLYMOCK_REQUIRE_BROWSER is set
// (as CI does), when it fails.
func newBrowser(t *testing.T) context.Context {
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
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	return ctx
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
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/__mock/"),
		chromedp.WaitReady(chromedp.CSS(`#scenario-select option[value="default"]`)),
	)
	if err != nil {
		t.Fatal(err)
	}
	// Set and apply in one task of the page: its 5-second poll rewrites the
	// switches from the server (issue 14), and on a loaded machine it could
	// land between separate steps.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("error-rate").value = "100";
		document.getElementById("error-status").value = "503";
		document.getElementById("error-apply").click(); true`)); err != nil {
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
	// And heal it.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#heal"))); err != nil {
		t.Fatal(err)
	}
	if _, err := waitText(ctx, "#fault-list", func(s string) bool { return strings.Contains(s, "none") }); err != nil {
		t.Fatal(err)
	}
	if c := countsOver(t, ts.URL); c.Total == 0 {
		t.Error("the API still fails after healing in the page")
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
