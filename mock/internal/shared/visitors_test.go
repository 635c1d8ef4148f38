package shared

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The clients counted are bounded however many addresses come: past
// MaxVisitorClients, the one seen least recently is forgotten; a client
// refused that keeps trying stays refused until its next session is
// due, and is told when.
func TestVisitorClientsBounded(t *testing.T) {
	v := visitors{Visitors: Visitors{NewSessions: 2}}
	t0 := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	busy := clientOf("198.51.100.1:1")
	for range 2 {
		if err := v.admit(busy, t0); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(10 * time.Second)
	err := v.admit(busy, at)
	var e *wire.APIError
	if !errors.As(err, &e) || e.Status != http.StatusTooManyRequests || e.RetryAfter != 20*time.Second {
		t.Fatalf("the third in a minute: %v, want 429 with Retry-After 20s", err)
	}
	for i := range 3 * MaxVisitorClients {
		c := clientOf(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}), 1).String())
		if err := v.admit(c, at); err != nil {
			t.Fatalf("client %d's first: %v", i, err)
		}
		if len(v.clients) > MaxVisitorClients || v.seen.Len() != len(v.clients) {
			t.Fatalf("%d clients counted (%d listed), over %d", len(v.clients), v.seen.Len(), MaxVisitorClients)
		}
		if i%1000 == 0 && v.admit(busy, at) == nil {
			t.Fatalf("the busy client, trying again among %d newcomers, was let in", i)
		}
	}
	if err := v.admit(busy, t0.Add(30*time.Second)); err != nil {
		t.Errorf("its next session due: %v", err)
	}
	if got := clientOf("[2001:db8:1:2::7]:80"); got != clientOf("[2001:db8:1:2:ffff::1]:443") || got == clientOf("[2001:db8:1:3::7]:80") {
		t.Errorf("IPv6 clients are not their /64s: %v", got)
	}
	if clientOf("[::ffff:192.0.2.1]:80") != clientOf("192.0.2.1:81") {
		t.Error("an IPv4-mapped address is another client than its IPv4 one")
	}
	if clientOf("198.51.100.1") != clientOf("nonsense") || clientOf("nonsense") == busy {
		t.Error("the addresses that do not parse are not one client of their own")
	}
}

// A scenario whose data is not built is refused to a visitor, and stays
// unbuilt; one on built data is open; an unknown name is the usual 400.
func TestVisitorScenarioNotBuilt(t *testing.T) {
	now := func() time.Time { return time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC) }
	log := slog.New(slog.DiscardHandler)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Now: now, Logger: log}), now(), "default")
	if err != nil {
		t.Fatal(err)
	}
	st := New(Config{Log: log, Now: now, Registry: reg, MaxSessions: 10, SessionTTL: time.Hour, MaxShopBytes: 1 << 30,
		MaxSeedBytes: 1 << 30, JournalSize: 10, JournalBytes: 1 << 20, JournalEntries: 100, Visitors: Visitors{NewSessions: 10}})
	big, _, _ := reg.Get("big-shop")
	_, _, err = st.ResolveVisitor("v", "big-shop", "203.0.113.7:1")
	var e *wire.APIError
	if !errors.As(err, &e) || e.Status != http.StatusForbidden || e.Field != HeaderScenario || big.Built() {
		t.Fatalf("big-shop for a visitor: %v; built %v", err, big.Built())
	}
	if _, ok := st.Sessions().Find("v"); ok {
		t.Error("a refused request made its session")
	}
	if _, sc, err := st.ResolveVisitor("v", "slow", "203.0.113.7:1"); err != nil || sc.Name != "slow" {
		t.Errorf("slow, on the default data: %v", err)
	}
	if _, _, err := st.ResolveVisitor("v", "nope", "203.0.113.7:1"); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Errorf("an unknown scenario: %v", err)
	}
	for i := range 12 { // the client's tenth new session is its last this minute
		_, _, err := st.ResolveVisitor(fmt.Sprintf("n%d", i), "", "203.0.113.7:1")
		if (err != nil) != (i >= 9) {
			t.Errorf("new session %d (v the first): %v", i+2, err)
		}
	}
}
