package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/redistest"
)

// fleetReplica starts replymock in a process of its own on store, and
// returns its base URL and a function that kills it with sig.
func fleetReplica(t *testing.T, store string) (base string, kill func(), logs *syncBuffer) {
	t.Helper()
	cmd, logs := startChild(t, "--store", store)
	base = servingAddr(t, logs)
	return base, func() { cmd.Process.Signal(syscall.SIGKILL); exited(t, cmd, 30*time.Second) }, logs
}

// TestStoreFleetOfBinaries: replicas of the binary on one Redis answer
// as one (a write answered on one is read on the other), and a replica
// killed with SIGKILL under concurrent writers loses nothing that was
// answered: after each kill the survivors (a long-lived replica and one
// started after the kill) serve every answered write, list the journal
// entries of the requests it answered, go on with the counts of a
// limited fault it created and met, and serve the reviews seeded on it.
func TestStoreFleetOfBinaries(t *testing.T) {
	// Each round after the first waits out the lock of the write the
	// kill cut short (lockTTL, 5 s): some 4 s a round.
	const writers, rounds = 4, 3
	rs := redistest.Start(t)
	b, _, _ := fleetReplica(t, rs.URL())
	answered := make([]int, writers)
	a, kill, _ := fleetReplica(t, rs.URL())
	for round := range rounds {
		for w := range writers {
			for _, base := range []string{a, b} {
				if got := signature(t, base, w); got < answered[w] {
					t.Fatalf("round %d: session w%d shows v%d on %s; v%d was answered before", round, w, got, base, answered[w])
				}
			}
		}
		killDuring(t, round, a, answered, func(w, v int) error {
			if v%5 == 0 { // read on the other replica right after the answer
				if got := signatureOr(b, w); got < v {
					return fmt.Errorf("w%d v%d answered on one replica, the other shows v%d", w, v, got)
				}
			}
			return nil
		}, func() {
			time.Sleep(100 * time.Millisecond)
			// While the writers go on: the last answers before the kill.
			if err := beforeKill(a, round); err != nil {
				t.Errorf("round %d, on the replica to be killed: %v", round, err)
			}
			kill()
		})
		if t.Failed() {
			return
		}
		next, nextKill, _ := fleetReplica(t, rs.URL())
		afterKill(t, round, answered, b, next)
		a, kill = next, nextKill
	}
	// a started after the last kill.
	for w := range writers {
		if got := signature(t, a, w); got < answered[w] || answered[w] == 0 {
			t.Fatalf("a new replica shows v%d of w%d; v%d was answered", got, w, answered[w])
		}
	}
}

// The fault each round creates on the replica it kills, for GETs of the
// settings of session fN: the first goes through, the next four fail.
// The replica answers met of them, the survivors the rest.
const (
	killFault = `{"method":"GET","path":"/settings/ai","after":1,"times":4,"error":{"status":503}}`
	killMet   = 3 // 200, 503, 503: two of the four failures left
	killLeft  = 2
)

// beforeKill sends replica base, about to be killed, the round's writes
// other than the writers' PATCHes, each answered: reviews seeded for
// session sN (replaced, then appended), the fault of session fN, and
// killMet requests that meet it.
func beforeKill(base string, round int) error {
	for _, seed := range []string{
		fmt.Sprintf(`{"mode":"replace","reviews":[{"product_valuation":2,"text":"seeded r%d replaced"}]}`, round),
		fmt.Sprintf(`{"mode":"append","reviews":[{"product_valuation":4,"text":"seeded r%d appended"}]}`, round),
	} {
		if st, body, err := fleetCall("PUT", fmt.Sprintf("%s/__mock/data?session=s%d", base, round), seed); err != nil || st != 200 {
			return fmt.Errorf("seed: %d %s %v", st, body, err)
		}
	}
	if st, body, err := fleetCall("POST", fmt.Sprintf("%s/__mock/faults?session=f%d", base, round), killFault); err != nil || st != 201 {
		return fmt.Errorf("fault: %d %s %v", st, body, err)
	}
	for i, want := range []int{200, 503, 503}[:killMet] {
		if st, body, err := fleetCall("GET", base+"/api/v1/settings/ai", "", "X-Mock-Session", fmt.Sprintf("f%d", round)); err != nil || st != want {
			return fmt.Errorf("request %d of the fault's session: %d %v, want %d: %.200s", i+1, st, err, want, body)
		}
	}
	return nil
}

