package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	client string
	closed bool
}

func (c *fakeConn) Close() error { c.closed = true; return nil }

// RemoteAddr is the connection's client: client, or 10.0.0.ID.
func (c *fakeConn) RemoteAddr() net.Addr {
	if c.client != "" {
		return &net.TCPAddr{IP: net.ParseIP(c.client), Port: 1000 + c.id}
	}
	return &net.TCPAddr{IP: net.IPv4(10, 0, byte(c.id>>8), byte(c.id)), Port: 1000}
}

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
	ln := limitConns(&fakeListener{}, hs, 100, defaultMinBodyRate)
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

// testLimiter is a connLimiter of max places on fakeListener's
// connections, each of a client of its own, with a clock the test moves
// (from a second: 0 is no time) and its retries run by the test: retry
// runs the one set, if any.
type testLimiter struct {
	*connLimiter
	hs    *http.Server
	fl    *fakeListener
	clock time.Duration
	retry func()
	conns []net.Conn
}

func newTestLimiter(max int) *testLimiter {
	l := &testLimiter{hs: &http.Server{}, fl: &fakeListener{}, clock: time.Second}
	l.connLimiter = newConnLimiter(max, defaultMinBodyRate)
	l.now = func() time.Duration { return l.clock }
	l.after = func(_ time.Duration, f func()) { l.retry = f }
	l.install(l.hs)
	return l
}

// accept takes a new connection in.
func (l *testLimiter) accept(t *testing.T) {
	c, err := l.fl.Accept()
	if err != nil {
		t.Fatal(err)
	}
	tc := l.wrap(c)
	l.conns = append(l.conns, tc)
	l.hs.ConnState(tc, http.StateNew)
}

// runRetry runs the retry set, if any.
func (l *testLimiter) runRetry() {
	if f := l.retry; f != nil {
		l.retry = nil
		f()
	}
}

// closed lists the connections closed, by number.
func (l *testLimiter) closed() []int {
	var ids []int
	for _, c := range l.fl.conns {
		if c.closed {
			ids = append(ids, c.id)
		}
	}
	return ids
}

// When a new connection fills the last place, the idle keep-alive that
// has waited longest is closed or, with none, the connection that has
// waited longest for its first request, once it waited its grace; a
// connection serving a request without a body never is, and one closed
// frees its place.
func TestConnLimiterClosesLongestWaiting(t *testing.T) {
	l := newTestLimiter(4)
	hs, conns := l.hs, &l.conns
	serve := func(i int) { hs.ConnState((*conns)[i], http.StateActive); hs.ConnState((*conns)[i], http.StateIdle) }
	for range 3 {
		l.accept(t) // fresh: 0, 1, 2
	}
	serve(0)                                    // idle: 0
	hs.ConnState((*conns)[1], http.StateActive) // 1 serves a request
	l.accept(t)                                 // 3 fills the last place: 0, the only idle one, goes
	hs.ConnState((*conns)[0], http.StateClosed) // and its server lets it go
	if got := l.closed(); !slices.Equal(got, []int{0}) {
		t.Fatalf("closed %v, want [0]", got)
	}
	l.accept(t) // 4: no idle one, and the fresh ones are within their grace
	if got := l.closed(); !slices.Equal(got, []int{0}) || l.retry == nil {
		t.Fatalf("closed %v with the fresh ones within their grace, want [0] and a retry set", got)
	}
	l.clock += 2 * evictGrace // past every grace: the fresh one waiting longest, 2, goes
	l.runRetry()
	hs.ConnState((*conns)[2], http.StateClosed)
	if got := l.closed(); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("closed %v, want [0 2]", got)
	}
	serve(3)
	hs.ConnState((*conns)[1], http.StateIdle) // idle: 3, then 1
	serve(4)                                  // idle: 3, 1, 4
	serve(3)                                  // idle: 1, 4, 3
	l.accept(t)                               // 5: 1 has waited longest
	if got := l.closed(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("closed %v, want [0 1 2]", got)
	}
	hs.ConnState((*conns)[1], http.StateClosed)
	hs.ConnState((*conns)[4], http.StateHijacked) // a hijacked one frees its place too
	l.accept(t)                                   // 6: 3 of 4 places taken, no one goes
	if got := l.closed(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("closed %v, want [0 1 2]: there was room", got)
	}
	hs.ConnState(&fakeConn{}, http.StateNew) // a connection of another listener is not tracked
}

