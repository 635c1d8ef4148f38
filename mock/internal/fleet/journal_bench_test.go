package fleet

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/redistest"
)

// BenchmarkAppendStep drives the journal's append step in the steady
// state a load test creates (the default page, entries of 1.5 KB with a
// 20 KB response kept once by its hash, steps of 9 entries, the journal
// full) and reports what Redis spends on each entry: the script's time
// by INFO commandstats (redis-µs/entry) and the server's CPU, user and
// system (cpu-µs/entry, its network I/O included). one-session is the
// default session alone, its entries bound binding; 200-sessions
// appends round robin for 200 sessions, the fleet's bytes binding.
func BenchmarkAppendStep(b *testing.B) {
	for _, c := range []struct {
		name     string
		sessions int
	}{{"one-session", 1}, {"200-sessions", 200}} {
		b.Run(c.name, func(b *testing.B) {
			benchAppend(b, c.sessions)
		})
	}
}

// benchBounds are the server's default bounds.
var benchBounds = journal.Bounds{Size: 1000, Bytes: 128 << 20, Entries: 50_000}

const benchBatch = 9

func benchAppend(b *testing.B, sessions int) {
	sj := sharedJournal{openTest(b)}
	data := bytes.Repeat([]byte("d"), 1500) // each entry's own: a number in front
	page := bytes.Repeat([]byte("<p>a review</p>"), 20_000/15)
	kept := int64(len(data) + len(page))
	next := 0
	step := func() {
		batch := make([]*appendReq, benchBatch)
		for i := range batch {
			sid := "default"
			if sessions > 1 {
				sid = "s" + strconv.Itoa(next%sessions)
			}
			next++
			d := strconv.AppendInt(data[:0:0], int64(next), 10)
			d = append(d, data[len(d):]...)
			r := &appendReq{sid: sid, data: d, resp: page, kept: kept, b: benchBounds, done: make(chan struct{})}
			r.hash, r.send = sj.s.bodies.hash(page)
			batch[i] = r
		}
		sj.flush(batch)
		for _, r := range batch {
			if r.err != nil || r.seq <= 0 {
				b.Fatalf("entry of %s: seq %d, %v", r.sid, r.seq, r.err)
			}
		}
	}
	// The journal full: every bound reached, the order's too.
	for range benchBounds.Entries/benchBatch + 200 {
		step()
	}
	ctx := context.Background()
	c := sj.s.client
	if err := c.Do(ctx, c.B().ConfigResetstat().Build()).Error(); err != nil {
		b.Fatal(err)
	}
	cpu0 := redisCPU(b, sj.s)
	b.ResetTimer()
	for range b.N {
		step()
	}
	b.StopTimer()
	cpu := redisCPU(b, sj.s) - cpu0
	usec, calls := scriptStats(b, sj.s)
	if calls != int64(b.N) {
		b.Fatalf("%d script runs for %d steps", calls, b.N)
	}
	entries := float64(b.N * benchBatch)
	b.ReportMetric(float64(usec)/entries, "redis-µs/entry")
	b.ReportMetric(cpu*1e6/entries, "cpu-µs/entry")
	b.ReportMetric(0, "ns/op")
	if testing.Verbose() {
		b.Log(commandStats(b, sj.s))
	}
}

// openTest is a Store on a redis-server of its own.
func openTest(t testing.TB) *Store {
	t.Helper()
	rs := redistest.Start(t)
	s, err := Open(context.Background(), Config{URL: rs.URL()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// info is a section of Redis's INFO, field by field.
func info(t testing.TB, s *Store, section string) map[string]string {
	t.Helper()
	txt, err := s.client.Do(context.Background(), s.client.B().Info().Section(section).Build()).ToString()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(txt, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			out[k] = v
		}
	}
	return out
}

// redisCPU is the CPU (s) redis-server used so far, user and system.
func redisCPU(t testing.TB, s *Store) float64 {
	t.Helper()
	m := info(t, s, "cpu")
	u, err1 := strconv.ParseFloat(m["used_cpu_user"], 64)
	y, err2 := strconv.ParseFloat(m["used_cpu_sys"], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("INFO cpu: %v", m)
	}
	return u + y
}

// scriptStats is the time (µs) and runs of the scripts since the stats
// were reset.
func scriptStats(t testing.TB, s *Store) (usec, calls int64) {
	t.Helper()
	m := info(t, s, "commandstats")
	for _, name := range []string{"cmdstat_evalsha", "cmdstat_eval"} {
		for _, f := range strings.Split(m[name], ",") {
			k, v, _ := strings.Cut(f, "=")
			n, _ := strconv.ParseInt(v, 10, 64)
			switch k {
			case "calls":
				calls += n
			case "usec":
				usec += n
			}
		}
	}
	if calls == 0 {
		t.Fatalf("no script ran: %v", m)
	}
	return usec, calls
}

// commandStats prints the commands the scripts ran, for a look inside.
func commandStats(t testing.TB, s *Store) string {
	t.Helper()
	m := info(t, s, "commandstats")
	var sb strings.Builder
	for k, v := range m {
		fmt.Fprintf(&sb, "%s %s\n", k, v)
	}
	return sb.String()
}
