// Package redistest runs a real redis-server for tests.
// It listens on 127.0.0.1 on a free port, with no persistence and its
// files in a temporary folder, and is stopped by its PID. Tests of the shared store (--store) use it; CI
// installs Debian's redis-server.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TB is the part of testing.TB the server needs.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
	TempDir() string
	Cleanup(func())
}

// Server is one redis-server process.
type Server struct {
	t    TB
	Port int
	dir  string
	args []string
	cmd  *exec.Cmd
}

// Start starts a redis-server on a free loopback port, with args added
// to its command line (--requirepass PASS, say); it stops when the test
// ends.
func Start(t TB, args ...string) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("a free port: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	s := &Server{t: t, Port: port, dir: t.TempDir(), args: args}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.Port) }

// Addr is its host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// Restart starts the server again on its port (after Stop); what it
// kept is gone (no persistence).
func (s *Server) Restart() {
	s.t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		s.t.Fatalf("redis-server is not installed (apt-get install redis-server): %v", err)
	}
	s.cmd = exec.Command(bin, "--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"), "--daemonize", "no", "--protected-mode", "yes")
	s.cmd.Args = append(s.cmd.Args, s.args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("redis-server: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", s.Addr(), time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
			s.t.Fatalf("redis-server did not listen on %s: %v\n%s", s.Addr(), err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop kills the server by its PID and waits for it.
func (s *Server) Stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.cmd.Process.Kill()
	s.cmd.Wait()
	s.cmd = nil
}

// CommandCalls reads the answer of INFO commandstats: how many times
// Redis ran each command (its scripts' calls among them) since it
// started or its statistics were reset, by name (mget, evalsha...).
func CommandCalls(info string) map[string]int {
	out := make(map[string]int)
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "cmdstat_"), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		out[name], _ = strconv.Atoi(n)
	}
	return out
}
