package cli

import (
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
)

// defaultMaxConns is --max-conns: each connection costs a file handle and
// some 10 KiB, and the machine's handles are often limited to a few
// thousands more.
const defaultMaxConns = 4096

// connLimit is a listener that keeps at most max connections open, and
// at most three quarters of them from one client (an address; an IPv6
// /64), so that one client cannot lock the others out. At either cap, a
// newcomer closes the keep-alive of that scope idle longest. With none
// idle, a newcomer past its client's share is closed, and one past the
// listener's cap waits for a place.
//
// The package comment says what it buys over netutil.LimitListener.
type connLimit struct {
	net.Listener
	max, perClient int

	mu      sync.Mutex // guards the fields below
	changed *sync.Cond // on mu: a place freed, a connection turned idle, the listener closed
	open    int
	clients map[string]int             // open connections by client
	idle    map[*limitedConn]time.Time // keep-alives between requests, and since when
	closed  bool
}

// limitConns caps the connections ln has open at max, and sets
// hs.ConnState to learn which are idle.
func limitConns(ln net.Listener, hs *http.Server, max int) net.Listener {
	l := &connLimit{Listener: ln, max: max, perClient: max - max/4,
		clients: make(map[string]int), idle: make(map[*limitedConn]time.Time)}
	l.changed = sync.NewCond(&l.mu)
	hs.ConnState = l.track
	return l
}

// limitedConn is a connection that holds a place of its connLimit.
type limitedConn struct {
	net.Conn
	l        *connLimit
	client   string
	released bool // its place given back; guarded by l.mu
}

// Close closes the connection and gives its place back.
func (c *limitedConn) Close() error {
	c.l.mu.Lock()
	c.l.release(c)
	c.l.mu.Unlock()
	return c.Conn.Close()
}

// Accept waits for a connection that has a place.
func (l *connLimit) Accept() (net.Conn, error) {
	for {
		conn, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		c, err := l.admit(conn)
		if c != nil || err != nil {
			return c, err
		}
	}
}

// admit gives conn a place, closing an idle keep-alive for it or waiting
// for one, or closes conn when its client holds its share and none of
// its own is idle: then it returns nil.
func (l *connLimit) admit(conn net.Conn) (net.Conn, error) {
	c := &limitedConn{Conn: conn, l: l}
	c.client, _ = access.Client(conn.RemoteAddr().String())
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.closed:
			conn.Close()
			return nil, net.ErrClosed
		case l.clients[c.client] >= l.perClient:
			if !l.closeIdle(c.client) {
				conn.Close()
				return nil, nil
			}
		case l.open >= l.max:
			if !l.closeIdle("") {
				l.changed.Wait()
			}
		default:
			l.open++
			l.clients[c.client]++
			return c, nil
		}
	}
}

// closeIdle closes the keep-alive idle longest, of client if it is not
// empty, and reports whether there was one. l.mu is held.
func (l *connLimit) closeIdle(client string) bool {
	var oldest *limitedConn
	for c, since := range l.idle {
		if (client == "" || c.client == client) && (oldest == nil || since.Before(l.idle[oldest])) {
			oldest = c
		}
	}
	if oldest == nil {
		return false
	}
	l.release(oldest)
	oldest.Conn.Close() // its server sees it closed and lets it go
	return true
}

// release gives c's place back, once. l.mu is held.
func (l *connLimit) release(c *limitedConn) {
	if c.released {
		return
	}
	c.released = true
	delete(l.idle, c)
	l.open--
	if l.clients[c.client]--; l.clients[c.client] <= 0 {
		delete(l.clients, c.client)
	}
	l.changed.Broadcast()
}

// track keeps the idle keep-alives, for http.Server's ConnState.
func (l *connLimit) track(conn net.Conn, state http.ConnState) {
	c, ok := conn.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case c.released:
	case state == http.StateIdle:
		l.idle[c] = time.Now()
		l.changed.Broadcast()
	default:
		delete(l.idle, c)
	}
}

// Close closes the listener and wakes an Accept that waits for a place.
func (l *connLimit) Close() error {
	l.mu.Lock()
	l.closed = true
	l.changed.Broadcast()
	l.mu.Unlock()
	return l.Listener.Close()
}