// At the cap, a request whose body comes under the minimum rate, once
// its reads waited its grace, is closed for a newcomer, after the idle
// keep-alives and before the new connections without a request; a body
// within its grace, one above the rate and one read whole never are, and
// a keep-alive that turns idle while newcomers wait goes at once.
func TestConnLimiterClosesSlowBodies(t *testing.T) {
	l := newTestLimiter(4)
	hs := l.hs
	body := func(i int) *bodyMeter {
		tc := l.conns[i].(*trackedConn)
		hs.ConnState(tc, http.StateActive)
		m := &bodyMeter{ReadCloser: io.NopCloser(strings.NewReader(""))}
		l.reading(tc, m)
		return m
	}
	for range 3 {
		l.accept(t)
	}
	steady, stalled, whole := body(0), body(1), body(2)
	steady.got.Store(3 * defaultMinBodyRate)
	steady.waited.Store(int64(2 * time.Second)) // 1.5 KiB/s
	stalled.got.Store(1)
	stalled.since.Store(int64(l.clock)) // waiting for the client from now on
	whole.got.Store(100)
	whole.waited.Store(int64(10 * time.Second)) // slow, but read whole
	whole.done.Store(true)
	l.accept(t) // 3 fills the last place: the stalled body is within its grace
	if got := l.closed(); len(got) != 0 || l.retry == nil {
		t.Fatalf("closed %v with no body slow past its grace, want none and a retry set", got)
	}
	l.clock += 2 * evictGrace // the stalled body, and 3, waited past their grace
	l.runRetry()
	if got := l.closed(); !slices.Equal(got, []int{1}) {
		t.Fatalf("closed %v, want [1]: the stalled body, before the new connection 3", got)
	}
	hs.ConnState(l.conns[1], http.StateClosed)
	l.read(l.conns[1].(*trackedConn)) // its handler returns
	l.accept(t)                       // 4: no slow body left; 3 waited past its grace for its request
	if got := l.closed(); !slices.Equal(got, []int{1, 3}) {
		t.Fatalf("closed %v, want [1 3]", got)
	}
	hs.ConnState(l.conns[3], http.StateClosed)
	hs.ConnState(l.conns[4], http.StateActive) // 4 serves a request without a body
	l.clock += time.Minute
	steady.got.Add(60 * defaultMinBodyRate) // still over the rate
	l.accept(t)                             // 5: none to close
	if got := l.closed(); !slices.Equal(got, []int{1, 3}) || l.retry == nil {
		t.Fatalf("closed %v, want [1 3]: the steady body, the one read whole and a request without a body stay", got)
	}
	l.read(l.conns[2].(*trackedConn))
	hs.ConnState(l.conns[2], http.StateIdle) // idle while a newcomer waits: it goes
	if got := l.closed(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("closed %v, want [1 2 3]", got)
	}
	l.runRetry() // the retry set finds the listener no longer full
	if got := l.closed(); !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("closed %v after a retry with room, want [1 2 3]", got)
	}
}

// The graces of connections that came together are spread evenly between
// evictGrace and twice it.
func TestGraceSpread(t *testing.T) {
	var graces []time.Duration
	for n := range uint64(100) {
		g := graceFor(1000 + n)
		if g < evictGrace || g >= 2*evictGrace {
			t.Fatalf("grace %v, want within [%v, %v)", g, evictGrace, 2*evictGrace)
		}
		graces = append(graces, g)
	}
	slices.Sort(graces)
	for i := 1; i < len(graces); i++ {
		if gap := graces[i] - graces[i-1]; gap > evictGrace/25 {
			t.Fatalf("100 connections' graces leave a gap of %v, want at most %v", gap, evictGrace/25)
		}
	}
}

// stallBodies keeps n connections to addr that each send a PATCH's
// headers with a body of 1,000,000 bytes, then a byte every half second;
// when the server ends one, it starts again on a new connection. It
// prints "connected" once each has sent its first headers, and, when its
// stdin closes, how many the server ended: "cut=N".
func stallBodies(addr string, n int) {
	ctx, cancel := context.WithCancel(context.Background())
	var connected, cut atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { stall(ctx, addr, &connected, &cut) })
	}
	for connected.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Println("connected")
	io.Copy(io.Discard, os.Stdin)
	cancel()
	wg.Wait()
	fmt.Printf("cut=%d\n", cut.Load())
}

