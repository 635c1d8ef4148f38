package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Every write the server answered with success is in the state folder
// when the answer arrives: killed at once with SIGKILL (the periodic save
// an hour away), the restarted server shows each of them, deletions and
// server-wide ones included.
func TestStateDirKeepsEveryAnsweredWrite(t *testing.T) {
	dir := t.TempDir()
	stop, base, _ := stateServer(t, dir, "--state-interval", "1h")
	must := func(want int, method, path, ctype, body string, header ...string) string {
		t.Helper()
		st, b := call(t, method, base+path, ctype, body, header...)
		if st != want {
			t.Fatalf("%s %s: %d %s, want %d", method, path, st, b, want)
		}
		return b
	}
	const jsonType = "application/json"
	// A session's pick, then the server's, which clears it.
	must(200, "PUT", "/__mock/scenario?session=picker", jsonType, `{"name":"flaky"}`)
	must(200, "PUT", "/__mock/scenario?session=*", jsonType, `{"name":"default"}`)
	// A PATCH answered after a delay.
	must(201, "POST", "/__mock/faults?session=slow", jsonType, `{"latency":{"fixed":"300ms"}}`)
	must(200, "PATCH", "/api/v1/settings/ai", jsonType, `{"feedback":[{"rating":2,"signature":"slow"}]}`, "X-Mock-Session", "slow")
	// Seeded reviews, then deleted; faults of a session, deleted all and by id.
	must(200, "PUT", "/__mock/data?session=gone", jsonType, `{"reviews":[{"product_valuation":5,"text":"удалить"}]}`)
	must(200, "DELETE", "/__mock/data?session=gone", "", "")
	must(201, "POST", "/__mock/faults?session=f", jsonType, `{"name":"a","error":{"status":500}}`)
	must(200, "DELETE", "/__mock/faults?session=f", "", "")
	var byID struct{ Data struct{ ID string } }
	json.Unmarshal([]byte(must(201, "POST", "/__mock/faults", jsonType, `{"name":"b","error":{"status":503}}`)), &byID)
	must(200, "DELETE", "/__mock/faults/"+byID.Data.ID, "", "")
	must(200, "PUT", "/__mock/overrides?session=o", jsonType, `{"strict":true}`)
	// A seed of no reviews, with a setting beside it; another, deleted.
	must(200, "PATCH", "/api/v1/settings/ai", jsonType, `{"feedback":[{"rating":3,"signature":"beside"}]}`, "X-Mock-Session", "e")
	must(200, "PUT", "/__mock/data?session=e", jsonType, `{"mode":"replace","reviews":[]}`)
	must(200, "PUT", "/__mock/data?session=e2", jsonType, `{"mode":"replace","reviews":[]}`)
	must(200, "DELETE", "/__mock/data?session=e2", "", "")
	// A PATCH whose answer a fault cuts short: the change is made, and kept.
	must(201, "POST", "/__mock/faults?session=cut", jsonType, `{"truncate":true,"method":"PATCH"}`)
	if req, err := http.NewRequest("PATCH", base+"/api/v1/settings/ai", strings.NewReader(`{"feedback":[{"rating":4,"signature":"cut"}]}`)); err == nil {
		req.Header.Set("Content-Type", jsonType)
		req.Header.Set("X-Mock-Session", "cut")
		if resp, err := stateClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	must(200, "PATCH", "/api/v1/settings/ai", jsonType, `{"feedback":[{"rating":1,"signature":"last"}]}`)
	// Last, with no write after it: a fault that fires once, met by a
	// read; after the kill it has fired.
	must(201, "POST", "/__mock/faults?session=once", jsonType, `{"error":{"status":503},"times":1}`)
	must(503, "GET", "/api/v1/feedbacks?limit=1", "", "", "X-Mock-Session", "once")
	stop(syscall.SIGKILL)

	stop, base, logs := stateServer(t, dir, "--state-interval", "1h")
	defer stop(syscall.SIGTERM)
	if out := logs.String(); strings.Contains(out, "set aside") || strings.Contains(out, "in part") {
		t.Fatalf("the restart did not restore all: %s", out)
	}
	for _, c := range []struct{ path, session, want, not string }{
		{"/api/v1/settings/ai", "slow", `"signature":"slow"`, ""},
		{"/api/v1/settings/ai", "default", `"signature":"last"`, ""},
		{"/__mock/data", "gone", `"seeded":null`, "удалить"},
		{"/__mock/faults", "f", `"faults":[]`, ""},
		{"/__mock/overrides", "o", `"strict":true`, ""},
		{"/api/v1/settings/ai", "e", `"signature":"beside"`, ""},
		{"/__mock/data", "e", `"seeded":{"mode":"replace","count":0}`, ""},
		{"/__mock/data", "e2", `"seeded":null`, ""},
		{"/api/v1/feedbacks?limit=1", "once", `"success":true`, ""},
		{"/api/v1/settings/ai", "cut", `"signature":"cut"`, ""},
	} {
		sep := "?"
		if strings.Contains(c.path, "?") {
			sep = "&"
		}
		_, b := call(t, "GET", base+c.path+sep+"session="+c.session, "", "", "X-Mock-Session", c.session)
		if !strings.Contains(b, c.want) || c.not != "" && strings.Contains(b, c.not) {
			t.Errorf("after SIGKILL, %s of session %s: %.400s\nwant %s", c.path, c.session, b, c.want)
		}
	}
	if _, b := call(t, "GET", base+"/__mock/scenarios?session=picker", "", ""); !activeIs(b, "default") {
		t.Errorf("after SIGKILL, the server-wide pick did not clear the session's: %.600s", b)
	}
}

// activeIs reports whether GET /__mock/scenarios says name is active.
func activeIs(body, name string) bool {
	var got struct{ Data struct{ Active string } }
	json.Unmarshal([]byte(body), &got)
	return got.Data.Active == name
}

// Killed with SIGKILL at a random moment while writers PATCH their own
// sessions as fast as the server answers, a server restarted on its
// folder shows, for each session, the last value it answered or one sent
// after it (whose answer the kill cut off): never an older one. Ten
// rounds on one folder, each restart from the last kill.
func TestStateDirLosesNothingAnsweredUnderKills(t *testing.T) {
	const writers = 4
	dir := t.TempDir()
	answered := make([]int, writers) // per writer: the last value answered
	for round := range 10 {
		stop, base, logs := stateServer(t, dir, "--state-interval", "1h")
		if out := logs.String(); strings.Contains(out, "set aside") {
			t.Fatalf("round %d: a file did not load after a kill: %s", round, out)
		}
		for w := range writers {
			if got := signature(t, base, w); got < answered[w] {
				t.Fatalf("round %d: session w%d shows v%d after the kill; v%d was answered before it", round, w, got, answered[w])
			}
		}
		killDuring(t, round, base, answered, nil, func() {
			// every writer has an answer, however loaded the machine: then the kill comes at random
			time.Sleep(time.Duration(rand.IntN(300)) * time.Millisecond)
			stop(syscall.SIGKILL)
		})
		for w := range writers {
			if answered[w] == 0 {
				t.Fatalf("round %d: writer %d had no answer before the kill: nothing tested", round, w)
			}
		}
	}
}

// killDuring runs a writer per element of answered, each PATCHing its
// own session (patchSignature) on base as fast as it is answered and
// keeping in answered the last value answered; once every writer has an
// answer, kill runs, and killDuring returns when every writer has seen
// it. check, when set, runs after each answer, on the value answered.
func killDuring(t *testing.T, round int, base string, answered []int, check func(w, v int) error, kill func()) {
	var wg, first sync.WaitGroup
	done := make(chan struct{})
	first.Add(len(answered))
	for w := range answered {
		wg.Add(1)
		go func() {
			defer wg.Done()
			firstDone := sync.OnceFunc(first.Done)
			defer firstDone() // a writer that stops early lets the kill come anyway
			for v := answered[w] + 1; ; v++ {
				select {
				case <-done:
					return
				default:
				}
				st, ok := patchSignature(base, w, v)
				if !ok {
					return // the kill came
				}
				if st != 200 {
					t.Errorf("round %d: PATCH of w%d: %d", round, w, st)
					return
				}
				answered[w] = v
				firstDone()
				if check != nil {
					if err := check(w, v); err != nil {
						t.Errorf("round %d: %v", round, err)
						return
					}
				}
			}
		}()
	}
	first.Wait()
	kill()
	close(done)
	wg.Wait()
}

// patchSignature PATCHes session wN's signature to vV; ok is false when
// no answer came (the connection broke).
func patchSignature(base string, w, v int) (status int, ok bool) {
	req, _ := http.NewRequest("PATCH", base+"/api/v1/settings/ai", strings.NewReader(fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, v)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Mock-Session", fmt.Sprintf("w%d", w))
	resp, err := stateClient.Do(req)
	if err != nil {
		return 0, false
	}
	resp.Body.Close()
	return resp.StatusCode, true
}

// stateClient gives up on a server that stopped answering.
var stateClient = &http.Client{Timeout: 30 * time.Second}

// signature is session wN's rating-1 signature number, 0 for none.
func signature(t *testing.T, base string, w int) int {
	t.Helper()
	_, b := call(t, "GET", base+"/api/v1/settings/ai", "", "", "X-Mock-Session", fmt.Sprintf("w%d", w))
	var got struct {
		Data struct{ Feedback []struct{ Signature string } }
	}
	json.Unmarshal([]byte(b), &got)
	n := 0
	if len(got.Data.Feedback) == 5 {
		fmt.Sscanf(got.Data.Feedback[0].Signature, "v%d", &n)
	}
	return n
}
