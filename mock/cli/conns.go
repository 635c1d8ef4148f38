package cli

import (
	"context"
	"io"
	"math"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// defaultMaxConns is --max-conns: each connection costs a file handle and
// some 10 KiB, and the machine's handles are often limited to a few
// thousands more.
const defaultMaxConns = 4096

// defaultMinBodyRate is --min-body-rate, in bytes a second. Any network
// sends an honest body far faster: TCP's first flight alone is some 14
// KB; a client that sends a byte now and then is not uploading but
// holding a place.
const defaultMinBodyRate = 1 << 10

// evictGrace is the least a connection waits before the limiter may
// judge it: a new connection for its first request, and a body for its
// bytes. An honest client sends its body with its headers, or a round
// trip later (Expect: 100-continue), a round trip being well under half
// a second but on a satellite link. Younger connections are never closed
// for a newcomer: closed, they would come back at once, each closing
// another in turn, and a client about to send its request would go with
// them. While stalled connections outnumber the places, a newcomer of
// another client gets one at once, a stalled one past its grace closed
// for it (4,200 stallers on 4,096 places: normal requests' p99 3-26 ms,
// TestStalledBodiesEvicted); one of the stallers' own client waits for
// its grace parked, and so do their own comebacks: they close each
// other a few hundred times a second, not thousands.
const evictGrace = 500 * time.Millisecond

// graceFor is the grace of the n-th connection: evictGrace and a share
// of another, n times the golden ratio's fraction, which spreads any run
// of connections evenly (a Weyl sequence). Connections that came
// together, as an attack's do, then do not all turn closable together,
// to be closed and come back together, leaving newcomers a whole grace
// with no place to take.
func graceFor(n uint64) time.Duration {
	const phi = 0.6180339887498949
	_, frac := math.Modf(float64(n) * phi)
	return evictGrace + time.Duration(frac*float64(evictGrace))
}

// evictRetry is the longest a full listener, that found no connection to
// close when its last place was filled, waits before it looks again; it
// looks sooner when a connection turns closable sooner, and at once when
// a keep-alive turns idle.
const evictRetry = 50 * time.Millisecond

// limitConns caps the connections ln has open at max, and sets
// hs.ConnState, hs.ConnContext and a handler around hs.Handler to keep
// room for newcomers. Past the places, it holds up to parkMax more
// connections accepted, waiting for a place (parked): a place that frees
// goes to the one whose client (its address; an IPv6 /64) has the fewest
// connections open, the longest waiting among equals. So a client that
// holds thousands of places does not queue the others behind its own
// newcomers. When a connection fills the last place, or one is parked
// while none is free, one is closed, in this order:
//   - the idle keep-alive that has waited longest;
//   - the request that has waited longest among those whose body comes
//     slower than minRate bytes a second of the time its reads waited for
//     the client (not the time its handler spent elsewhere), once they
//     waited the connection's grace (graceFor);
//   - the new connection that has waited longest for its first request,
//     if it waited its grace;
//
// the last two only for a newcomer of another client that has no more
// connections open than theirs, or one parked for its grace: so a
// client's stalled connections do not close each other in turn (each
// closed one comes back), which would burn the server's time, while
// another client gets in at once, and one of their own in a grace.
// With none of them, the listener looks again when one may have turned
// closable, until one is closed or one leaves. So thousands of idle
// connections, of connections that send nothing or of bodies sent a byte
// now and then cost a bounded number of handles, a client with a request
// still gets in, and a body sent at any honest speed is not cut. A
// keep-alive closed this way may have just started to send a request;
// clients retry such a request on a fresh connection.
// A minRate under 1 is defaultMinBodyRate.
func limitConns(ln net.Listener, hs *http.Server, max int, minRate int64) net.Listener {
	if minRate < 1 {
		minRate = defaultMinBodyRate
	}
	c := newConnLimiter(max, minRate)
	c.install(hs)
	return c.listen(ln)
}

// newConnLimiter is a connLimiter on the real clock.
func newConnLimiter(places int, minRate int64) *connLimiter {
	c := &connLimiter{max: places, minRate: minRate, now: elapsed, after: afterFunc, parkMax: parkMaxFor(places),
		clients: make(map[string]int)}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// parkMaxFor is how many connections a listener of max places holds
// past them, waiting: a sixteenth of them, 256 at most (a handle each),
// 8 at least.
func parkMaxFor(places int) int { return min(max(places/16, 8), 256) }

// install has c track hs's connections and meter its requests' bodies.
func (c *connLimiter) install(hs *http.Server) {
	hs.ConnState = c.track
	hs.ConnContext = func(ctx context.Context, conn net.Conn) context.Context {
		if tc, ok := conn.(*trackedConn); ok {
			return context.WithValue(ctx, trackedKey{}, tc)
		}
		return ctx
	}
	if hs.Handler == nil {
		hs.Handler = http.DefaultServeMux
	}
	hs.Handler = c.meterBodies(hs.Handler)
}

// epoch is the start of elapsed's clock.
var epoch = time.Now()

// elapsed is a monotonic clock: the time since the process started.
func elapsed() time.Duration { return time.Since(epoch) }

// afterFunc is time.AfterFunc, without the timer.
func afterFunc(d time.Duration, f func()) { time.AfterFunc(d, f) }

// connLimiter tracks a listener's open connections for limitConns. A
// connection's place in the lists is its own (trackedConn): a request
// moves it out of idle and back without a map or an allocation.
type connLimiter struct {
	max     int
	minRate int64                       // bytes a second a body read is judged by
	now     func() time.Duration        // elapsed, or a test's clock
	after   func(time.Duration, func()) // afterFunc, or a test's
	mu      sync.Mutex
	open    int
	seq     uint64        // connections accepted, for graceFor
	retryAt time.Duration // when a retry is set to look again; 0 with none
	full    bool          // the last place was filled and no one could go: a retry is set
	idle    connList      // keep-alives between requests, longest waiting first
	fresh   connList      // connections yet to send a request, oldest first
	bodies  connList      // requests whose handler reads a body (trackedConn.body)
	newest  *trackedConn  // the connection that last filled the last place

	clients map[string]int // open connections by client
	places  int            // connections handed to the server and not yet closed
	parked  connList       // accepted past the places, waiting for one, oldest first
	nparked int
	parkMax int        // parkMaxFor
	cond    *sync.Cond // on mu: a place freed, a connection parked, the listener failed
	err     error      // the listener's, once it failed or closed
}

// trackedKey is the context key of a request's trackedConn.
type trackedKey struct{}

// trackedConn is an accepted connection and its place in a connLimiter's
// lists, which its lock guards.
type trackedConn struct {
	net.Conn
	prev, next *trackedConn
	in         *connList     // nil: in none (serving a request without a body, or closed)
	since      time.Duration // when it was accepted, then when the server took it, on the limiter's clock
	grace      time.Duration // graceFor
	body       *bodyMeter    // in bodies: its request's body
	client     string        // clientOf
	lim        *connLimiter  // whose place it holds, given back on Close
	released   atomic.Bool   // its place given back
}

// bodyMeter is a request's body, counting the bytes its reads got and
// the time they waited for them: the client's rate, whatever the time
// the handler spends elsewhere (an injected delay, a write kept).
type bodyMeter struct {
	io.ReadCloser
	got    atomic.Int64 // bytes
	waited atomic.Int64 // nanoseconds, in reads that returned
	since  atomic.Int64 // when the read under way started (elapsed); 0 with none
	done   atomic.Bool  // the body ended (or failed): nothing more to wait for
}

func (m *bodyMeter) Read(p []byte) (int, error) {
	start := elapsed()
	m.since.Store(int64(max(start, 1)))
	n, err := m.ReadCloser.Read(p)
	m.since.Store(0)
	m.waited.Add(int64(elapsed() - start))
	m.got.Add(int64(n))
	if err != nil {
		m.done.Store(true)
	}
	return n, err
}

// slow reports whether m's body comes under minRate bytes a second, once
// its reads have waited grace; if not, due is how long, at the soonest,
// until it may.
func (m *bodyMeter) slow(now, grace time.Duration, minRate int64) (slow bool, due time.Duration) {
	if m.done.Load() {
		return false, evictRetry
	}
	waited := time.Duration(m.waited.Load())
	if since := m.since.Load(); since != 0 && now > time.Duration(since) {
		waited += now - time.Duration(since)
	}
	got := m.got.Load()
	if waited < grace {
		return false, grace - waited
	}
	// It is slow while the bytes it got are fewer than minRate's for the
	// time it waited; past that time, it turns slow.
	enough := time.Duration(float64(got) / float64(minRate) * float64(time.Second))
	return waited > enough, enough - waited
}

// meterBodies puts a bodyMeter on each request's body, in the limiter's
// bodies list while its handler runs; a request without a body costs a
// comparison, one with a body a copy of the request and the meter.
func (c *connLimiter) meterBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		tc, ok := r.Context().Value(trackedKey{}).(*trackedConn)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		m := &bodyMeter{ReadCloser: r.Body}
		c.reading(tc, m)
		defer c.read(tc)
		// A copy with the meter: the server's own request keeps its body,
		// whose type says whether a 100 Continue is still owed.
		metered := *r
		metered.Body = m
		h.ServeHTTP(w, &metered)
	})
}

