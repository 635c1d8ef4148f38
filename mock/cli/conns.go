package cli

import (
	"container/list"
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
	c := &connLimiter{max: max, idle: list.New(), fresh: list.New(),
		elems: make(map[net.Conn]*list.Element), where: make(map[net.Conn]*list.List)}
	hs.ConnState = c.track
	return netutil.LimitListener(ln, max)
}

// connLimiter tracks a listener's open connections for limitConns.
type connLimiter struct {
	max   int
	mu    sync.Mutex
	open  int
	idle  *list.List                 // keep-alives between requests, longest waiting first
	fresh *list.List                 // connections yet to send a request, oldest first
	elems map[net.Conn]*list.Element // their places in idle or fresh
	where map[net.Conn]*list.List    // which of the two holds each
}

// wait puts conn at the back of l.
func (c *connLimiter) wait(conn net.Conn, l *list.List) {
	c.forget(conn)
	c.elems[conn] = l.PushBack(conn)
	c.where[conn] = l
}

// forget takes conn out of the lists.
func (c *connLimiter) forget(conn net.Conn) {
	if e, ok := c.elems[conn]; ok {
		c.where[conn].Remove(e)
		delete(c.elems, conn)
		delete(c.where, conn)
	}
}

func (c *connLimiter) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.open++
		if c.open >= c.max {
			front := c.idle.Front()
			if front == nil {
				front = c.fresh.Front()
			}
			if front != nil {
				old := front.Value.(net.Conn)
				c.forget(old)
				old.Close() // its StateClosed comes from its own goroutine
			}
		}
		c.wait(conn, c.fresh)
	case http.StateIdle:
		c.wait(conn, c.idle)
	case http.StateActive:
		c.forget(conn)
	case http.StateHijacked, http.StateClosed: // the server is done with it
		c.open--
		c.forget(conn)
	}
}
