package deploy_test

// The nginx recipe run for real on loopback: Debian's nginx and
// redis-server, replymock replicas built from this module, the recipe's
// files rendered with their ports (mock/internal/fleettest starts and
// stops them by PID). CI installs nginx and redis-server and sets
// REPLYMOCK_REQUIRE_FLEET, so that none of these tests skips there.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/fleettest"
)

// buildDir holds the replymock binary the tests share, built once.
var (
	buildDir  string
	buildOnce sync.Once
	bin       string
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "replymock-deploy-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// required says whether CI asked these tests to run, whatever is missing.
func required() bool { return os.Getenv("REPLYMOCK_REQUIRE_FLEET") != "" }

// needTools stops the test when nginx or redis-server is not installed:
// a skip on a developer's machine, a failure where REPLYMOCK_REQUIRE_FLEET
// is set (CI installs both).
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if required() {
				t.Fatalf("%s not found, and REPLYMOCK_REQUIRE_FLEET is set: install it (apt-get install nginx redis-server)", tool)
			}
			t.Skipf("%s not found (apt-get install nginx redis-server; CI sets REPLYMOCK_REQUIRE_FLEET)", tool)
		}
	}
}

// replymock builds the module's binary once for the package's tests.
func replymock(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() { bin = fleettest.BuildReplymock(t, buildDir) })
	if bin == "" {
		t.Fatal("the replymock binary did not build (see the first test that failed)")
	}
	return bin
}

// serverLine is an upstream server of the recipe, with its parameters.
var serverLine = regexp.MustCompile(`(?m)^(\s*)server replymock-\d+:8080( [^;\n]*)?;\n`)

// renderNginx copies the recipe (mock/deploy/nginx) into dir as a test
// runs it: the variant ("round-robin" or "session-affinity") included,
// its three upstream servers replaced by the replicas' addresses, its
// listener on 127.0.0.1:port, its writable paths in dir. Every string it
// replaces must be in the recipe, so the recipe cannot drift away from
// what runs here. It answers the main configuration's path.
func renderNginx(t *testing.T, dir, variant string, port int, replicas []string) string {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("nginx", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	replace := func(name, s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("mock/deploy/nginx/%s no longer says %q, which the test replaces", name, old)
		}
		return strings.ReplaceAll(s, old, new)
	}
	main := read("nginx.conf")
	main = replace("nginx.conf", main, "include round-robin.conf;", "include "+variant+".conf;")
	write("nginx.conf", main)
	write("replymock-proxy.conf", read("replymock-proxy.conf"))
	for _, name := range []string{"round-robin.conf", "session-affinity.conf"} {
		s := read(name)
		lines := serverLine.FindAllStringSubmatch(s, -1)
		if len(lines) != 3 {
			t.Fatalf("mock/deploy/nginx/%s: want 3 upstream servers replymock-N:8080, found %d", name, len(lines))
		}
		var servers strings.Builder
		for _, addr := range replicas {
			fmt.Fprintf(&servers, "%sserver %s%s;\n", lines[0][1], addr, lines[0][2])
		}
		first := true
		s = serverLine.ReplaceAllStringFunc(s, func(string) string {
			if first {
				first = false
				return servers.String()
			}
			return ""
		})
		s = replace(name, s, "listen 8080;", fmt.Sprintf("listen 127.0.0.1:%d;", port))
		write(name, s)
	}
	return filepath.Join(dir, "nginx.conf")
}

// fleet is what a test started: the replicas and nginx in front.
type fleet struct {
	replicas []*fleettest.Replica
	nginx    *fleettest.Proc
	url      string // nginx's base URL
}

// startFleet starts n replicas with args, and nginx in front of them with
// the recipe's variant.
func startFleet(t *testing.T, variant string, n int, args ...string) *fleet {
	t.Helper()
	bin := replymock(t)
	dir := t.TempDir()
	port := fleettest.FreePort(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	// Every replica names the balancer as its public URL: the media URLs
	// in the records, and so the data, are the same bytes on each.
	args = append([]string{"--public-url", url}, args...)
	f := &fleet{url: url}
	var addrs []string
	for i := range n {
		r := fleettest.StartReplica(t, dir, fmt.Sprintf("replymock-%d", i+1), bin, args, nil)
		f.replicas = append(f.replicas, r)
		addrs = append(addrs, r.Addr)
	}
	conf := renderNginx(t, dir, variant, port, addrs)
	if err := fleettest.NginxConfigTest(dir, conf); err != nil {
		t.Fatal(err)
	}
	f.nginx = fleettest.StartNginx(t, dir, conf, fmt.Sprintf("127.0.0.1:%d", port))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("nginx's log:\n%s", f.nginx.Log())
			for _, r := range f.replicas {
				t.Logf("%s's log:\n%s", r.Name, r.Log())
			}
		}
	})
	return f
}

// answer is one exchange through the balancer.
type answer struct {
	status   int
	upstream string // X-Upstream-Addr: the replica that answered
	body     []byte
}

var client = &http.Client{Timeout: 30 * time.Second}

// do sends a request with the session's header (none when session is
// empty) and a JSON body (none when body is empty).
func do(t *testing.T, method, url, session, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if session != "" {
		req.Header.Set("X-Mock-Session", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{status: resp.StatusCode, upstream: resp.Header.Get("X-Upstream-Addr"), body: b}
}

// signature is the settings' rating-5 signature in a GET or PATCH answer.
func signature(t *testing.T, a answer) string {
	t.Helper()
	var env struct {
		Data struct {
			Feedback []struct {
				Rating    int    `json:"rating"`
				Signature string `json:"signature"`
			} `json:"feedback"`
		} `json:"data"`
	}
	if a.status != http.StatusOK {
		t.Fatalf("settings answered %d from %s: %s", a.status, a.upstream, a.body)
	}
	if err := json.Unmarshal(a.body, &env); err != nil {
		t.Fatalf("settings: %v: %s", err, a.body)
	}
	for _, f := range env.Data.Feedback {
		if f.Rating == 5 {
			return f.Signature
		}
	}
	t.Fatalf("settings without rating 5: %s", a.body)
	return ""
}

// runProbe runs `replymock probe` against base's API, writes included,
// and wants every rule to hold (exit 0).
func runProbe(t *testing.T, base string) {
	t.Helper()
	cmd := exec.Command(replymock(t), "probe", "--target", base+"/api/v1", "--allow-writes", "--rate", "500", "--quiet")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("replymock probe through nginx: %v\n%s", err, out)
	}
}