// reading puts tc, serving a request whose body is m, in bodies.
func (c *connLimiter) reading(tc *trackedConn, m *bodyMeter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tc.body = m
	c.bodies.push(tc) // serving a request, it is in no other list
}

// read takes tc out of bodies: its handler is done.
func (c *connLimiter) read(tc *trackedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if tc.in == &c.bodies { // not closed, nor hijacked
		remove(tc)
	}
	tc.body = nil
}

// connList is a list of connections, oldest first.
type connList struct{ front, back *trackedConn }

// push puts c at the back of l; c is in no list.
func (l *connList) push(c *trackedConn) {
	c.in, c.prev, c.next = l, l.back, nil
	if l.back != nil {
		l.back.next = c
	} else {
		l.front = c
	}
	l.back = c
}

// remove takes c out of the list it is in, if any.
func remove(c *trackedConn) {
	l := c.in
	if l == nil {
		return
	}
	if c.prev != nil {
		c.prev.next = c.next
	} else {
		l.front = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	} else {
		l.back = c.prev
	}
	c.in, c.prev, c.next = nil, nil, nil
}

func (c *connLimiter) track(conn net.Conn, state http.ConnState) {
	tc, ok := conn.(*trackedConn)
	if !ok {
		return // not accepted by limitConns's listener
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.open++
		c.clients[tc.client]++
		tc.since = c.now()
		c.fresh.push(tc)
		if c.open >= c.max {
			c.newest = tc
			c.evictOrWait()
		}
	case http.StateIdle:
		remove(tc)
		c.idle.push(tc)
		if c.full { // a newcomer waits for a place: this one's
			c.evictOrWait()
		}
	case http.StateActive:
		remove(tc)
	case http.StateHijacked, http.StateClosed: // the server is done with it
		c.open--
		if c.clients[tc.client]--; c.clients[tc.client] <= 0 {
			delete(c.clients, tc.client)
		}
		if c.newest == tc {
			c.newest = nil
		}
		remove(tc)
		if c.open < c.max {
			c.full = false
		}
	}
}

