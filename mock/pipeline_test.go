package mock_test

import (
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// Many goroutines mix PATCH and GET in their own sessions with scenario
// switches, resets, fault changes, journal reads and hot reloads around
// them. Run with -race. In the end, each session's last PATCH is what GET
// returns, and its journal holds its own requests only.
func TestConcurrentMix(t *testing.T) {
	def, _ := scenarios.FS.ReadFile("default.yaml")
	var files sync.Map // the scenarios folder, changed by the reloader
	files.Store("default.yaml", def)
	files.Store("other.yaml", []byte("extends: default\ndescription: v0\n"))
	fsys := func() fstest.MapFS {
		m := fstest.MapFS{}
		files.Range(func(k, v any) bool {
			m[k.(string)] = &fstest.MapFile{Data: v.([]byte)}
			return true
		})
		return m
	}
	h := newServer(t, mock.Options{Scenarios: &swapFS{get: fsys}})

	const workers, rounds = 8, 60
	var wg sync.WaitGroup
	var bad atomic.Int32
	var stop atomic.Bool
	last := make([]string, workers)
	for w := range workers {
		wg.Go(func() {
			sid := fmt.Sprintf("worker-%d", w)
			// The header keeps the worker on default whatever the global switches do.
			hdr := []string{"X-Mock-Session", sid, "X-Mock-Scenario", "default"}
			for k := range rounds {
				tone := fmt.Sprintf("t%d-%d", w, k)
				r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":3,"tone":"`+tone+`"}]}`,
					append([]string{"Content-Type", "application/json"}, hdr...)...)
				if r.status != 200 {
					if bad.Add(1) < 5 {
						t.Logf("%s PATCH: %d %s", sid, r.status, r.body)
					}
					continue
				}
				last[w] = tone
				var s mock.Settings
				if r := get(t, h, "/api/v1/settings/ai", hdr...); r.status != 200 || decodeQuiet(r.body, &s) != nil || s.Feedback[2].Tone != tone {
					if bad.Add(1) < 5 {
						t.Logf("%s GET settings: %d %s, want tone %s", sid, r.status, truncate(r.body, 300), tone)
					}
				}
				if r := get(t, h, "/api/v1/feedbacks?limit=5&rating=5", hdr...); r.status != 200 {
					if bad.Add(1) < 5 {
						t.Logf("%s GET feedbacks: %d %s", sid, r.status, truncate(r.body, 300))
					}
				}
			}
		})
	}
	chaos := []func(i int){
		func(i int) { h.SetScenario(mock.AllSessions, []string{"default", "other", "strict-tones"}[i%3]) },
		func(i int) { h.SetScenario(fmt.Sprintf("chaos-%d", i%7), "empty-shop") },
		func(i int) { h.Reset(fmt.Sprintf("chaos-%d", i%7)) },
		func(i int) {
			f, _ := h.AddFault(mock.AllSessions, mock.Fault{Path: "/nowhere", Error: &mock.FaultError{Status: 503}})
			h.RemoveFaults(mock.AllSessions, f.ID)
		},
		func(i int) {
			h.AddFault(fmt.Sprintf("chaos-%d", i%7), mock.Fault{Times: 1, Error: &mock.FaultError{Status: 502}})
			h.Faults(mock.AllSessions)
		},
		func(i int) {
			get(t, h, "/api/v1/feedbacks?counts_only=1", "X-Mock-Session", fmt.Sprintf("chaos-%d", i%7))
		},
		func(i int) { h.Requests(mock.JournalFilter{Method: "PATCH", Limit: 10}) },
		func(i int) { h.ClearRequests(fmt.Sprintf("chaos-%d", i%7)) },
		func(i int) {
			files.Store("other.yaml", fmt.Appendf(nil, "extends: default\ndescription: v%d\n", i))
			h.Reload()
		},
		func(i int) { h.Scenarios(mock.DefaultSession) },
	}
	var cw sync.WaitGroup
	for c, f := range chaos {
		cw.Go(func() {
			for i := 0; !stop.Load(); i++ {
				f(i + c)
			}
		})
	}
	wg.Wait()
	stop.Store(true)
	cw.Wait()

	if n := bad.Load(); n > 0 {
		t.Errorf("%d requests saw an inconsistent state", n)
	}
	for w := range workers {
		sid := fmt.Sprintf("worker-%d", w)
		do := func() mock.Settings {
			var s mock.Settings
			decodeOK(t, sid, get(t, h, "/api/v1/settings/ai", "X-Mock-Session", sid, "X-Mock-Scenario", "default"), &s)
			return s
		}
		if got := do().Feedback[2].Tone; got != last[w] {
			t.Errorf("%s: tone %q, want its last PATCH %q", sid, got, last[w])
		}
		for _, e := range h.Requests(mock.JournalFilter{Session: sid}) {
			if e.Session != sid {
				t.Errorf("%s's journal holds a request of %s", sid, e.Session)
			}
		}
	}
}