// stall is one of stallBodies's connections, and those that follow it
// until ctx ends. connected counts the first headers sent; cut, the
// connections the server ended.
func stall(ctx context.Context, addr string, connected, cut *atomic.Int64) {
	first := true
	buf := make([]byte, 512)
	for ctx.Err() == nil {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		fmt.Fprintf(c, "PATCH /api/v1/settings/ai HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{")
		if first {
			connected.Add(1)
			first = false
		}
		for ctx.Err() == nil {
			c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			_, err := c.Read(buf)
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				c.Write([]byte(" "))
				continue
			}
			cut.Add(1) // closed or answered: the server ended it
			break
		}
		c.Close()
	}
}

// More connections than --max-conns that sent a body's headers and then
// send a byte now and then, coming back when closed, do not keep normal
// clients out: the slow ones are closed for newcomers, and every normal
// request is answered. The stallers outnumber the places as 4,200 do the
// default 4,096 (by 2.5%), on a tenth of the places. A normal request,
// from another address than the stallers', does not queue behind their
// comebacks: it is parked and gets the next place, a staller past its
// grace closed for it, so it waits for that grace only while the attack
// is younger than it.
//
// REPLYMOCK_TEST_STALL=full measures the figures instead:
// 4,200 stallers on the default 4,096 places, 500 normal requests one
// every 20 ms.
func TestStalledBodiesEvicted(t *testing.T) {
	maxConns, stallers, requests, every := 400, 410, 100, time.Duration(0)
	if os.Getenv("REPLYMOCK_TEST_STALL") == "full" {
		maxConns, stallers, requests, every = defaultMaxConns, 4200, 500, 20*time.Millisecond
	}
	base, _, _ := startServe(t, config{maxConns: maxConns}, mock.Options{}, false)
	addr := strings.TrimPrefix(base, "http://")
	_, out, in := child(t, "staller", nil, "REPLYMOCK_TEST_TARGET="+addr, "REPLYMOCK_TEST_CONNS="+strconv.Itoa(stallers))
	lines := make(chan string, 2)
	go func() {
		for {
			line, err := out.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- strings.TrimSpace(line)
		}
	}()
	select {
	case <-lines:
	case <-time.After(time.Minute):
		t.Fatal("the stallers did not finish connecting")
	}
	// The normal client comes from another address than the stallers, as
	// a visitor and an attacker do.
	from := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{DisableKeepAlives: true, DialContext: from.DialContext}}
	get := func() time.Duration {
		start := time.Now()
		resp, err := client.Get(base + "/api/v1/feedbacks?limit=1")
		if err != nil {
			t.Fatalf("a normal request with %d stalled bodies open: %v", stallers, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("a normal request with %d stalled bodies open: %d", stallers, resp.StatusCode)
		}
		return time.Since(start)
	}
	// The first waits until a staller has been slow long enough to go.
	first := get()
	var took []time.Duration
	for range requests {
		took = append(took, get())
		time.Sleep(every) // measured, the requests sample the attack over seconds
	}
	in.Close()
	cut := -1
	select {
	case line := <-lines:
		fmt.Sscanf(line, "cut=%d", &cut)
	case <-time.After(time.Minute):
		t.Fatal("the stallers did not stop")
	}
	if cut < 1 {
		t.Errorf("%d stalled connections cut, yet %d normal requests got in past %d of them on %d places", cut, requests+1, stallers, maxConns)
	}
	slices.Sort(took)
	t.Logf("%d normal requests with %d stalled bodies on %d places: first %v, then median %v, p99 %v, max %v; %d stalled connections cut",
		requests, stallers, maxConns, first, took[len(took)/2], took[len(took)*99/100], took[len(took)-1], cut)
}

