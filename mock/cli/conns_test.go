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

// fakeConn is a connection of fakeListener's; Close notes that it closed.
type fakeConn struct {
	net.Conn
	id     int
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// fakeListener accepts fakeConns, numbered from 0.
type fakeListener struct {
	net.Listener
	conns []*fakeConn
}

func (l *fakeListener) Accept() (net.Conn, error) {
	l.conns = append(l.conns, &fakeConn{id: len(l.conns)})
	return l.conns[len(l.conns)-1], nil
}

func (l *fakeListener) Close() error { return nil }

// BenchmarkConnStates measures what tracking the connections costs a
// request on a kept-alive connection: it turns active, then idle.
func BenchmarkConnStates(b *testing.B) {
	hs := &http.Server{}
	ln := limitConns(&fakeListener{}, hs, 100)
	var conns []net.Conn
	for range 32 {
		c, _ := ln.Accept()
		hs.ConnState(c, http.StateNew)
		conns = append(conns, c)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c := conns[i%len(conns)]
		hs.ConnState(c, http.StateActive)
		hs.ConnState(c, http.StateIdle)
		i++
	}
}

// When a new connection fills the last place, the idle keep-alive that
// has waited longest is closed or, with none, the connection that has
// waited longest for its first request; a connection serving a request
// never is, and one closed frees its place.
func TestConnLimiterClosesLongestWaiting(t *testing.T) {
	hs := &http.Server{}
	fl := &fakeListener{}
	ln := limitConns(fl, hs, 4)
	var conns []net.Conn
	accept := func() {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		hs.ConnState(c, http.StateNew)
	}
	closed := func() []int {
		var ids []int
		for _, c := range fl.conns {
			if c.closed {
				ids = append(ids, c.id)
			}
		}
		return ids
	}
	serve := func(i int) { hs.ConnState(conns[i], http.StateActive); hs.ConnState(conns[i], http.StateIdle) }
	for range 3 {
		accept() // fresh: 0, 1, 2
	}
	serve(0)                                 // idle: 0
	hs.ConnState(conns[1], http.StateActive) // 1 serves a request
	accept()                                 // 3 fills the last place: 0, the only idle one, goes
	hs.ConnState(conns[0], http.StateClosed) // and its server lets it go
	if got := closed(); !slices.Equal(got, []int{0}) {
		t.Fatalf("closed %v, want [0]", got)
	}
	accept() // 4: no idle one, so the fresh one waiting longest, 2
	hs.ConnState(conns[2], http.StateClosed)
	if got := closed(); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("closed %v, want [0 2]", got)
	}
	serve(3)
	hs.ConnState(conns[1], http.StateIdle) // idle: 3, then 1
	serve(4)                               // idle: 3, 1, 4
	serve(3)                               // idle: 1, 4, 3
	accept()                               // 5: 1 has waited longest
	if got := closed(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("closed %v, want [0 1 2]", got)
	}
	hs.ConnState(conns[1], http.StateClosed)
	hs.ConnState(conns[4], http.StateHijacked) // a hijacked one frees its place too
	accept()                                   // 6: 3 of 4 places taken, no one goes
	if got := closed(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("closed %v, want [0 1 2]: there was room", got)
	}
	hs.ConnState(&fakeConn{}, http.StateNew) // a connection of another listener is not tracked
}
