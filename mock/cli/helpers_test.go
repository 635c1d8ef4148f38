package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

func env(kv map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
}

// startServe runs serve with cfg on free loopback ports and returns the
// base URLs (API, then admin if asked) and a stop function that returns
// serve's error.
func startServe(t *testing.T, cfg config, opts mock.Options, withAdmin bool) (string, string, func() error) {
	t.Helper()
	free := func() string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		return ln.Addr().String()
	}
	cfg.addr = free()
	if withAdmin {
		cfg.adminAddr = free()
	}
	// What run gives serve: checked flags and a logger.
	if cfg.timeouts == (timeouts{}) {
		cfg.timeouts = defaultTimeouts
	}
	if cfg.maxConns == 0 {
		cfg.maxConns = defaultMaxConns
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, opts) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + cfg.addr + "/__mock/health")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("server never answered: %v", err)
		}
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(30 * time.Second):
			return fmt.Errorf("serve did not return")
		}
	}
	t.Cleanup(func() { stop() })
	admin := ""
	if withAdmin {
		admin = "http://" + cfg.adminAddr
	}
	return "http://" + cfg.addr, admin, stop
}

// syncBuffer is a stderr for run that tests may read while it writes,
// counting the writes it gets.
type syncBuffer struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	writes int
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.writes++
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func (b *syncBuffer) Writes() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.writes
}

// freeAddr is a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitHealthy waits until a server started by run answers at addr.
func waitHealthy(t *testing.T, addr string, done <-chan error) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/__mock/health")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case err := <-done:
			t.Fatalf("server stopped: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server never answered: %v", err)
		}
	}
}

// TestMain lets the test binary play other programs for the tests that
// need a process of their own: the server (to send it signals) and a
// client holding thousands of connections (each process may hold only so
// many file handles).
func TestMain(m *testing.M) {
	switch os.Getenv("REPLYMOCK_TEST_ROLE") {
	case "main":
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv("REPLYMOCK_TEST_ARGS")), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{"replymock"}, args...)
		Main("")
		os.Exit(0)
	case "idler":
		n, _ := strconv.Atoi(os.Getenv("REPLYMOCK_TEST_CONNS"))
		idle(os.Getenv("REPLYMOCK_TEST_TARGET"), n)
		os.Exit(0)
	case "staller":
		n, _ := strconv.Atoi(os.Getenv("REPLYMOCK_TEST_CONNS"))
		stallBodies(os.Getenv("REPLYMOCK_TEST_TARGET"), n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// idle opens n keep-alive connections to addr, each with one answered
// request, reports how many it opened and how many were answered, and
// holds them until its stdin closes.
func idle(addr string, n int) {
	var mu sync.Mutex
	var conns []net.Conn
	opened, answered := 0, 0
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 32 {
		wg.Go(func() {
			for range work {
				c, err := net.DialTimeout("tcp", addr, 10*time.Second)
				if err != nil {
					continue
				}
				c.SetDeadline(time.Now().Add(10 * time.Second))
				fmt.Fprintf(c, "GET /__mock/health HTTP/1.1\r\nHost: localhost\r\n\r\n")
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				ok := err == nil && resp.StatusCode == 200
				if ok {
					io.Copy(io.Discard, resp.Body)
				}
				c.SetDeadline(time.Time{})
				mu.Lock()
				opened++
				if ok {
					answered++
				}
				conns = append(conns, c)
				mu.Unlock()
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	fmt.Printf("opened=%d answered=%d\n", opened, answered)
	io.Copy(io.Discard, os.Stdin)
}

// child runs the test binary in role with env, its stdout piped and its
// stderr to stderr; it is killed at the end of the test.
func child(t *testing.T, role string, stderr io.Writer, env ...string) (*exec.Cmd, *bufio.Reader, io.WriteCloser) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"REPLYMOCK_TEST_ROLE=" + role}, env...)...)
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd, bufio.NewReader(out), in
}

// startChild runs replymock in a process of its own with args, on a free
// loopback port, and returns it and its log.
func startChild(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	js, _ := json.Marshal(append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, args...))
	logs := &syncBuffer{}
	cmd, _, _ := child(t, "main", logs, "REPLYMOCK_TEST_ARGS="+string(js))
	return cmd, logs
}

// waitLog waits until the log holds want, and returns the log.
func waitLog(t *testing.T, logs *syncBuffer, want string) string {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s := logs.String(); strings.Contains(s, want) {
			return s
		}
	}
	t.Fatalf("the log never said %q: %s", want, logs.String())
	return ""
}

// exited waits for cmd to end, failing the test if it is still running
// after limit (a hang, not a speed goal).
func exited(t *testing.T, cmd *exec.Cmd, limit time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		t.Fatalf("the process was still running %v after it was told to stop", limit)
		return nil
	}
}

// servingAddr is the address a child's "replymock serving" log line names.
func servingAddr(t *testing.T, logs *syncBuffer) string {
	t.Helper()
	var line struct{ Addr string }
	for l := range strings.SplitSeq(waitLog(t, logs, `"msg":"replymock serving"`), "\n") {
		if strings.Contains(l, `"msg":"replymock serving"`) {
			json.Unmarshal([]byte(l), &line)
		}
	}
	return "http://" + line.Addr
}