// afterKill checks, on the survivors of round's kill, what the killed
// replica answered: the journal entries of its requests (each writer's
// last answered PATCH, the fault's session's requests), the fault
// failing exactly the answers it had left across the survivors, and
// the reviews seeded on it (and in every round before).
func afterKill(t *testing.T, round int, answered []int, survivors ...string) {
	t.Helper()
	type entry struct {
		Method string
		Status int
		Body   string
	}
	var list struct {
		Data struct {
			Count    int
			Requests []entry
		}
	}
	listed := func(base, query string) []entry {
		t.Helper()
		st, body := call(t, "GET", base+"/__mock/requests?"+query, "", "")
		list.Data.Requests = nil
		if err := json.Unmarshal([]byte(body), &list); st != 200 || err != nil {
			t.Fatalf("round %d: the journal on %s (%s): %d %v %.300s", round, base, query, st, err, body)
		}
		return list.Data.Requests
	}
	for _, base := range survivors {
		for w, v := range answered {
			q := fmt.Sprintf("session=w%d&method=PATCH&body.feedback.0.signature=v%d", w, v)
			ok := false
			for _, e := range listed(base, q) {
				ok = ok || e.Status == 200
			}
			if !ok {
				t.Fatalf("round %d: %s does not list w%d's PATCH of v%d, answered by the killed replica", round, base, w, v)
			}
		}
		got := listed(base, fmt.Sprintf("session=f%d", round))
		if len(got) != killMet || got[0].Status != 200 || got[1].Status != 503 || got[2].Status != 503 {
			t.Fatalf("round %d: %s lists %+v of the %d requests the killed replica answered in session f%d (200, 503, 503)", round, base, got, killMet, round)
		}
	}

	// Round robin over the survivors: the failures left, then none.
	var statuses []int
	for i := range killLeft + 4 {
		st, _ := call(t, "GET", survivors[i%len(survivors)]+"/api/v1/settings/ai", "", "", "X-Mock-Session", fmt.Sprintf("f%d", round))
		statuses = append(statuses, st)
	}
	if want := "[503 503 200 200 200 200]"; fmt.Sprint(statuses) != want {
		t.Fatalf("round %d: a fault with %d failures left when its replica was killed: the survivors answer %v, want %s", round, killLeft, statuses, want)
	}

	for r := 0; r <= round; r++ {
		for _, base := range survivors {
			st, body := call(t, "GET", base+"/api/v1/feedbacks?isAnswered=false&take=10&skip=0", "", "", "X-Mock-Session", fmt.Sprintf("s%d", r))
			for _, want := range []string{fmt.Sprintf("seeded r%d replaced", r), fmt.Sprintf("seeded r%d appended", r)} {
				if st != 200 || !strings.Contains(body, want) {
					t.Fatalf("round %d: %s does not serve %q, seeded on a killed replica: %d %.300s", round, base, want, st, body)
				}
			}
		}
	}
}

