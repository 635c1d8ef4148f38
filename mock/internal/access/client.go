package access

import "net/netip"

// Client names the client a remote address (host:port) comes from, for
// the bounds per client: an IPv4 address, or an IPv6 address's /64,
// which one host usually holds. One that does not parse is returned as
// it is, not ok.
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
