package deploy_test

// The settings of the compose file and of the Kubernetes Deployment, run:
// every REPLYMOCK_ variable they set is a flag of the binary, and a
// replica started with their environment (their own values, but for the
// address and the store) serves what they promise: the admin API locked,
// the hosts they name served and others refused, the ConfigMap's
// scenarios loaded. (Their schemas are checked by .ci/deploycheck.)

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/replymock/replymock/mock/internal/fleettest"
	"github.com/replymock/replymock/mock/internal/redistest"
)

const testToken = "recipe-token"

// readYAML decodes the documents of a recipe's file into out, one each.
func readYAML(t *testing.T, file string, out ...any) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := yaml.NewDecoder(f)
	for _, o := range out {
		if err := dec.Decode(o); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
}

// interpolation is compose's ${NAME:-default} and ${NAME:?error}.
var interpolation = regexp.MustCompile(`\$\{([A-Z_]+):([-?])([^}]*)\}`)

// composeEnv is the replicas' environment in compose.yaml, interpolated
// with their defaults and the test's admin token.
func composeEnv(t *testing.T) map[string]string {
	var doc struct {
		Replica struct {
			Environment map[string]string `yaml:"environment"`
		} `yaml:"x-replica"`
	}
	readYAML(t, "compose.yaml", &doc)
	env := map[string]string{}
	for k, v := range doc.Replica.Environment {
		env[k] = interpolation.ReplaceAllStringFunc(v, func(m string) string {
			p := interpolation.FindStringSubmatch(m)
			if p[2] == "?" {
				if p[1] != "REPLYMOCK_ADMIN_TOKEN" {
					t.Fatalf("compose.yaml requires %s, which the test does not set", p[1])
				}
				return testToken
			}
			return p[3]
		})
	}
	if len(env) == 0 {
		t.Fatal("compose.yaml: x-replica sets no environment")
	}
	return env
}

