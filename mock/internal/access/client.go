package access

import "net/netip"

// Client names the client a remote address (host:port) comes from: the
// key the bounds per client count by. It is an IPv4 address, or an IPv6
// address's /64, since one host usually holds a whole /64. An address
// that does not parse is returned as it is, with ok false.
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
