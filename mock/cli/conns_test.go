package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
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
// send a byte now and then, coming back when closed, do not keep another
// client out: their client holds at most three quarters of the places,
// its newcomers past them are closed, and every request of the other
// client is answered. The stallers outnumber the places as 4,200 do the
// default 4,096 (by 2.5%), on a tenth of the places.
//
// REPLYMOCK_TEST_STALL=full measures with 4,200 stallers on the default
// 4,096 places, 500 normal requests one every 20 ms.
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