// fleetCall is call for a request to a replica that may be killed
// meanwhile: an error, not a test's end.
func fleetCall(method, url, body string, header ...string) (int, string, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := stateClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// signatureOr is signature for a goroutine: -1 when no answer came.
func signatureOr(base string, w int) int {
	req, _ := http.NewRequest("GET", base+"/api/v1/settings/ai", nil)
	req.Header.Set("X-Mock-Session", fmt.Sprintf("w%d", w))
	resp, err := stateClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var got struct {
		Data struct{ Feedback []struct{ Signature string } }
	}
	json.NewDecoder(resp.Body).Decode(&got)
	n := 0
	if len(got.Data.Feedback) == 5 {
		fmt.Sscanf(got.Data.Feedback[0].Signature, "v%d", &n)
	}
	return n
}

// TestStoreWaitsForRedis: a replica started while Redis is down says
// so, without the URL's password, and serves once Redis is up.
func TestStoreWaitsForRedis(t *testing.T) {
	rs := redistest.Start(t, "--requirepass", "s3cret-pw")
	rs.Stop()
	url := fmt.Sprintf("redis://:s3cret-pw@%s/0", rs.Addr())
	cmd, logs := startChild(t, "--store", url)
	waitLog(t, logs, "store: unreachable")
	rs.Restart()
	base := servingAddr(t, logs)
	st, body := call(t, "GET", base+"/__mock/health", "", "")
	if st != 200 || !strings.Contains(body, `"kind":"redis"`) || !strings.Contains(body, `"state":"ok"`) {
		t.Fatalf("health: %d %s", st, body)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exited(t, cmd, 30*time.Second)
	if out := logs.String() + body; strings.Contains(out, "s3cret-pw") {
		t.Fatalf("the store's password is shown: %s", out)
	}
	if !strings.Contains(logs.String(), "xxxxx") {
		t.Fatalf("the log does not name the store: %s", logs.String())
	}
}

// TestStalledWriterIsFenced: a replica stalled (SIGSTOP: a long GC
// pause, a frozen VM) while it holds a session's lock loses the lock
// when its TTL runs out; another replica then writes the session and
// answers. When the stalled one resumes, its write is refused, not laid
// over the other's. Over several rounds, nothing answered is lost.
func TestStalledWriterIsFenced(t *testing.T) {
	// Each round waits out the stalled replica's lock (lockTTL, 5 s).
	const rounds = 3
	rs := redistest.Start(t)
	cmd, logs := startChild(t, "--store", rs.URL())
	a := servingAddr(t, logs)
	b, _, _ := fleetReplica(t, rs.URL())
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGCONT) }) // so that it can be killed
	redis, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{rs.Addr()}, DisableCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer redis.Close()
	for round := range rounds {
		sid := fmt.Sprintf("stall%d", round)
		// a's PATCH: headers and half the body, so a holds the lock and
		// waits for the rest.
		body := fmt.Sprintf(`{"feedback":[{"rating":3,"signature":"a-%d"}]}`, round)
		pr, pw := io.Pipe()
		req, _ := http.NewRequest(http.MethodPatch, a+"/api/v1/settings/ai", pr)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mock-Session", sid)
		req.ContentLength = int64(len(body))
		answerA := make(chan int, 1)
		go func() {
			resp, err := stateClient.Do(req)
			if err != nil {
				answerA <- 0
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answerA <- resp.StatusCode
		}()
		io.WriteString(pw, body[:10])
		waitForLock(t, redis, sid) // a has the request, and the lock
		if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		waitStopped(t, cmd.Process.Pid) // else, on a loaded machine, a may read the rest first
		go func() { io.WriteString(pw, body[10:]); pw.Close() }()
		// b waits for the lock until a's runs out, then writes.
		st, resp, err := fleetCall(http.MethodPatch, b+"/api/v1/settings/ai",
			fmt.Sprintf(`{"feedback":[{"rating":4,"signature":"b-%d"}]}`, round), "X-Mock-Session", sid)
		if err != nil || st != http.StatusOK {
			t.Fatalf("round %d: b's PATCH while a is stalled: %d %v %s", round, st, err, resp)
		}
		if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		var stA int
		select {
		case stA = <-answerA:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: a never answered after it resumed", round)
		}
		if stA != http.StatusServiceUnavailable {
			t.Errorf("round %d: a's PATCH, whose lock ran out while it was stalled, answered %d; want 503", round, stA)
		}
		for _, base := range []string{a, b} {
			_, got, err := fleetCall(http.MethodGet, base+"/api/v1/settings/ai", "", "X-Mock-Session", sid)
			if err != nil || !strings.Contains(got, fmt.Sprintf(`"signature":"b-%d"`, round)) {
				t.Fatalf("round %d: %s lost b's answered write: %v %.300s", round, base, err, got)
			}
			if strings.Contains(got, fmt.Sprintf(`"signature":"a-%d"`, round)) != (stA == http.StatusOK) {
				t.Fatalf("round %d: a answered %d, and %s shows: %.300s", round, stA, base, got)
			}
		}
	}
}

// waitStopped waits until every thread of process pid has stopped: a
// SIGSTOP takes effect when each thread next enters the kernel, not when
// kill returns.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatal(err)
		}
		stopped := 0
		for _, task := range tasks {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			// The state follows the command's closing parenthesis.
			if _, rest, ok := strings.Cut(string(stat), ") "); err == nil && ok && strings.HasPrefix(rest, "T") {
				stopped++
			}
		}
		if stopped == len(tasks) {
			return
		}
	}
	t.Fatalf("process %d did not stop", pid)
}

// waitForLock waits until a replica holds session sid's lock in Redis.
func waitForLock(t *testing.T, redis rueidis.Client, sid string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		n, err := redis.Do(context.Background(), redis.B().Exists().Key("replymock:lock:"+sid).Build()).AsInt64()
		if err == nil && n == 1 {
			return
		}
	}
	t.Fatalf("no replica took session %s's lock", sid)
}
