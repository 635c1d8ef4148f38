package cli

import (
	"net"
	"net/http"
	"sync"

	"golang.org/x/net/netutil"
)

// defaultMaxConns is --max-conns: each connection costs a file handle and
// some 10 KiB, and the machine's handles are often limited to a few
// thousands more.
const defaultMaxConns = 4096

// limitConns caps the connections ln has open at max, with
// netutil.LimitListener, and sets hs.ConnState to keep room for newcomers:
// when a new connection fills the last place, the idle keep-alive that
// has waited longest is closed or, with none, the new connection that
// has waited longest for its first request. So thousands of idle
// connections cost a bounded number of handles, a client with a request
// still gets in, and a new connection is not closed while idle ones can
// go instead. A connection closed this way may have just started to send
// a request; clients retry such a request on a fresh connection.
func limitConns(ln net.Listener, hs *http.Server, max int) net.Listener {
	c := &connLimiter{max: max}
	hs.ConnState = c.track
	return trackedListener{netutil.LimitListener(ln, max)}
}

// connLimiter tracks a listener's open connections for limitConns. A
// connection's place in the lists is its own (trackedConn): a request
// moves it out of idle and back without a map or an allocation.
type connLimiter struct {
	max   int
	mu    sync.Mutex
	open  int
	idle  connList // keep-alives between requests, longest waiting first
	fresh connList // connections yet to send a request, oldest first
}

// trackedListener accepts trackedConns.
type trackedListener struct{ net.Listener }

func (l trackedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &trackedConn{Conn: c}, nil
}

// trackedConn is an accepted connection and its place in a connLimiter's
// lists, which its lock guards.
type trackedConn struct {
	net.Conn
	prev, next *trackedConn
	in         *connList // nil: in neither (serving a request, or closed)
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
		if c.open >= c.max {
			old := c.idle.front
			if old == nil {
				old = c.fresh.front
			}
			if old != nil {
				remove(old)
				old.Close() // its StateClosed comes from its own goroutine
			}
		}
		c.fresh.push(tc)
	case http.StateIdle:
		remove(tc)
		c.idle.push(tc)
	case http.StateActive:
		remove(tc)
	case http.StateHijacked, http.StateClosed: // the server is done with it
		c.open--
		remove(tc)
	}
}