// retry looks again, while the listener is full, for a connection to
// close for the newcomers.
func (c *connLimiter) retry() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.now() >= c.retryAt {
		c.retryAt = 0 // this one
	}
	if c.full {
		c.evictOrWait()
	}
}

// evictOrWait closes a connection for the newcomers or, with none to
// close, marks the listener full and looks again when the first may
// turn closable, within evictRetry. c.mu is held.
func (c *connLimiter) evictOrWait() {
	closed, wait := c.evict()
	if closed {
		c.full = false
		return
	}
	c.full = true
	at := c.now() + min(max(wait, time.Millisecond), evictRetry)
	if c.retryAt == 0 || at < c.retryAt { // none sooner is set
		c.retryAt = at
		c.after(at-c.now(), c.retry)
	}
}

// evict closes a connection to free a place, in limitConns's order, and
// reports whether it found one; with none, it says how long until one
// may turn closable (a guess that may be early, never late). c.mu is
// held.
func (c *connLimiter) evict() (closed bool, wait time.Duration) {
	now := c.now()
	old, wait := c.idle.front, evictRetry
	if old == nil {
		old, wait = c.slow(now)
	}
	if f := c.closableFresh(now); old == nil && f != nil {
		if age := now - f.since; age >= f.grace {
			old = f
		} else {
			wait = min(wait, f.grace-age)
		}
	}
	if old == nil {
		return false, wait
	}
	remove(old)
	c.closeLocked(old) // its StateClosed comes from its own goroutine
	return true, 0
}

// forWhom is the newcomer a connection would be closed for: the parked
// one a place goes to next or, with none, the one that last filled the
// last place; and whether it has waited its grace parked, when any
// client's connection may go for it. nil for none known (the
// connections of any client may go). c.mu is held.
func (c *connLimiter) forWhom(now time.Duration) (n *trackedConn, waited bool) {
	if p := c.nextParked(); p != nil {
		return p, now-p.since >= p.grace
	}
	return c.newest, false
}

// closableFor reports whether tc may be closed for newcomer n: n is of
// another client, with no more connections open, or waited its grace.
func (c *connLimiter) closableFor(tc, n *trackedConn, waited bool) bool {
	return n == nil || waited || tc.client != n.client && c.clients[tc.client] >= c.clients[n.client]
}

// closableFresh is the oldest connection yet to send a request that may
// go for the newcomer. c.mu is held.
func (c *connLimiter) closableFresh(now time.Duration) *trackedConn {
	n, waited := c.forWhom(now)
	for tc := c.fresh.front; tc != nil; tc = tc.next {
		if tc != n && c.closableFor(tc, n, waited) {
			return tc
		}
	}
	return nil
}

// slow is the request in bodies that has waited longest among those
// whose body comes under minRate and may go for the newcomer or, with
// none, nil and how long until the first may.
func (c *connLimiter) slow(now time.Duration) (*trackedConn, time.Duration) {
	wait := evictRetry
	n, waited := c.forWhom(now)
	for tc := c.bodies.front; tc != nil; tc = tc.next {
		if !c.closableFor(tc, n, waited) {
			continue
		}
		slow, due := tc.body.slow(now, tc.grace, c.minRate)
		if slow {
			return tc, 0
		}
		wait = min(wait, due)
	}
	if n != nil && !waited && n.in == &c.parked {
		wait = min(wait, max(n.grace-(now-n.since), 0))
	}
	return nil, wait
}

// limitRate says the minimum body rate that rate (--min-body-rate, or
// 0 for the default) gives limitConns: "1KiB/s".
func limitRate(rate byteSize) string {
	if rate < 1 {
		rate = defaultMinBodyRate
	}
	return rate.String() + "/s"
}