// BenchmarkServeDefaultPage measures the whole handler for the default
// first page: routing, session, faults, journal, query, page.
func BenchmarkServeDefaultPage(b *testing.B) {
	s, err := mock.New(mock.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/v1/feedbacks", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
	}
}

// A PATCH of the settings, in memory and with a state folder, whose
// answer waits until the session's file is written.
func BenchmarkPatchSettings(b *testing.B) {
	for _, folder := range []bool{false, true} {
		name := "memory"
		if folder {
			name = "state-dir"
		}
		b.Run(name, func(b *testing.B) {
			s := newServer(b, mock.Options{})
			if folder {
				d, err := mock.OpenStateDir(b.TempDir(), nil)
				if err != nil {
					b.Fatal(err)
				}
				d.Restore(s)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				req := httptest.NewRequest("PATCH", "/api/v1/settings/ai", strings.NewReader(fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, i)))
				req.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatalf("PATCH: %d %s", rec.Code, rec.Body)
				}
			}
		})
	}
}

// BenchmarkPatchSettingsLivingShop is a PATCH of the settings kept in a
// state folder, of a session whose own living shop is at its bound
// (20,000 arrivals, a snapshot of some 17 MB): a write costs what it
// changed. MB/folder is what the session's files hold.
func BenchmarkPatchSettingsLivingShop(b *testing.B) {
	s := newServer(b, mock.Options{Scenario: "demo"})
	dir := b.TempDir()
	d, err := mock.OpenStateDir(dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	d.Restore(s)
	patch := func(i int) {
		req := httptest.NewRequest("PATCH", "/api/v1/settings/ai", strings.NewReader(fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, i)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Mock-Session", "shop")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("PATCH: %d %s", rec.Code, rec.Body)
		}
	}
	patch(0) // the session's own shop
	req := httptest.NewRequest("POST", "/__mock/clock?session=shop", strings.NewReader(`{"advance":"700h"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("clock: %d %s", rec.Code, rec.Body)
	}
	patch(1)
	var size int64
	filepath.WalkDir(filepath.Join(dir, "sessions"), func(_ string, de fs.DirEntry, _ error) error {
		if fi, err := de.Info(); err == nil && !de.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	if size < 10<<20 {
		b.Fatalf("the session's files hold %d bytes: its shop is not at its bound", size)
	}
	b.ReportAllocs()
	for i := 2; b.Loop(); i++ {
		patch(i)
	}
	b.ReportMetric(float64(size)/1e6, "MB/folder")
}

// discardWriter is a ResponseWriter that keeps its header map between
// requests, so that counting allocations counts the server's alone.
type discardWriter struct{ h http.Header }

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// The default first page allocates 7 objects a request: the Exchange,
// its id, the journal's copy and the header values (13 when the live
// faults' hook moved three values to the heap). A new per-request value
// on the heap fails here. Under -race, sync.Pool drops some of what it
// is given, so a page buffer is made anew now and then.
func TestDefaultPageAllocations(t *testing.T) {
	s := newServer(t, mock.Options{})
	req := httptest.NewRequest("GET", "/api/v1/feedbacks", nil)
	w := &discardWriter{h: http.Header{}}
	// The fewest of three runs: what another test left running (a
	// server, a shop's clock) allocates too, now and then.
	n := math.Inf(1)
	for range 3 {
		n = min(n, testing.AllocsPerRun(200, func() {
			clear(w.h)
			s.ServeHTTP(w, req)
		}))
	}
	most := 7.0
	if raceBuild() {
		most++
	}
	if n > most {
		t.Errorf("the default page allocates %.0f objects a request, want at most %.0f", n, most)
	}
}

// raceBuild says whether the test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
