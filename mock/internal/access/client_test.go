package access

import "testing"

// Each kind of remote address names its client: IPv4 as it is, IPv6 by
// its /64, without port or zone, an IPv4-mapped one as its IPv4 address;
// what does not parse as host:port is given back as it is, not ok.
func TestClient(t *testing.T) {
	for _, c := range []struct {
		addr, want string
		ok         bool
	}{
		{"192.0.2.1:80", "192.0.2.1", true},
		{"192.0.2.1:0", "192.0.2.1", true},
		{"[2001:db8:1:2::7]:80", "2001:db8:1:2::/64", true},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:443", "2001:db8:1:2::/64", true},
		{"[2001:db8:1:3::7]:80", "2001:db8:1:3::/64", true},
		{"[fe80::1%eth0]:80", "fe80::/64", true},
		{"[::1]:8080", "::/64", true},
		{"[::ffff:192.0.2.1]:80", "192.0.2.1", true},
		{"[::ffff:192.0.2.1%eth0]:80", "192.0.2.1", true},
		{"192.0.2.1", "192.0.2.1", false},
		{"2001:db8::1", "2001:db8::1", false},
		{"[2001:db8::1]", "[2001:db8::1]", false},
		{"192.0.2.1:http", "192.0.2.1:http", false},
		{"localhost:80", "localhost:80", false},
		{"@", "@", false},
		{"", "", false},
	} {
		if got, ok := Client(c.addr); got != c.want || ok != c.ok {
			t.Errorf("Client(%q) = %q, %v; want %q, %v", c.addr, got, ok, c.want, c.ok)
		}
	}
}
