// Command deploycheck checks mock/deploy's recipes with the schemas of the
// tools that read them, as CI runs it (.ci/run):
//
//	go run . ../../mock/deploy
//
// The compose file is loaded as docker compose loads it (compose-go: the
// Compose Specification's JSON schema, interpolation, then the model's
// consistency: services, networks and volumes named exist), once with the
// variables it requires and once without them, which must fail. The
// Kubernetes manifests are decoded as the API server decodes them, strictly,
// into k8s.io/api's types (an unknown or repeated field, a wrong type or a
// bad quantity is an error), then checked against each other: selectors
// that select, named ports that exist, the ConfigMaps and Services named,
// and what every container of a real cluster needs here (non-root, a
// read-only root file system, no privilege escalation, a memory limit,
// readiness and liveness probes).
//
// It is a module of its own so that the recipes' schemas stay out of
// replymock's dependencies.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: deploycheck DEPLOY_DIR (mock/deploy)")
		os.Exit(2)
	}
	dir := os.Args[1]
	var problems []string
	problems = append(problems, checkCompose(filepath.Join(dir, "compose.yaml"))...)
	problems = append(problems, checkKubernetes(filepath.Join(dir, "k8s"))...)
	for _, p := range problems {
		fmt.Println(p)
	}
	if len(problems) > 0 {
		fmt.Printf("deploycheck: %d problems\n", len(problems))
		os.Exit(1)
	}
	fmt.Println("deploycheck: the compose file and the Kubernetes manifests hold")
}

// checkCompose loads the compose file as docker compose would.
func checkCompose(file string) []string {
	var problems []string
	env := []string{"REPLYMOCK_ADMIN_TOKEN=deploycheck"}
	p, err := loadCompose(file, env)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", file, err)}
	}
	want := []string{"nginx", "redis", "replymock-1", "replymock-2", "replymock-3"}
	if got := p.ServiceNames(); strings.Join(slices.Sorted(slices.Values(got)), ",") != strings.Join(want, ",") {
		problems = append(problems, fmt.Sprintf("%s: services %v, want %v", file, got, want))
	}
	for _, name := range []string{"replymock-1", "replymock-2", "replymock-3", "redis", "nginx"} {
		s, err := p.GetService(name)
		if err != nil {
			continue
		}
		if s.HealthCheck == nil || len(s.HealthCheck.Test) == 0 {
			problems = append(problems, fmt.Sprintf("%s: service %s has no health check", file, name))
		}
		if strings.HasPrefix(name, "replymock-") {
			if v := s.Environment["REPLYMOCK_STORE"]; v == nil || !strings.HasPrefix(*v, "redis://redis:") {
				problems = append(problems, fmt.Sprintf("%s: service %s is not on the redis service's store", file, name))
			}
			if !s.ReadOnly {
				problems = append(problems, fmt.Sprintf("%s: service %s's root file system is not read-only", file, name))
			}
		}
	}
	if _, err := loadCompose(file, nil); err == nil || !strings.Contains(err.Error(), "REPLYMOCK_ADMIN_TOKEN") {
		problems = append(problems, fmt.Sprintf("%s: loads without REPLYMOCK_ADMIN_TOKEN (%v): the fleet's admin API must be locked", file, err))
	}
	return problems
}

// loadCompose loads file with env as the only environment.
func loadCompose(file string, env []string) (*types.Project, error) {
	opts, err := cli.NewProjectOptions([]string{file},
		cli.WithWorkingDirectory(filepath.Dir(file)),
		cli.WithEnv(env),
	)
	if err != nil {
		return nil, err
	}
	p, err := opts.LoadProject(context.Background())
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("no project")
	}
	return p, nil
}