// k8sDeployment is the replymock container's environment in
// deployment.yaml (a Secret's value is the test's token) and the
// ConfigMap's scenario files.
func k8sDeployment(t *testing.T) (env, scenarios map[string]string) {
	type envVar struct {
		Name      string         `yaml:"name"`
		Value     *string        `yaml:"value"`
		ValueFrom map[string]any `yaml:"valueFrom"`
	}
	var d struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name string   `yaml:"name"`
						Env  []envVar `yaml:"env"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	readYAML(t, filepath.Join("k8s", "deployment.yaml"), &d)
	env = map[string]string{}
	for _, c := range d.Spec.Template.Spec.Containers {
		for _, e := range c.Env {
			switch {
			case e.Value != nil:
				env[e.Name] = *e.Value
			case e.Name == "REPLYMOCK_ADMIN_TOKEN":
				env[e.Name] = testToken
			default:
				t.Fatalf("deployment.yaml: %s comes from %v, which the test does not set", e.Name, e.ValueFrom)
			}
		}
	}
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	readYAML(t, filepath.Join("k8s", "scenarios.yaml"), &cm)
	if len(env) == 0 || len(cm.Data) == 0 {
		t.Fatal("deployment.yaml sets no environment, or scenarios.yaml holds no scenario")
	}
	return env, cm.Data
}

// checkFlags wants every REPLYMOCK_ variable env names to be a flag of
// bin; REPLYMOCK_STORE once the binary has --store.
func checkFlags(t *testing.T, bin, recipe string, env map[string]string) {
	t.Helper()
	out, _ := exec.Command(bin, "serve", "--help").CombinedOutput()
	known := map[string]bool{}
	for _, m := range regexp.MustCompile(`env (REPLYMOCK_[A-Z_]+)`).FindAllStringSubmatch(string(out), -1) {
		known[m[1]] = true
	}
	for name := range env {
		if !known[name] {
			t.Errorf("%s sets %s, which is no flag of replymock", recipe, name)
		}
	}
}

// startWith starts a replica with a recipe's environment, but for its
// address (the harness's loopback port) and its store (the test's Redis).
func startWith(t *testing.T, bin, label string, env map[string]string) *fleettest.Replica {
	t.Helper()
	dir := t.TempDir()
	var list []string
	for k, v := range env {
		if k == "REPLYMOCK_STORE" {
			v = redistest.Start(t).URL()
		}
		list = append(list, k+"="+v)
	}
	return fleettest.StartReplica(t, dir, label, bin, nil, list)
}

// status sends GET path to r with a Host and a token (none when empty).
func status(t *testing.T, r *fleettest.Replica, path, host, token string, header ...string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, r.URL()+path, nil)
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// wantLocked wants the admin API locked by the token, health open.
func wantLocked(t *testing.T, recipe string, r *fleettest.Replica) {
	t.Helper()
	if got := status(t, r, "/__mock/scenarios", "", ""); got != http.StatusUnauthorized {
		t.Errorf("%s: the admin API without the token answered %d, want 401", recipe, got)
	}
	if got := status(t, r, "/__mock/scenarios", "", testToken); got != http.StatusOK {
		t.Errorf("%s: the admin API with the token answered %d, want 200", recipe, got)
	}
	if got := status(t, r, "/__mock/health", "", ""); got != http.StatusOK {
		t.Errorf("%s: /__mock/health answered %d, want 200 without a token", recipe, got)
	}
}

func TestComposeReplicaSettings(t *testing.T) {
	needTools(t, "redis-server")
	bin := replymock(t)
	env := composeEnv(t)
	checkFlags(t, bin, "compose.yaml", env)
	r := startWith(t, bin, "compose-replica", env)
	wantLocked(t, "compose.yaml", r)
	for host, want := range map[string]int{"localhost:8080": 200, "replymock-1:8080": 200, "mock.example.test": 403} {
		if got := status(t, r, "/api/v1/feedbacks?limit=1", host, ""); got != want {
			t.Errorf("compose.yaml: Host %s answered %d, want %d", host, got, want)
		}
	}
}

func TestKubernetesReplicaSettings(t *testing.T) {
	needTools(t, "redis-server")
	bin := replymock(t)
	env, scenarios := k8sDeployment(t)
	checkFlags(t, bin, "k8s/deployment.yaml", env)

	// The ConfigMap's files, where the Deployment mounts them.
	dir := t.TempDir()
	var files []string
	for name, body := range scenarios {
		files = append(files, filepath.Join(dir, name))
		if err := os.WriteFile(files[len(files)-1], []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command(bin, append([]string{"validate"}, files...)...).CombinedOutput(); err != nil {
		t.Fatalf("replymock validate of k8s/scenarios.yaml's files: %v\n%s", err, out)
	}
	if env["REPLYMOCK_SCENARIOS"] != "/scenarios" {
		t.Fatalf("deployment.yaml: REPLYMOCK_SCENARIOS is %q, not the ConfigMap's mount /scenarios", env["REPLYMOCK_SCENARIOS"])
	}
	env["REPLYMOCK_SCENARIOS"] = dir

	r := startWith(t, bin, "k8s-replica", env)
	wantLocked(t, "k8s/deployment.yaml", r)
	hosts := map[string]int{"replymock:8080": 200, "replymock.ci.svc.cluster.local:8080": 200, "mock.example.test": 200, "rebound.example.test": 403}
	for host, want := range hosts {
		if got := status(t, r, "/api/v1/feedbacks?limit=1", host, ""); got != want {
			t.Errorf("k8s/deployment.yaml: Host %s answered %d, want %d", host, got, want)
		}
	}
	for name := range scenarios {
		scenario := strings.TrimSuffix(name, ".yaml")
		if got := status(t, r, "/api/v1/settings/ai", "", "", "X-Mock-Scenario", scenario); got != http.StatusOK {
			t.Errorf("scenario %s of the ConfigMap: %d, want 200", scenario, got)
		}
	}
}
