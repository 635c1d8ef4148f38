package fleet

import (
	"strings"
	"testing"
)

// pw is the password the URLs below carry: no error, nor what RedactedURL
// makes of an accepted URL, may hold it.
const pw = "s3cret-PW"

// TestParseURL: the --store URLs ParseURL takes, the client options
// they make, and those it refuses, never quoting them.
func TestParseURL(t *testing.T) {
	type want struct {
		addr, user, pass string
		db               int
		tls              bool
	}
	accepted := []struct {
		raw  string
		want want
	}{
		{"redis://127.0.0.1:6379/0", want{addr: "127.0.0.1:6379"}},
		{"redis://redis:6380", want{addr: "redis:6380"}},
		{"redis://redis", want{addr: "redis:6379"}},                              // no port: 6379
		{"redis://redis/3", want{addr: "redis:6379", db: 3}},                     // no port, a db
		{"redis://redis:/2", want{addr: "redis:6379", db: 2}},                    // an empty port: 6379
		{"redis://:" + pw + "@redis:6379/0", want{addr: "redis:6379", pass: pw}}, // no user
		{"redis://app:" + pw + "@redis:6379/15", want{addr: "redis:6379", user: "app", pass: pw, db: 15}},
		{"redis://app@redis:6379/1", want{addr: "redis:6379", user: "app", db: 1}},                      // a user, no password
		{"redis://app:@redis/0", want{addr: "redis:6379", user: "app"}},                                 // an empty password
		{"redis://app:p%40ss%2F%3F%23@redis/0", want{addr: "redis:6379", user: "app", pass: "p@ss/?#"}}, // percent-encoded
		{"redis://app:p@ss@redis/0", want{addr: "redis:6379", user: "app", pass: "p@ss"}},               // the last @ ends it
		{"redis://[::1]:6379/0", want{addr: "[::1]:6379"}},
		{"redis://[::1]/0", want{addr: "[::1]:6379"}},
		{"REDIS://Redis:6379/0", want{addr: "Redis:6379"}}, // a scheme in capitals
		{"redis://redis:6379/007", want{addr: "redis:6379", db: 7}},
		{"redis://redis:1/2147483647", want{addr: "redis:1", db: 2147483647}},
		{"redis://redis:65535/%31", want{addr: "redis:65535", db: 1}},
		{"rediss://app:" + pw + "@cache.example.test:6380/0", want{addr: "cache.example.test:6380", user: "app", pass: pw, tls: true}},
		{"rediss://cache.example.test", want{addr: "cache.example.test:6379", tls: true}},
	}
	for _, tc := range accepted {
		opt, err := ParseURL(tc.raw)
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		w := tc.want
		if len(opt.InitAddress) != 1 || opt.InitAddress[0] != w.addr {
			t.Errorf("%s: InitAddress %q, want [%s]", tc.raw, opt.InitAddress, w.addr)
		}
		if opt.Username != w.user || opt.Password != w.pass || opt.SelectDB != w.db {
			t.Errorf("%s: user %q password %q db %d, want %q %q %d", tc.raw, opt.Username, opt.Password, opt.SelectDB, w.user, w.pass, w.db)
		}
		if (opt.TLSConfig != nil) != w.tls {
			t.Errorf("%s: TLS %v, want %v", tc.raw, opt.TLSConfig != nil, w.tls)
		} else if w.tls {
			host := w.addr[:strings.LastIndex(w.addr, ":")]
			if opt.TLSConfig.ServerName != host || opt.TLSConfig.InsecureSkipVerify {
				t.Errorf("%s: TLS server name %q, skip verify %v; want %q, false", tc.raw, opt.TLSConfig.ServerName, opt.TLSConfig.InsecureSkipVerify, host)
			}
		}
		if opt.Sentinel.MasterSet != "" || opt.DialCtxFn != nil {
			t.Errorf("%s: not one Redis at one address (sentinel %q, dialer %v)", tc.raw, opt.Sentinel.MasterSet, opt.DialCtxFn != nil)
		}
		if w.pass != "" {
			if shown := RedactedURL(tc.raw); strings.Contains(shown, w.pass) || !strings.Contains(shown, "xxxxx") {
				t.Errorf("%s: shown as %q", tc.raw, shown)
			}
		}
	}

	refused := []struct {
		raw  string
		want string // in the error, after urlForm
	}{
		{"", ""},
		{"memory", ""}, // the CLI's, not a URL
		{"redis", ""},
		{"127.0.0.1:6379", ""},
		{"http://:" + pw + "@redis:6379/0", ""},
		{"https://redis:6379/0", ""},
		{"redis+sentinel://:" + pw + "@redis:26379/mymaster", ""},
		{"valkey://redis:6379/0", ""},
		{"unix://:" + pw + "@/run/redis.sock", ""},
		{"tcp://redis:6379", ""},
		{"redis:redis:6379/0", ""},
		{"redis://", "no host"},
		{"redis:///0", "no host"},
		{"redis://:" + pw + "@/0", "no host"},
		{"redis://:6379/0", "no host"},
		{"redis://app:" + pw + "@:6379/0", "no host"},
		{"rediss://:" + pw + "@", "no host"},
		{"redis://redis:port/0", ""},
		{"redis://redis:-1/0", ""},
		{"redis://redis:0/0", "port"},
		{"redis://redis:65536/0", "port"},
		{"redis://redis:99999999999999999999/0", "port"},
		{"redis://:" + pw + "@redis:6379/x", "database"},
		{"redis://:" + pw + "@redis:6379/-1", "database"},
		{"redis://:" + pw + "@redis:6379/+1", "database"},
		{"redis://:" + pw + "@redis:6379/1.5", "database"},
		{"redis://:" + pw + "@redis:6379/99999999999999999999", "database"},
		{"redis://:" + pw + "@redis:6379/2147483648", "database"},
		{"redis://:" + pw + "@redis:6379/", "database"},
		{"redis://:" + pw + "@redis:6379/0/1", "database"},
		{"redis://:" + pw + "@redis:6379/0/", "database"},
		{"redis://:" + pw + "@redis:6379/" + pw, "database"},
		{"redis://:" + pw + "@redis:6379/%20", "database"},
		// Query parameters would change what the store is: another
		// database (db=-1 too), other addresses, a sentinel, TLS without
		// verification. Only the documented form is taken.
		{"redis://:" + pw + "@redis:6379/0?db=-1", "query"},
		{"redis://:" + pw + "@redis:6379/0?addr=other:6379", "query"},
		{"redis://:" + pw + "@redis:6379?master_set=mymaster", "query"},
		{"rediss://:" + pw + "@redis:6379/0?skip_verify=true", "query"},
		{"redis://:" + pw + "@redis:6379/0?dial_timeout=1s", "query"},
		{"redis://:" + pw + "@redis:6379/0?", "query"},
		{"redis://:" + pw + "@redis:6379/0#" + pw, "query"},
		{"redis://:" + pw + "@redis:6379/0#", "query"},
		{"redis://redis:6379/0?password=" + pw, "query"},
		{"redis://:" + pw + "@redis:6379/0?db=" + pw, "query"},
		// A password with /, ? or # not percent-encoded ends the
		// authority early: what follows it is a path, a query or a
		// fragment, which the error, and the logs, would show.
		{"redis://app:/" + pw + "@redis:6379/0", "database"},
		{"redis://app:/" + pw + "@redis", "database"},
		{"redis://app:1/" + pw + "@redis:6379/0", "database"},
		{"redis://app:1?" + pw + "@redis:6379/0", "query"},
		{"redis://app:1#" + pw + "@redis:6379/0", "query"},
		{"redis://app:ab/" + pw + "@redis:6379/0", ""},
		{"redis://app:" + pw + "@red is:6379/0", ""},
		{"redis://app:" + pw + "\n@redis:6379/0", ""},
		{" redis://app:" + pw + "@redis:6379/0", ""},
		{"redis://app:" + pw + "%zz@redis:6379/0", ""},
	}
	for _, tc := range refused {
		opt, err := ParseURL(tc.raw)
		if err == nil {
			t.Errorf("%q: accepted (%q db %d)", tc.raw, opt.InitAddress, opt.SelectDB)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, urlForm) || !strings.Contains(msg, tc.want) {
			t.Errorf("%q: %q, want %q and %q", tc.raw, msg, urlForm, tc.want)
		}
		if strings.Contains(msg, pw) || strings.Contains(msg, "redis:6379") || strings.Contains(msg, "app") {
			t.Errorf("%q: the error quotes the URL: %q", tc.raw, msg)
		}
	}
}
