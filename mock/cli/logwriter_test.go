package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// The log goes to stderr through a buffer: after run returns, every line
// is there, in the order logged, and the requests' lines did not cost a
// write each.
func TestLogsReachStderrInOrderOnShutdown(t *testing.T) {
	// A context canceled at once: it stops while starting, and says so.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	logs := &syncBuffer{}
	if err := run(ctx, []string{"--addr", freeAddr(t)}, env(nil), io.Discard, logs); err != nil {
		t.Fatalf("run: %v", err)
	}
	if got := logs.String(); !strings.Contains(got, `msg="replymock stopped while starting"`) || strings.Contains(got, "replymock serving") {
		t.Errorf("after run canceled at once, stderr is %q; want only the line saying it stopped while starting", got)
	}

	// Requests one after another, then shutdown: all their lines, in order.
	addr := freeAddr(t)
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	logs = &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", addr}, env(nil), io.Discard, logs) }()
	waitHealthy(t, addr, done)
	const n = 200
	for i := range n {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/feedbacks?limit=1", nil)
		req.Header.Set("X-Request-Id", fmt.Sprintf("order-%03d", i))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(logs.String(), "\n"), "\n")
	if len(lines) != n+3 {
		t.Fatalf("stderr has %d lines, want %d (starting, serving, %d requests, shutdown):\n%s", len(lines), n+3, n, logs.String())
	}
	if !strings.Contains(lines[0], `msg="replymock starting"`) || !strings.Contains(lines[1], `msg="replymock serving"`) || !strings.Contains(lines[n+2], `msg="replymock shutting down`) {
		t.Errorf("lines %q, %q ... %q; want starting, serving ... shutdown", lines[0], lines[1], lines[n+2])
	}
	for i, line := range lines[2 : n+2] {
		if !strings.Contains(line, "msg=request ") || !strings.Contains(line, fmt.Sprintf(" request_id=order-%03d ", i)) {
			t.Fatalf("line %d is %q; want the request line of order-%03d", i+3, line, i)
		}
	}
	if w := logs.Writes(); w > len(lines)/2 {
		t.Errorf("%d lines took %d writes to stderr; want them written in blocks", len(lines), w)
	}
}

// Without a shutdown, what is logged reaches stderr within the flush
// interval.
func TestLogFlushedWithinInterval(t *testing.T) {
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logs := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"--addr", addr}, env(nil), io.Discard, logs) }()
	waitHealthy(t, addr, done)
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/api/v1/feedbacks?limit=1", nil)
	req.Header.Set("X-Request-Id", "flush-me")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	answered := time.Now()
	// The interval, and slack for a loaded machine.
	for !strings.Contains(logs.String(), "request_id=flush-me ") {
		if time.Since(answered) > logFlushInterval+2*time.Second {
			t.Fatalf("the request's line did not reach stderr within %v: %q", logFlushInterval, logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), `msg="replymock serving"`) {
		t.Errorf("the start-up line is not on stderr: %q", logs.String())
	}
	select {
	case err := <-done:
		t.Fatalf("run returned before the check: %v", err)
	default:
	}
}

// The writer itself: a write is buffered, not written; the buffer goes
// out after the interval; lines from many goroutines keep each one's
// order, a block never splits a line, and Close writes the rest.
func TestLogWriter(t *testing.T) {
	out := &syncBuffer{}
	w := newLogWriter(out, 50*time.Millisecond, 1024)
	start := time.Now()
	w.Write([]byte("first\n"))
	if out.Writes() != 0 && time.Since(start) < 50*time.Millisecond {
		t.Fatal("a line was written at once, not buffered")
	}
	for out.String() != "first\n" {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the buffered line was not written after the interval: %q", out.String())
		}
		time.Sleep(time.Millisecond)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("written after %v, before the interval", d)
	}

	const writers, each = 8, 500
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				line := fmt.Sprintf("g%d line %04d %s\n", g, i, strings.Repeat("x", i%50))
				if i%97 == 0 {
					line = fmt.Sprintf("g%d line %04d %s\n", g, i, strings.Repeat("y", 2000)) // over the buffer
				}
				w.Write([]byte(line))
			}
		})
	}
	wg.Wait()
	w.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 1+writers*each {
		t.Fatalf("%d lines, want %d", len(lines), 1+writers*each)
	}
	next := make([]int, writers)
	for _, line := range lines[1:] {
		var g, i int
		if _, err := fmt.Sscanf(line, "g%d line %d", &g, &i); err != nil || g < 0 || g >= writers {
			t.Fatalf("garbled line %q", line)
		}
		if i != next[g] {
			t.Fatalf("writer %d: line %d after line %d", g, i, next[g]-1)
		}
		next[g]++
	}
	if w := out.Writes(); w >= writers*each/4 {
		t.Errorf("%d lines took %d writes", writers*each, w)
	}
	w.Write([]byte("after close\n"))
	if !strings.HasSuffix(out.String(), "after close\n") {
		t.Error("a write after Close was buffered")
	}
}
