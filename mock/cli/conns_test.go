package cli

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// 20,000 idle keep-alive connections hold at most --max-conns handles of
// the server, and a new client still gets its answers.
func TestManyIdleConnections(t *testing.T) {
	const clients, perChild, maxConns = 2, 10_000, 2048
	base, _, _ := startServe(t, config{maxConns: maxConns}, mock.Options{}, false)
	addr := strings.TrimPrefix(base, "http://")
	type report struct{ opened, answered int }
	reports := make(chan report, clients)
	for range clients {
		_, out, _ := child(t, "idler", nil, "REPLYMOCK_TEST_TARGET="+addr, "REPLYMOCK_TEST_CONNS="+strconv.Itoa(perChild))
		go func() {
			var r report
			line, _ := out.ReadString('\n')
			fmt.Sscanf(line, "opened=%d answered=%d", &r.opened, &r.answered)
			reports <- r
		}()
	}
	opened, answered := 0, 0
	for range clients {
		select {
		case r := <-reports:
			opened += r.opened
			answered += r.answered
		case <-time.After(3 * time.Minute):
			t.Fatal("the idle clients did not finish connecting")
		}
	}
	if opened != clients*perChild || answered != opened {
		t.Errorf("%d connections opened and %d answered, want %d of each", opened, answered, clients*perChild)
	}
	// Now 20,000 connections are open on the clients' side; the server
	// keeps at most maxConns of them.
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil && len(fds) > maxConns+256 {
		t.Errorf("the server holds %d file handles with 20,000 idle connections, want at most about %d", len(fds), maxConns)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	var took []time.Duration
	for range 50 {
		start := time.Now()
		resp, err := client.Get(base + "/api/v1/feedbacks?limit=1")
		if err != nil {
			t.Fatalf("a new client with 20,000 idle connections open: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("a new client: %d", resp.StatusCode)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	t.Logf("a new client's request with %d idle connections open: median %v, max %v", opened, took[len(took)/2], took[len(took)-1])
}

// An idle keep-alive connection is closed after the idle timeout, and the
// default timeout is at most 30 seconds, so idle clients hold no handle
// for long.
func TestIdleConnectionClosed(t *testing.T) {
	if defaultTimeouts.idle <= 0 || defaultTimeouts.idle > 30*time.Second {
		t.Errorf("the default idle timeout is %v, want at most 30s", defaultTimeouts.idle)
	}
	to := defaultTimeouts
	to.idle = 300 * time.Millisecond
	base, _, _ := startServe(t, config{timeouts: to, maxConns: defaultMaxConns}, mock.Options{}, false)
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/v1/feedbacks?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("first answer: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	// Idle now: the server closes the connection after the idle timeout,
	// well before this read's own deadline.
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("reading an idle connection: %d bytes, %v; want EOF when the server closes it", n, err)
	}
	if took := time.Since(start); took < to.idle/2 {
		t.Errorf("the idle connection was closed after %v, before the idle timeout %v", took, to.idle)
	}
}
