package fleet

import (
	"context"
	"testing"
)

// TestTouchScript: a touch keeps a session Redis counts and holds the
// document of for another TTL (its score and both keys' TTL moved on);
// one whose document is gone (expired, or taken by a bound) stays gone:
// not scored again, so it holds no place in the bounds.
func TestTouchScript(t *testing.T) {
	_, s := open(t)
	ctx := context.Background()
	do := func(cmd string, args ...string) {
		t.Helper()
		if err := s.client.Do(ctx, s.client.B().Arbitrary(cmd).Args(args...).Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	do("ZADD", s.key("ids"), "100", "held", "100", "gone")
	do("SET", s.key("v:held"), "1")
	do("SET", s.key("s:held"), "{}")
	do("SET", s.key("v:gone"), "1") // its document expired
	for _, id := range []string{"held", "gone"} {
		if err := touchScript.Exec(ctx, s.client, []string{s.key("v:" + id), s.key("s:" + id), s.key("ids")}, []string{id, "5000", "60000"}).Error(); err != nil {
			t.Fatal(err)
		}
	}
	score := func(id string) int64 {
		v, _ := s.client.Do(ctx, s.client.B().Zscore().Key(s.key("ids")).Member(id).Build()).AsInt64()
		return v
	}
	ttl := func(key string) int64 {
		v, _ := s.client.Do(ctx, s.client.B().Pttl().Key(s.key(key)).Build()).AsInt64()
		return v
	}
	if score("held") != 5000 || ttl("s:held") <= 0 || ttl("v:held") <= 0 {
		t.Errorf("the session held: score %d, TTLs %d and %d ms; want 5000 and both set", score("held"), ttl("s:held"), ttl("v:held"))
	}
	if score("gone") != 100 || ttl("v:gone") != -1 {
		t.Errorf("the session whose document is gone: score %d, v's TTL %d; want both untouched", score("gone"), ttl("v:gone"))
	}
}