// A body sent slowly but steadily, 4 KiB a second (four times the
// minimum rate) for four seconds, is not cut while more stalled bodies
// than places come and go around it: it is answered, and stallers were
// closed meanwhile.
func TestSteadyUploadNotCut(t *testing.T) {
	const maxConns, stallers = 20, 25
	base, _, _ := startServe(t, config{maxConns: maxConns}, mock.Options{}, false)
	addr := strings.TrimPrefix(base, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := []byte(`{"question":{"reply_mode":"disabled"}` + strings.Repeat(" ", 16<<10) + `}`)
	fmt.Fprintf(conn, "PATCH /api/v1/settings/ai HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
	_, out, in := child(t, "staller", nil, "REPLYMOCK_TEST_TARGET="+addr, "REPLYMOCK_TEST_CONNS="+strconv.Itoa(stallers))
	if line, err := out.ReadString('\n'); err != nil {
		t.Fatalf("the stallers: %q, %v", line, err)
	}
	for len(body) > 0 { // 512 bytes every 125 ms
		n := min(512, len(body))
		if _, err := conn.Write(body[:n]); err != nil {
			t.Fatalf("the steady upload was cut with %d bytes left: %v", len(body), err)
		}
		body = body[n:]
		time.Sleep(125 * time.Millisecond)
	}
	conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the steady upload's answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("the steady upload: %d, want 200", resp.StatusCode)
	}
	in.Close()
	line, _ := out.ReadString('\n')
	cut := -1
	fmt.Sscanf(line, "cut=%d", &cut)
	if cut < 1 {
		t.Errorf("%d stalled connections cut around the steady upload (%q): the cap was not put to the test", cut, line)
	}
	t.Logf("a 16 KiB body at 4 KiB/s answered %d while %d stalled connections were cut around it", resp.StatusCode, cut)
}

// chanListener accepts the connections sent on its channel.
type chanListener struct {
	net.Listener
	ch chan net.Conn
}

func (l *chanListener) Accept() (net.Conn, error) {
	c, ok := <-l.ch
	if !ok {
		return nil, net.ErrClosed
	}
	return c, nil
}

func (l *chanListener) Close() error { return nil }

// A place that frees goes to the parked connection of the client with
// the fewest open, before those of a client holding every place; a
// client's stalled bodies are not closed for its own newcomers until
// those waited their grace, but at once for another client's.
func TestParkedGoFewestFirst(t *testing.T) {
	l := newTestLimiter(4)
	cl := &chanListener{ch: make(chan net.Conn)}
	ln := l.listen(cl)
	defer ln.Close()
	n := 0
	arrive := func(client string) *fakeConn {
		fc := &fakeConn{id: n, client: client}
		n++
		l.fl.conns = append(l.fl.conns, fc)
		l.mu.Lock()
		parked := l.nparked
		l.mu.Unlock()
		cl.ch <- fc
		for { // parked by the listener's own goroutine
			l.mu.Lock()
			done := l.nparked > parked
			l.mu.Unlock()
			if done {
				return fc
			}
			runtime.Gosched()
		}
	}
	var taken []*trackedConn
	take := func() *trackedConn {
		c, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		tc := c.(*trackedConn)
		l.hs.ConnState(tc, http.StateNew)
		taken = append(taken, tc)
		return tc
	}
	const attacker, visitor = "192.0.2.1", "198.51.100.7"
	for range 4 { // the attacker's stalled bodies take every place
		arrive(attacker)
		tc := take()
		l.hs.ConnState(tc, http.StateActive)
		m := &bodyMeter{ReadCloser: io.NopCloser(strings.NewReader(""))}
		m.got.Store(1)
		m.since.Store(int64(l.clock))
		l.reading(tc, m)
	}
	l.clock += 2 * evictGrace // every body slow past its grace
	arrive(attacker)
	arrive(attacker)
	l.runRetry()
	if got := l.closed(); len(got) != 0 {
		t.Fatalf("closed %v for the attacker's own newcomers within their grace, want none", got)
	}
	v := arrive(visitor)
	if got := l.closed(); !slices.Equal(got, []int{0}) {
		t.Fatalf("closed %v for a visitor, want [0]: the attacker's body waiting longest", got)
	}
	l.hs.ConnState(taken[0], http.StateClosed)
	if tc := take(); tc.Conn != v {
		t.Fatalf("the free place went to %v, want the visitor's, parked after the attacker's two", tc.Conn.(*fakeConn).id)
	}
	l.clock += 2 * evictGrace // the attacker's parked ones waited their grace
	l.runRetry()
	if got := l.closed(); !slices.Equal(got, []int{0, 1}) {
		t.Fatalf("closed %v once the attacker's newcomers waited their grace, want [0 1]", got)
	}
	if tc := take(); tc.Conn.(*fakeConn).id != 4 {
		t.Fatalf("the free place went to %d, want the attacker's parked longest, 4", tc.Conn.(*fakeConn).id)
	}
}
