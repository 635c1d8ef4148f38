package cli

import (
	"net"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
)

// The connections a listener of limitConns accepts past its places wait
// parked for one, and a place that frees goes to the client with the
// fewest connections open: a client that holds every place does not
// queue the others behind its own newcomers, as the system's queue of
// connections not yet accepted would.

// Close closes the connection and gives its place back.
func (tc *trackedConn) Close() error {
	err := tc.Conn.Close()
	if tc.lim != nil && tc.released.CompareAndSwap(false, true) {
		tc.lim.release()
	}
	return err
}

// clientOf is who a connection comes from: its address, or its /64 for
// IPv6, where a client has as many addresses as it likes.
func clientOf(conn net.Conn) string {
	c, _ := access.Client(conn.RemoteAddr().String()) // one that does not parse, as it is
	return c
}

// wrap is conn, accepted now, as a trackedConn of c.
func (c *connLimiter) wrap(conn net.Conn) *trackedConn {
	tc := &trackedConn{Conn: conn, client: clientOf(conn), since: c.now()}
	c.mu.Lock()
	c.seq++
	tc.grace = graceFor(c.seq)
	c.mu.Unlock()
	return tc
}

// listen is ln, its connections parked past the places and handed to
// the server as places free, the client with the fewest open first.
func (c *connLimiter) listen(ln net.Listener) net.Listener {
	l := &limitListener{Listener: ln, c: c}
	go l.acceptAll()
	return l
}

// limitListener is a listener whose connections a connLimiter admits.
type limitListener struct {
	net.Listener
	c *connLimiter
}

// acceptAll accepts ln's connections while fewer than parkMax are
// parked, and parks them; a temporary error is waited out, as
// http.Server does, any other ends it, for Accept to return.
func (l *limitListener) acceptAll() {
	c := l.c
	var delay time.Duration
	for {
		c.mu.Lock()
		for c.nparked >= c.parkMax && c.err == nil {
			c.cond.Wait()
		}
		stop := c.err != nil
		c.mu.Unlock()
		if stop {
			return
		}
		conn, err := l.Listener.Accept()
		if ne, ok := err.(net.Error); ok && ne.Timeout() || isTemporary(err) {
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.cond.Broadcast()
			c.mu.Unlock()
			return
		}
		c.park(c.wrap(conn))
	}
}

// isTemporary reports whether err says to try again (too many open
// files, say).
func isTemporary(err error) bool {
	t, ok := err.(interface{ Temporary() bool })
	return ok && t.Temporary()
}

// park puts tc among the connections waiting for a place; with none
// free, one is closed for it, or the listener looks again soon.
func (c *connLimiter) park(tc *trackedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil { // the listener closed while this one was accepted: nobody would take it
		tc.Close()
		return
	}
	c.parked.push(tc)
	c.nparked++
	c.cond.Broadcast()
	if c.places >= c.max {
		c.evictOrWait()
	}
}

// Accept is the parked connection a free place goes to: that of the
// client with the fewest connections open, the longest waiting among
// equals.
func (l *limitListener) Accept() (net.Conn, error) {
	c := l.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if tc := c.nextParked(); tc != nil && c.places < c.max {
			remove(tc)
			c.nparked--
			c.places++
			tc.lim = c // its place, given back when it closes
			c.cond.Broadcast()
			return tc, nil
		}
		if c.err != nil {
			return nil, c.err
		}
		c.cond.Wait()
	}
}

// nextParked is the parked connection a place goes to next, nil with
// none. c.mu is held.
func (c *connLimiter) nextParked() *trackedConn {
	var best *trackedConn
	for tc := c.parked.front; tc != nil; tc = tc.next {
		if best == nil || c.clients[tc.client] < c.clients[best.client] {
			best = tc
		}
	}
	return best
}

// release gives a closed connection's place back.
func (c *connLimiter) release() {
	c.mu.Lock()
	c.releaseLocked()
	c.mu.Unlock()
}

// releaseLocked is release with c.mu held.
func (c *connLimiter) releaseLocked() {
	c.places--
	c.cond.Broadcast()
}

// closeLocked closes tc, giving its place back, with c.mu held.
func (c *connLimiter) closeLocked(tc *trackedConn) {
	tc.Conn.Close()
	if tc.lim != nil && tc.released.CompareAndSwap(false, true) {
		c.releaseLocked()
	}
}

// Close closes the listener and the connections parked.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	c := l.c
	c.mu.Lock()
	if c.err == nil {
		c.err = net.ErrClosed
	}
	var parked []*trackedConn
	for tc := c.parked.front; tc != nil; tc = tc.next {
		parked = append(parked, tc)
	}
	for _, tc := range parked {
		remove(tc)
		tc.Close() // it held no place
	}
	c.nparked = 0
	c.cond.Broadcast()
	c.mu.Unlock()
	return err
}
