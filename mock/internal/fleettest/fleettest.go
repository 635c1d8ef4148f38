// Package fleettest starts a replymock fleet on loopback for a test.
//
// It starts replicas built from this module, and nginx in front (their
// Redis is mock/internal/redistest's). Each process gets its folder and its
// log file, and is stopped by its PID when the test ends (SIGTERM, then
// SIGKILL after a grace), never by name. Only tests import it.
package fleettest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// StartTimeout bounds how long a process may take to answer after it
// starts (a replica builds its scenario's data first).
const StartTimeout = 60 * time.Second

// Proc is a process a test started. Its output goes to LogPath.
type Proc struct {
	Name    string
	LogPath string
	cmd     *exec.Cmd
	exited  chan struct{}
}

// Start runs name with args in dir, its stdout and stderr in
// dir/<label>.log, with the environment but for REPLYMOCK_ variables, and
// env on top. The process is stopped by its PID when t ends.
func Start(t testing.TB, dir, label, name string, args, env []string) *Proc {
	t.Helper()
	p, err := start(dir, label, name, args, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

func start(dir, label, name string, args, env []string) (*Proc, error) {
	logPath := filepath.Join(dir, label+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REPLYMOCK_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	p := &Proc{Name: label, LogPath: logPath, cmd: cmd, exited: make(chan struct{})}
	go func() { cmd.Wait(); close(p.exited) }()
	return p, nil
}

// PID is the process's id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Stop ends the process by its PID: SIGTERM, so that it drains, then
// SIGKILL if it is still running 10 s later. Stopping twice is harmless.
func (p *Proc) Stop() {
	if p.Exited() {
		return
	}
	syscall.Kill(p.PID(), syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		syscall.Kill(p.PID(), syscall.SIGKILL)
		<-p.exited
	}
}

// Kill ends the process at once by its PID (SIGKILL), as a crash would.
func (p *Proc) Kill() {
	if !p.Exited() {
		syscall.Kill(p.PID(), syscall.SIGKILL)
		<-p.exited
	}
}

// Log is what the process wrote so far, its last 8 KiB.
func (p *Proc) Log() string {
	b, _ := os.ReadFile(p.LogPath)
	if len(b) > 8<<10 {
		b = b[len(b)-8<<10:]
	}
	return string(b)
}

// FreePort asks the system for a free port on 127.0.0.1. Another process
// may take it before it is used: callers that can, retry.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitUntil calls ready until it answers nil, the process exits or
// StartTimeout passes.
func (p *Proc) waitUntil(ready func() error) error {
	deadline := time.Now().Add(StartTimeout)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if p.Exited() {
			return fmt.Errorf("%s exited at start: %v\n%s", p.Name, err, p.Log())
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready within %s: %v\n%s", p.Name, StartTimeout, err, p.Log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BuildReplymock builds this module's replymock binary into dir.
func BuildReplymock(t testing.TB, dir string) string {
	t.Helper()
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if root == "." || root == "" {
		t.Fatal("not inside the replymock module")
	}
	bin := filepath.Join(dir, "replymock")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOFLAGS=") // not CI's -race: the replicas are not under test here
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Replica is a replymock process on a loopback port.
type Replica struct {
	*Proc
	Addr string // 127.0.0.1:PORT, as its start-up log said
}

// URL is the replica's base URL.
func (r *Replica) URL() string { return "http://" + r.Addr }

var servingAddr = regexp.MustCompile(`msg="replymock serving" addr=([^ ]+)`)

// StartReplica runs bin with args on 127.0.0.1 and a port of the
// system's choice (--addr 127.0.0.1:0, a text log), named label, and
// waits until it answers /__mock/health.
func StartReplica(t testing.TB, dir, label, bin string, args, env []string) *Replica {
	t.Helper()
	args = append([]string{"--addr", "127.0.0.1:0", "--log-format", "text"}, args...)
	p := Start(t, dir, label, bin, args, env)
	r := &Replica{Proc: p}
	err := p.waitUntil(func() error {
		if r.Addr == "" {
			m := servingAddr.FindStringSubmatch(p.Log())
			if m == nil {
				return errors.New("no start-up line yet")
			}
			r.Addr = m[1]
		}
		return Healthy(r.URL())
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Healthy asks base/__mock/health and wants a 200.
func Healthy(base string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/__mock/health", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/__mock/health answered %d", resp.StatusCode)
	}
	return nil
}

// NginxConfigTest runs `nginx -t` on conf, as the current user, with its
// prefix in dir: nil when nginx takes the configuration.
func NginxConfigTest(dir, conf string) error {
	out, err := exec.Command("nginx", nginxArgs(dir, conf, "-t")...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("nginx -t -c %s: %v\n%s", conf, err, out)
	}
	return nil
}

// nginxArgs are nginx's arguments for conf with its prefix in dir. As
// root, the workers run as root too, so that they may use the test's
// folders (nginx otherwise gives them to nobody).
func nginxArgs(dir, conf string, more ...string) []string {
	global := "daemon off;"
	if os.Geteuid() == 0 {
		global += " user root;"
	}
	return append([]string{"-p", dir, "-c", conf, "-e", filepath.Join(dir, "nginx-error.log"), "-g", global}, more...)
}

// StartNginx runs nginx on conf (which must say neither daemon nor user)
// with its prefix in dir, and waits until addr takes connections.
func StartNginx(t testing.TB, dir, conf, addr string) *Proc {
	t.Helper()
	p := Start(t, dir, "nginx", "nginx", nginxArgs(dir, conf), nil)
	err := p.waitUntil(func() error {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	})
	if err != nil {
		b, _ := os.ReadFile(filepath.Join(dir, "nginx-error.log"))
		t.Fatalf("%v\n%s", err, bytes.TrimSpace(b))
	}
	return p
}
