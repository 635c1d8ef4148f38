package fleet

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/shop"
)

// TestAnchor: the anchor Redis keeps is kept while it is within
// shop.MaxGap of now and not after it by more than anchorSkew (a
// replica whose clock is behind keeps the anchor of one ahead); else
// now is, and kept.
func TestAnchor(t *testing.T) {
	_, s := open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		now     time.Time
		want    time.Time
		inRedis string // set before, "" to leave
	}{
		{"none yet: now", t0.Add(500 * time.Millisecond), t0, ""},
		{"kept", t0.Add(time.Hour), t0, ""},
		{"kept at MaxGap", t0.Add(shop.MaxGap), t0, ""},
		{"past MaxGap: now", t0.Add(shop.MaxGap + time.Second), t0.Add(shop.MaxGap + time.Second), ""},
		{"after now by more than the skew: now", t0.Add(shop.MaxGap), t0.Add(shop.MaxGap), t0.Add(shop.MaxGap + anchorSkew + time.Second).Format(anchorLayout)},
		{"after now within the skew: kept", t0.Add(shop.MaxGap).Add(-anchorSkew), t0.Add(shop.MaxGap), ""},
		{"not an anchor: now", t0, t0, "yesterday"},
		{"the old layout kept", t0.Add(time.Minute), t0, "2026-03-01T12:00:00Z"},
	} {
		if tc.inRedis != "" {
			if err := s.client.Do(ctx, s.client.B().Set().Key(s.key("anchor")).Value(tc.inRedis).Build()).Error(); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Anchor(ctx, tc.now)
		if err != nil || !got.Equal(tc.want) {
			t.Fatalf("%s: Anchor(%s) = %s, %v; want %s", tc.name, tc.now, got, err, tc.want)
		}
	}
}

// TestAnchorOfReplicasStartingTogether: replicas that ask at the same
// moment for a stale anchor (each one's clock a second apart) all serve
// one anchor: reading it and replacing it is one step, so none replaces
// the anchor another just set.
func TestAnchorOfReplicasStartingTogether(t *testing.T) {
	rs, s0 := open(t)
	const n = 4
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := s0.client.Do(context.Background(), s0.client.B().Set().Key(s0.key("anchor")).
		Value(t0.Add(-shop.MaxGap-time.Hour).Format(anchorLayout)).Build()).Error(); err != nil {
		t.Fatal(err)
	}
	// Redis knows the script: each replica's step is one exchange.
	if err := anchorScript.Exec(context.Background(), s0.client, []string{"warm-up"}, []string{"", "", ""}).Error(); err != nil {
		t.Fatal(err)
	}
	// Every replica's first exchange waits until each replica has begun
	// one; they run one at a time, the earliest clock first, and each
	// answers once all have run: what a replica reads first, it reads
	// before any other goes on to write.
	var arrived sync.WaitGroup
	arrived.Add(n)
	var ran sync.WaitGroup
	ran.Add(n)
	turn := make([]chan struct{}, n)
	for i := range turn {
		turn[i] = make(chan struct{})
	}
	close(turn[0])
	stores := make([]*Store, n)
	for i := range stores {
		s := openOn(t, rs)
		var first sync.Once
		s.client = hooked{Client: s.client, hook: func(_ context.Context, do func()) {
			isFirst := false
			first.Do(func() { isFirst = true })
			if !isFirst {
				do()
				return
			}
			arrived.Done()
			arrived.Wait()
			<-turn[i]
			do()
			if i+1 < n {
				close(turn[i+1])
			}
			ran.Done()
			ran.Wait()
		}}
		stores[i] = s
	}
	got := make([]time.Time, n)
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() {
			var err error
			if got[i], err = s.Anchor(context.Background(), t0.Add(time.Duration(i)*time.Second)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for i, g := range got {
		if !g.Equal(t0) {
			t.Errorf("replica %d (its clock %s) serves the data anchored to %s; replica 0 to %s", i, t0.Add(time.Duration(i)*time.Second), g, got[0])
		}
	}
}

// TestHealthAsksAgain: a failed exchange marks the store unreachable,
// but health asks Redis before saying so: a late failure on a
// connection Redis closed, after the others went through, is not
// reported; a Redis that is down is.
func TestHealthAsksAgain(t *testing.T) {
	rs, s := open(t)
	s.failed(errors.New("EOF"))
	if h := s.Health(); h.State != "ok" {
		t.Fatalf("health after a late failure, Redis up: %+v", h)
	}
	rs.Stop()
	s.failed(errors.New("EOF"))
	if h := s.Health(); h.State != "unreachable" || h.Error == "" {
		t.Fatalf("health with Redis down: %+v", h)
	}
}
