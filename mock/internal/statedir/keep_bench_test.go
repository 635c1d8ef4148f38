package statedir

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/atomicfile"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// BenchmarkKeepPatch is a change of the settings kept for session s on
// the real disk, synced, as a PATCH keeps it before its answer: "log" is
// the folder's keeping (a head and a log of what changed), "whole" the
// session's snapshot written whole, the plain alternative. The sizes:
// a typical session, a living shop of its own a day old and at its
// bound, seeded reviews. MB is the session's snapshot.
func BenchmarkKeepPatch(b *testing.B) {
	for _, size := range []string{"typical", "shop-day", "seed-5000", "seed-10000", "shop-bound"} {
		for _, way := range []string{"log", "whole"} {
			b.Run(size+"/"+way, func(b *testing.B) {
				start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
				c := &clock{t: start}
				k := server(b, c)
				grow(b, k, c, size)
				dir := b.TempDir()
				if way == "log" {
					d, err := Open(dir, nil)
					if err != nil {
						b.Fatal(err)
					}
					d.Keep(k, start)
				} else {
					keepWhole(k, dir)
				}
				st := k.State()
				if err := st.Sync(context.Background()); err != nil {
					b.Fatal(err)
				}
				snap, err := k.TakeOwn("s")
				if err != nil {
					b.Fatal(err)
				}
				body, err := json.Marshal(snap)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					sign(b, k, "s", fmt.Sprint(i))
					if err := st.SyncWrite(context.Background(), "s"); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(body))/1e6, "MB")
			})
		}
	}
}

// grow makes session s of the given size. The session is used every 50
// minutes, within its TTL.
func grow(b *testing.B, k *snapshot.Keeper, c *clock, size string) {
	sign(b, k, "s", "first")
	switch size {
	case "shop-day", "shop-bound":
		if err := k.State().SetScenario("s", "demo"); err != nil {
			b.Fatal(err)
		}
		steps := 840 // 700 hours of arrivals: the shop at its bound
		if size == "shop-day" {
			steps = 29
		}
		for range steps {
			sign(b, k, "s", "own")
			c.add(50 * time.Minute)
		}
	case "seed-5000", "seed-10000":
		n := 5000
		if size == "seed-10000" {
			n = 10000
		}
		ss, sc, err := k.State().Resolve("s", "default")
		if err != nil {
			b.Fatal(err)
		}
		var fbs []reviews.Feedback
		for i := range n {
			fbs = append(fbs, reviews.Feedback{ID: int64(900000 + i), Text: fmt.Sprintf("review %d ", i) + strings.Repeat("good fit, fast delivery. ", 24),
				ProductValuation: 5, CreatedDate: "2026-11-01 10:00:00", UserName: "Anna"})
		}
		own, err := reviews.NewNumbered(fbs)
		if err != nil {
			b.Fatal(err)
		}
		if kept, err := ss.KeepSeed(sc.Name, nil, session.NewSeed(false, own), func(int) error { return nil }); !kept || err != nil {
			b.Fatalf("seeding: %v, %v", kept, err)
		}
	}
}

// keepWhole makes k keep each changed session's snapshot whole in dir,
// renamed into place, the folder synced.
func keepWhole(k *snapshot.Keeper, dir string) {
	k.State().SetKeeper(func(_ context.Context, ids []string, _ bool) error {
		for _, id := range ids {
			snap, err := k.TakeOwn(id)
			if err != nil {
				return err
			}
			body, err := json.Marshal(snap)
			if err != nil {
				return err
			}
			if err := atomicfile.WriteFile(filepath.Join(dir, sessionFile(id)), body, 0o600); err != nil {
				return err
			}
		}
		return atomicfile.SyncDir(dir)
	})
}
