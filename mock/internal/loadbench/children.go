package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// child is a server process the benchmark started, with its stderr
// drained and discarded as a container runtime would, counted.
type child struct {
	name  string
	url   string
	cmd   *exec.Cmd
	lines atomic.Int64 // lines read from its stderr
	tail  tailBuffer   // the end of its stderr, for errors
	done  chan struct{}
}

// children are the processes started and the temporary folders made, so
// that an early error or an interrupt stops and removes them too.
var children struct {
	mu   sync.Mutex
	list []*child
	dirs []string
}

// startChild runs bin with args (and env on top of the environment
// without REPLYMOCK_ variables, so the binary sees its defaults) on a
// free loopback port given by --addr, and waits until it answers ready.
func startChild(name, bin string, args, env []string, ready string) (*child, error) {
	var lastErr error
	for range 3 { // the free port may be taken between asking and listening
		addr, err := freePort()
		if err != nil {
			return nil, err
		}
		c, err := startOnce(name, bin, append(args, "--addr", addr), env, "http://"+addr, ready)
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startOnce(name, bin string, args, env []string, url, ready string) (*child, error) {
	c := &child{name: name, url: url, done: make(chan struct{})}
	c.cmd = exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REPLYMOCK_") && !strings.HasPrefix(kv, "LOADBENCH_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Env = append(c.cmd.Env, env...)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	children.mu.Lock()
	children.list = append(children.list, c)
	children.mu.Unlock()
	go func() {
		defer close(c.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := stderr.Read(buf)
			c.lines.Add(int64(bytes.Count(buf[:n], []byte{'\n'})))
			c.tail.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-c.done: // stderr closed: the process has ended
			c.stop()
			return nil, fmt.Errorf("%s exited at start: %s", name, c.tail.String())
		default:
		}
		resp, err := client.Get(url + ready)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c, nil
			}
		}
	}
	c.stop()
	return nil, fmt.Errorf("%s did not answer %s within 30 s: %s", name, ready, c.tail.String())
}

// stop ends the process by its PID: SIGTERM, so that it drains and
// flushes its logs, then SIGKILL after a few seconds.
func (c *child) stop() {
	p := c.cmd.Process
	p.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		p.Kill()
		<-exited
	}
	children.mu.Lock()
	defer children.mu.Unlock()
	for i, o := range children.list {
		if o == c {
			children.list = append(children.list[:i], children.list[i+1:]...)
			break
		}
	}
}

// stopChildren stops every child still running, then removes the
// temporary folders.
func stopChildren() {
	children.mu.Lock()
	list := append([]*child(nil), children.list...)
	children.mu.Unlock()
	for _, c := range list {
		c.stop()
	}
	children.mu.Lock()
	defer children.mu.Unlock()
	for _, dir := range children.dirs {
		os.RemoveAll(dir)
	}
	children.dirs = nil
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4096; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// buildReplymock builds the replymock binary of the module the benchmark
// runs in, into dir.
func buildReplymock(dir string) (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if root == "." || root == "" {
		return "", errors.New("not inside the replymock module")
	}
	bin := filepath.Join(dir, "replymock")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// staticPage is what the static server serves: a page and its headers.
type staticPage struct {
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// staticHandler writes the page from memory: the practical limit.
func staticHandler(p staticPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range p.Header {
			w.Header()[k] = v
		}
		w.Write(p.Body)
	})
}

// startStatic runs the static handler in a process of its own (this
// program again, told so by LOADBENCH_STATIC), so that it and replymock
// are measured alike: another process, reached over loopback.
func startStatic(dir string, p staticPage) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "static-page.json")
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	return startChild("static", self, nil, []string{"LOADBENCH_STATIC=" + file}, "/ready")
}

// serveStatic is the static server process: it serves the page in file
// on --addr until it is signalled.
func serveStatic(file string, args []string) error {
	if len(args) != 2 || args[0] != "--addr" {
		return fmt.Errorf("static server: want --addr ADDR, got %q", args)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var p staticPage
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", args[1])
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: staticHandler(p), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signalContext()
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
