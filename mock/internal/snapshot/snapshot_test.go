package snapshot

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// A session taken, written as YAML or JSON, read back and restored into
// another session is taken again as the same document: the same pick,
// settings, seeded reviews and living shop.
func TestTakeAndRestoreRoundTrip(t *testing.T) {
	k := shopSession(t, func(set *settings.Settings) { set.Feedback[0].ReplyMode = "auto" }, time.Hour)
	if _, err := k.State().SeedReviews("a", "", fixture.SeedAppend, []fixture.SeedReview{{ProductValuation: 2, Text: "Шов разошёлся"}}); err != nil {
		t.Fatal(err)
	}
	advance(t, k, "a", 2*time.Hour)
	want := strings.Replace(taken(t, k, "a"), `"session":"a"`, `"session":"b"`, 1)
	for _, asYAML := range []bool{true, false} {
		doc, err := Marshal(take(t, k, "a"), asYAML)
		if err != nil {
			t.Fatal(err)
		}
		if isJSON := bytes.HasPrefix(doc, []byte("{")); isJSON == asYAML || !IsSnapshot(doc) {
			t.Fatalf("Marshal (YAML %v) wrote %.100s", asYAML, doc)
		}
		back, err := Decode(doc)
		if err != nil {
			t.Fatal(err)
		}
		res, err := k.Restore("b", back)
		if err != nil || res.Session != "b" || len(res.Dropped) != 0 {
			t.Fatalf("restore (YAML %v): %+v, %v", asYAML, res, err)
		}
		if got := taken(t, k, "b"); got != want {
			t.Errorf("restored from YAML %v, the session is taken otherwise:\n got %.400s\nwant %.400s", asYAML, got, want)
		}
	}
}

// A session's Sum is the same whenever it is taken while it does not
// change, and another once it does; the snapshot summed keeps its
// TakenAt.
func TestSumLeavesOutWhenTaken(t *testing.T) {
	k := shopSession(t, func(set *settings.Settings) { set.Feedback[0].ReplyMode = "auto" }, time.Hour)
	sum := func(at time.Time) [32]byte {
		t.Helper()
		snap, err := k.TakeOwn("a")
		if err != nil {
			t.Fatal(err)
		}
		snap.TakenAt = at
		s, err := snap.Sum()
		if err != nil {
			t.Fatal(err)
		}
		if !snap.TakenAt.Equal(at) {
			t.Fatalf("Sum changed TakenAt to %v", snap.TakenAt)
		}
		return s
	}
	before := sum(start)
	if again := sum(start.Add(time.Hour)); again != before {
		t.Error("the session, unchanged but taken later, sums otherwise")
	}
	patch(t, k, "a", func(set *settings.Settings) { set.Feedback[0].ReplyMode = "manual" })
	if after := sum(start); after == before {
		t.Error("the session's settings changed, its sum did not")
	}
}

// Scenario and fixture files are no snapshots; any version of the
// document is one, for validate to say what is wrong with it.
func TestIsSnapshot(t *testing.T) {
	for doc, want := range map[string]bool{
		"format: replymock-snapshot/1\nsession: a\n": true,
		`{"format":"replymock-snapshot/9"}`:          true,
		"description: x\ndata: {fixture: default}\n": false,
		"reviews: []\n": false,
		"{not yaml":     false,
	} {
		if got := IsSnapshot([]byte(doc)); got != want {
			t.Errorf("IsSnapshot(%q) = %v", doc, got)
		}
	}
}

// A snapshot handed out hides its auth override's tokens, not the
// session's own overrides; restored, the redacted auth is left out and
// said so, and the rest of the overrides come back.
func TestRedactedTokensAreLeftOut(t *testing.T) {
	k := newKeeper(t, "default")
	strict := true
	o := access.Overrides{Auth: &access.Auth{Type: "bearer", Tokens: []string{"s3cret-token"}}, Strict: &strict}
	if err := k.State().SetOverridesFor("a", o); err != nil {
		t.Fatal(err)
	}
	snap := take(t, k, "a")
	snap.RedactTokens()
	doc, _ := Marshal(snap, true)
	if bytes.Contains(doc, []byte("s3cret-token")) || !bytes.Contains(doc, []byte("[redacted]")) {
		t.Errorf("the snapshot shows the token: %s", doc)
	}
	if got := k.State().OverridesFor("a"); got.Auth == nil || got.Auth.Tokens[0] != "s3cret-token" {
		t.Errorf("redacting the snapshot changed the session: %+v", got)
	}
	res, err := k.Restore("b", snap)
	if err != nil || len(res.Dropped) != 1 || !strings.Contains(res.Dropped[0], "overrides.auth") {
		t.Errorf("dropped %q (%v), want the auth override named", res.Dropped, err)
	}
	if got := k.State().OverridesFor("b"); got.Auth != nil || got.Strict == nil || !*got.Strict {
		t.Errorf("restored overrides: %+v; want strict kept and no auth", got)
	}
}

// Validate names the file and the field of a problem, says what would
// not come back, and restores only a document that reads.
func TestValidate(t *testing.T) {
	restored := 0
	restore := func(snap *Snapshot) (Result, error) {
		restored++
		return Result{Session: snap.Session, Dropped: []string{"scenario \"x\": gone"}}, nil
	}
	notes, err := Validate("a.yaml", []byte("format: replymock-snapshot/1\nsession: a\ntaken_at: 2026-12-01T09:00:00Z\n"), restore)
	if err != nil || len(notes) != 1 || restored != 1 {
		t.Errorf("a good document: notes %q, %v, restored %d times", notes, err, restored)
	}
	var p *yamlfile.Problem
	_, err = Validate("b.yaml", []byte("format: replymock-snapshot/1\nsession: a b\n"), restore)
	if !errors.As(err, &p) || p.File != "b.yaml" || p.Field != "session" || restored != 1 {
		t.Errorf("a bad session id: %v (restored %d times)", err, restored)
	}
	_, err = Validate("c.json", make([]byte, MaxBytes+1), restore)
	if !errors.As(err, &p) || p.File != "c.json" || !strings.Contains(p.Message, "96 MiB") || restored != 1 {
		t.Errorf("a document too large: %v (restored %d times)", err, restored)
	}
}

// Two snapshots are written at a time, a third waits for one of them or
// gives up with its request; one restore at a time.
func TestTurns(t *testing.T) {
	k := newKeeper(t, "default")
	done1, ok1 := k.Writing(context.Background())
	done2, ok2 := k.Writing(context.Background())
	if !ok1 || !ok2 {
		t.Fatal("two writers did not get their turns")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok := k.Writing(ctx); ok {
		t.Error("a third writer got a turn while two wrote")
	}
	done1()
	if n := len(k.writers); n != 1 {
		t.Fatalf("one writer done, %d places are taken, want 1", n)
	}
	done3, ok3 := k.Writing(context.Background())
	if !ok3 {
		t.Error("a place freed was not taken")
	}
	done2()
	done3()
	done := k.Restoring()
	if k.restoreMu.TryLock() {
		t.Error("a second restore could start while one runs")
	}
	done()
	if !k.restoreMu.TryLock() {
		t.Error("the restore's turn did not end")
	}
}
