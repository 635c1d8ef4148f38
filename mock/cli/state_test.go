package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// stateServer runs replymock in a process of its own on the state folder
// dir, with args, and returns it, its base URL and its log.
func stateServer(t *testing.T, dir string, args ...string) (stop func(sig os.Signal) string, base string, logs *syncBuffer) {
	t.Helper()
	cmd, logs := startChild(t, append([]string{"--state-dir", dir}, args...)...)
	var line struct{ Addr string }
	for l := range strings.SplitSeq(waitLog(t, logs, `"msg":"replymock serving"`), "\n") {
		if strings.Contains(l, `"msg":"replymock serving"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	stop = func(sig os.Signal) string {
		cmd.Process.Signal(sig)
		exited(t, cmd, 30*time.Second)
		return logs.String()
	}
	return stop, "http://" + line.Addr, logs
}

// call sends one request to a child server and returns the status and body.
func call(t *testing.T, method, url, ctype, body string, header ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// view is what the API shows a session: its settings, the newest 100
// reviews and the counts, as sent, but for the server's own address in
// media URLs (a restarted server listens on another port).
func view(t *testing.T, base, session string) string {
	_, settings := call(t, "GET", base+"/api/v1/settings/ai", "", "", "X-Mock-Session", session)
	_, list := call(t, "GET", base+"/api/v1/feedbacks?limit=100", "", "", "X-Mock-Session", session)
	_, counts := call(t, "GET", base+"/api/v1/feedbacks?counts_only=1", "", "", "X-Mock-Session", session)
	return strings.ReplaceAll(settings+list+counts, base, "http://SERVER")
}

// A server stopped with SIGTERM and started again on its state folder
// comes back as it was: a patched setting, a seeded review, a living
// shop a day on, a fault for every session and the scenario picked.
func TestStateDirSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	// Saves only at shutdown: the restart shows that one.
	stop, base, _ := stateServer(t, dir, "--state-interval", "1h")
	if st, b := call(t, "PATCH", base+"/api/v1/settings/ai", "application/json", `{"feedback":[{"rating":1,"signature":"Команда «Уют»"}]}`, "X-Mock-Session", "demo-1"); st != 200 {
		t.Fatalf("PATCH: %d %s", st, b)
	}
	if st, b := call(t, "PUT", base+"/__mock/data?session=demo-1", "application/json", `{"mode":"append","reviews":[{"product_valuation":2,"text":"Шов разошёлся на второй день"}]}`); st != 200 {
		t.Fatalf("seed: %d %s", st, b)
	}
	if st, b := call(t, "PUT", base+"/__mock/scenario?session=shop", "application/json", `{"name":"demo-frozen"}`); st != 200 {
		t.Fatalf("pick: %d %s", st, b)
	}
	if st, b := call(t, "POST", base+"/__mock/clock?session=shop", "application/json", `{"advance":"24h"}`); st != 200 {
		t.Fatalf("clock: %d %s", st, b)
	}
	if st, b := call(t, "POST", base+"/__mock/faults", "application/json", `{"name":"slow list","path":"/feedbacks","latency":{"fixed":"1ms"}}`); st != 201 {
		t.Fatalf("fault: %d %s", st, b)
	}
	want := map[string]string{"demo-1": view(t, base, "demo-1"), "shop": view(t, base, "shop")}
	if !strings.Contains(want["demo-1"], "Шов разошёлся") || !strings.Contains(want["demo-1"], "Команда «Уют»") {
		t.Fatalf("the session does not show its changes: %.300s", want["demo-1"])
	}
	_, faults := call(t, "GET", base+"/__mock/faults", "", "")
	if log := stop(syscall.SIGTERM); !strings.Contains(log, `"msg":"state saved"`) {
		t.Fatalf("no save at shutdown: %s", log)
	}

	stop, base, logs := stateServer(t, dir, "--state-interval", "1h")
	defer stop(syscall.SIGTERM)

	if !strings.Contains(logs.String(), `"msg":"state restored"`) || !strings.Contains(logs.String(), `"sessions":2`) {
		t.Errorf("the restart did not restore two sessions: %s", logs.String())
	}
	for s, w := range want {
		if got := view(t, base, s); got != w {
			i := 0
			for i < len(got) && i < len(w) && got[i] == w[i] {
				i++
			}
			t.Errorf("session %s after the restart differs at byte %d:\n got …%.300s\nwant …%.300s", s, i, got[max(i-100, 0):], w[max(i-100, 0):])
		}
	}
	if _, got := call(t, "GET", base+"/__mock/faults", "", ""); got != faults {
		t.Errorf("faults after the restart:\n got %s\nwant %s", got, faults)
	}
}

// A server killed (SIGKILL) at any moment while it writes its state
// leaves each file as it was or as it became: the restart loads every
// one, sets none aside, and shows a value the session really had.
func TestStateDirKilledMidWrite(t *testing.T) {
	dir := t.TempDir()
	last, saved := -1, -1
	for round := range 4 {
		stop, base, logs := stateServer(t, dir, "--state-interval", "10ms")
		if round > 0 {
			out := logs.String()
			if strings.Contains(out, "set aside") || strings.Contains(out, "did not load") {
				t.Fatalf("round %d: a file did not load after a kill: %s", round, out)
			}
			var got struct {
				Data struct{ Feedback []struct{ Signature string } }
			}
			_, b := call(t, "GET", base+"/api/v1/settings/ai", "", "", "X-Mock-Session", "busy")
			json.Unmarshal([]byte(b), &got)
			n := -1
			if len(got.Data.Feedback) == 5 {
				fmt.Sscanf(got.Data.Feedback[0].Signature, "v%d", &n)
			}
			// An answered write is in the folder when its answer comes:
			// the state shows the last answered value, the writer's
			// requests being one at a time.
			if n != last || n < saved {
				t.Fatalf("round %d: after a kill the session shows %q; the file held v%d before the kill, the last answered value was v%d", round, b, saved, last)
			}
		}
		// Writes of a session whose file grows (seeded reviews) and
		// changes (a setting), as fast as the server answers.
		deadline := time.Now().Add(time.Duration(300+round*200) * time.Millisecond)
		for i := 0; time.Now().Before(deadline); i++ {
			v := round*100000 + i
			st, _ := call(t, "PATCH", base+"/api/v1/settings/ai", "application/json", fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, v), "X-Mock-Session", "busy")
			if st != 200 {
				t.Fatalf("PATCH: %d", st)
			}
			last = v
			if i%10 == 0 {
				call(t, "PUT", base+"/__mock/data?session=busy", "application/json", `{"mode":"append","reviews":[{"product_valuation":4,"text":"`+strings.Repeat("хорошо ", 50)+`"}]}`)
			}
		}
		// The saves go on while the writes do: write on until the file
		// holds one of this round's values (on a loaded machine a save
		// of the growing file takes longer; how long is no matter here).
		for i := 0; ; i++ {
			if saved = savedSignature(t, dir); saved >= round*100000 {
				break
			}
			if time.Now().After(deadline.Add(30 * time.Second)) {
				t.Fatalf("round %d: no save of this round's writes within 30s: the file holds v%d", round, saved)
			}
			v := round*100000 + 50000 + i
			if st, _ := call(t, "PATCH", base+"/api/v1/settings/ai", "application/json", fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, v), "X-Mock-Session", "busy"); st != 200 {
				t.Fatalf("PATCH: %d", st)
			}
			last = v
		}
		stop(syscall.SIGKILL)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "rejected"))
	if len(entries) != 0 {
		t.Errorf("files set aside: %v", entries)
	}
}

// savedSignature is the v-number of rating 1's signature in session
// busy's state file, or -1 while it has none.
func savedSignature(t *testing.T, dir string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "sessions", "busy.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"signature":\s*"v(\d+)"`).FindSubmatch(b)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// Files that do not read (corrupt, cut short, foreign, another session's
// under this one's name) are set aside with a log line each; the others
// load, and the server serves.
func TestStateDirSetsAsideWhatDoesNotLoad(t *testing.T) {
	srv, err := mock.New(mock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.SeedReviews("good", "", mock.SeedAppend, []mock.SeedReview{{ProductValuation: 3, Text: "Нормально, но пахнет"}}); err != nil {
		t.Fatal(err)
	}
	snap, err := srv.Snapshot("good")
	if err != nil {
		t.Fatal(err)
	}
	good, err := mock.MarshalSnapshot(snap, false)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sessions := filepath.Join(dir, "sessions")
	os.MkdirAll(sessions, 0o700)
	files := map[string]string{
		"good.json":      string(good),
		"garbage.json":   "{not json",
		"cut.json":       string(good[:len(good)/2]),
		"foreign.json":   "description: a scenario, not a snapshot\ndata: {fixture: default}\n",
		"other.json":     string(good), // session "good" under another's name
		".good.json1234": "half a write",
	}
	if err := syscall.Mkfifo(filepath.Join(sessions, "pipe.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "elsewhere.json")
	os.WriteFile(secret, good, 0o600)
	if err := os.Symlink(secret, filepath.Join(sessions, "link.json")); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(sessions, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "server.json"), []byte(`{"format":"replymock-server-state/1","scenario":"no-such"}`), 0o600)
	stop, base, logs := stateServer(t, dir)
	defer stop(syscall.SIGTERM)
	out := logs.String()
	for _, name := range []string{"garbage.json", "cut.json", "foreign.json", "other.json", "link.json", "pipe.json", "server.json"} {
		if !strings.Contains(out, `"file":"`+name) && !strings.Contains(out, `"file":"sessions/`+name) {
			t.Errorf("no log line sets %s aside:\n%s", name, out)
		}
	}
	rejected, _ := os.ReadDir(filepath.Join(dir, "rejected"))
	if len(rejected) != 7 {
		t.Errorf("rejected/ holds %d files, want 7: %v", len(rejected), rejected)
	}
	if _, err := os.Stat(filepath.Join(sessions, ".good.json1234")); err == nil {
		t.Error("an unfinished write was left in place")
	}
	if _, b := call(t, "GET", base+"/api/v1/feedbacks?limit=1", "", "", "X-Mock-Session", "good"); !strings.Contains(b, "Нормально, но пахнет") {
		t.Errorf("the good session did not load: %s", b)
	}
}

// The demo's data is anchored to the present. Restarted within two days,
// the server anchors it where it did, so a living shop comes back as it
// was and goes on (30 reviews an hour); restarted later, the data is
// current again, the shop starts afresh and the patched settings stay.
func TestStateDirKeepsTheDemosPresent(t *testing.T) {
	dir := t.TempDir()
	counts := func(base string) (total int, end string) {
		var c struct{ Data struct{ Total int } }
		_, b := call(t, "GET", base+"/api/v1/feedbacks?counts_only=1", "", "", "X-Mock-Session", "live")
		json.Unmarshal([]byte(b), &c)
		_, doc := call(t, "GET", base+"/__mock/snapshot?session=live&format=json", "", "")
		var snap mock.Snapshot
		json.Unmarshal([]byte(doc), &snap)
		if len(snap.Scenarios) == 1 {
			end = snap.Scenarios[0].DataEnd
		}
		return c.Data.Total, end
	}
	stop, base, _ := stateServer(t, dir, "--scenario", "demo", "--now", "2026-12-01T10:00:00Z")
	call(t, "PATCH", base+"/api/v1/settings/ai", "application/json", `{"feedback":[{"rating":5,"signature":"Спасибо, что вы с нами"}]}`, "X-Mock-Session", "live")
	call(t, "POST", base+"/__mock/clock?session=live", "application/json", `{"advance":"3h"}`)
	total, end := counts(base)
	if total != 1009+90 || end != "2026-12-01 10:00:00" {
		t.Fatalf("the demo 3h on: %d reviews, data ending %q", total, end)
	}
	stop(syscall.SIGTERM)

	stop, base, _ = stateServer(t, dir, "--scenario", "demo", "--now", "2026-12-01T12:00:00Z")
	total2, end2 := counts(base)
	// The shop's clock ran 3h ahead of 10:00 and goes on 3h ahead of 12:00.
	if end2 != end || total2 != total+60 {
		t.Errorf("restarted 2h later: %d reviews, data ending %q; want %d and %q", total2, end2, total+60, end)
	}
	stop(syscall.SIGTERM)

	stop, base, logs := stateServer(t, dir, "--scenario", "demo", "--now", "2026-12-10T12:00:00Z")
	defer stop(syscall.SIGTERM)
	total3, end3 := counts(base)
	if end3 != "2026-12-10 12:00:00" || total3 != 1009 || !strings.Contains(logs.String(), "living shop starts again") {
		t.Errorf("restarted 9 days later: %d reviews, data ending %q; want the data current again (1,009 reviews, a new shop): %s", total3, end3, logs.String())
	}
	if _, b := call(t, "GET", base+"/api/v1/settings/ai", "", "", "X-Mock-Session", "live"); !strings.Contains(b, "Спасибо, что вы с нами") {
		t.Errorf("restarted 9 days later, the patched setting is gone: %s", b)
	}
}

// --max-state-disk bounds what the folder's session files hold: of 40
// sessions' PATCHes, those past it answer 503 store_unavailable with
// Retry-After and change nothing, and every one answered 200 comes back
// after a SIGKILL; the folder stays within the bound.
func TestStateDirWithinItsBudget(t *testing.T) {
	dir := t.TempDir()
	const max = 48 << 10
	stop, base, _ := stateServer(t, dir, "--max-state-disk", "48KiB")
	const signed = `"signature":"Команда «Уют»"`
	var answered, refused []string
	for i := range 40 {
		sid := fmt.Sprintf("v%02d", i)
		req, _ := http.NewRequest("PATCH", base+"/api/v1/settings/ai", strings.NewReader(`{"feedback":[{"rating":1,"signature":"Команда «Уют»"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mock-Session", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode == 200:
			answered = append(answered, sid)
		case resp.StatusCode == 503 && strings.Contains(string(b), `"code":"store_unavailable"`) &&
			strings.Contains(string(b), "--max-state-disk") && resp.Header.Get("Retry-After") != "":
			refused = append(refused, sid)
			if v := view(t, base, sid); strings.Contains(v, signed) {
				t.Errorf("%s, refused, serves its change: %.200s", sid, v)
			}
		default:
			t.Fatalf("PATCH %s: %d %s", sid, resp.StatusCode, b)
		}
		var used int64
		filepath.WalkDir(filepath.Join(dir, "sessions"), func(_ string, e fs.DirEntry, _ error) error {
			if fi, err := e.Info(); err == nil && !e.IsDir() {
				used += fi.Size()
			}
			return nil
		})
		if used > max {
			t.Fatalf("after %d sessions, sessions/ holds %d bytes, over --max-state-disk's %d", i+1, used, max)
		}
	}
	if len(answered) == 0 || len(refused) == 0 {
		t.Fatalf("%d answered, %d refused: want both, the bound reached", len(answered), len(refused))
	}
	t.Logf("%d PATCHes answered, %d refused past --max-state-disk", len(answered), len(refused))
	stop(syscall.SIGKILL)
	stop, base, _ = stateServer(t, dir, "--max-state-disk", "48KiB")
	defer stop(syscall.SIGTERM)
	for _, sid := range answered {
		if v := view(t, base, sid); !strings.Contains(v, signed) {
			t.Errorf("%s, answered 200, lost after SIGKILL: %.200s", sid, v)
		}
	}
}

// A state folder the server cannot write in is a usage error at start
// (exit status 2) naming it, not a 500 at the first write. As root, who
// writes in a read-only folder, a folder in the way of the file the
// server writes to find out stands for it.
func TestStateDirNotWritableRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	if os.Geteuid() == 0 {
		if err := os.MkdirAll(filepath.Join(dir, "sessions", ".write-test", "x"), 0o700); err != nil {
			t.Fatal(err)
		}
	} else if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	var stderr strings.Builder
	err := run(t.Context(), []string{"--addr", "127.0.0.1:0", "--state-dir", dir}, env(nil), io.Discard, &stderr)
	if code := exitCode(err); code != 2 || !strings.Contains(fmt.Sprint(err), "cannot write in it") || !strings.Contains(fmt.Sprint(err), dir) {
		t.Errorf("exit %d: %v, want 2 and an error naming the folder", code, err)
	}
}
