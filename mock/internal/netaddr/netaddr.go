// Package netaddr names the client a remote address comes from, the key
// that the bounds per client count by.
package netaddr

import "net/netip"

// Client is the client the remote address addr (host:port) names: an
// IPv4 address as it is (an IPv4-mapped IPv6 one as its IPv4 address),
// an IPv6 one by its /64, which one host usually holds whole and may
// take any address of, its zone left out; the port is left out. An
// address that does not parse as host:port is returned as it is, with
// ok false.
func Client(addr string) (key string, ok bool) {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return addr, false
	}
	a := ap.Addr().Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String(), true
	}
	return a.String(), true
}
