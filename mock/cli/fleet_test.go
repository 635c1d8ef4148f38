package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

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
// answered: a new replica serves every answered write.
func TestStoreFleetOfBinaries(t *testing.T) {
	const writers = 4
	rs := redistest.Start(t)
	b, _, _ := fleetReplica(t, rs.URL())
	answered := make([]int, writers)
	for round := range 3 {
		a, kill, _ := fleetReplica(t, rs.URL())
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
			kill()
		})
		if t.Failed() {
			return
		}
	}
	c, _, _ := fleetReplica(t, rs.URL())
	for w := range writers {
		if got := signature(t, c, w); got < answered[w] || answered[w] == 0 {
			t.Fatalf("a new replica shows v%d of w%d; v%d was answered", got, w, answered[w])
		}
	}
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
