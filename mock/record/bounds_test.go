package record_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
	"github.com/replymock/replymock/mock/record"
)

// hostile is an upstream on loopback whose list never ends (total: a
// billion) or ends at total, each page 100 records of text characters
// of Cyrillic (two bytes each), every record new; it counts the pages
// asked for. A page is written in pieces, so that the upstream itself
// holds little while the recorder's memory is measured.
func hostile(t *testing.T, text, total int, pages *atomic.Int64) string {
	src := newSource(t, mock.Options{Scenario: "empty-shop"})
	body := strings.Repeat("я", text)
	return serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/settings/ai") {
			src.srv.ServeHTTP(w, r)
			return
		}
		n := pages.Add(1)
		off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"success":true,"data":{"feedbacks":[`)
		for i := range 100 {
			if i > 0 {
				io.WriteString(w, ",")
			}
			fmt.Fprintf(w, `{"id":%d%03d,"feedback_id":"p%d-%d","text":"`, n, i, n, i)
			io.WriteString(w, body)
			fmt.Fprintf(w, `","product_valuation":5,"created_date":"2026-10-%02d 10:00:00","nm_id":1,"imt_id":1,"product_name":"x","state":"wbRu","created_at":"2026-10-%02d 10:00:00"}`, i%28+1, i%28+1)
		}
		fmt.Fprintf(w, `],"total":%d,"limit":100,"offset":%d}}`, total, off)
	}))
}

// peakHeap runs f while it samples the live heap (after a collection)
// every 20 milliseconds, and returns the most it found above the heap
// before f.
func peakHeap(f func()) int64 {
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	base := live()
	var peak atomic.Int64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			peak.Store(max(peak.Load(), live()))
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-done
	return max(peak.Load(), live()) - base
}

// dirBytes is what the files under dir hold together.
func dirBytes(t *testing.T, dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return err
	})
	return n
}

// Against an upstream of endless pages of 7.8 MB, a recording stops
// once it has read MaxReadBytes, says so, and holds at most five times
// that in memory meanwhile (mock/record/README.md's figure); one whose list ends
// within the bound is written, checked and served, holding no more. Its
// state file holds no more than it read.
func TestRecordBoundsWhatItReads(t *testing.T) {
	const bound = 32 << 20
	var pages atomic.Int64
	from := hostile(t, 39_000, 1_000_000_000, &pages)
	out := t.TempDir()
	var err error
	held := peakHeap(func() {
		_, err = record.Run(context.Background(), record.Config{From: from, Out: out, Rate: fastRate, MaxReadBytes: bound})
	})
	t.Logf("endless pages: %d pages asked for, %d MiB held at most, %v", pages.Load(), held>>20, err)
	if err == nil || !strings.Contains(err.Error(), "the answers together are over 32 MiB, the most read in all (--max-read-mib)") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("endless pages: %v, want one line past the bound", err)
	}
	if n := pages.Load(); n > bound/(7_800_000)+1 {
		t.Errorf("%d pages of 7.8 MB asked for within %d MiB", n, bound>>20)
	}
	if n := dirBytes(t, out); n > bound {
		t.Errorf("the state file holds %d bytes, more than the %d read", n, bound)
	}
	if held > 5*bound {
		t.Errorf("the recording held %d MiB, more than five times the %d MiB it may read", held>>20, bound>>20)
	}

	// A shop that ends within the bound: 20 pages of 1.5 MB, 2,000
	// reviews of 7,500 characters, recorded and served.
	pages.Store(0)
	from = hostile(t, 7_500, 2_000, &pages)
	out = t.TempDir()
	var res *record.Result
	held = peakHeap(func() {
		res, err = record.Run(context.Background(), record.Config{From: from, Out: out, Rate: fastRate, MaxReadBytes: bound})
	})
	t.Logf("a shop of 2,000 long reviews: %d MiB on disk, %d MiB held at most", dirBytes(t, out)>>20, held>>20)
	if err != nil || res.Reviews != 2000 {
		t.Fatalf("a shop within the bound: %v", err)
	}
	if held > 5*bound {
		t.Errorf("the recording held %d MiB, more than five times the %d MiB it may read", held>>20, bound>>20)
	}
	replay(t, out, "recorded")
}

// An answer past MaxAnswerBytes is refused: unread when its length is
// announced, else once it has read one byte more.
func TestRecordBoundsAnAnswer(t *testing.T) {
	for _, announced := range []bool{true, false} {
		var pages atomic.Int64
		from := hostile(t, 500, 100, &pages) // a page of some 110 KB
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			resp, err := http.Get(strings.TrimSuffix(from, "/api/v1") + r.URL.String())
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			w.Header().Set("Content-Type", "application/json")
			if announced {
				w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			} else {
				w.(http.Flusher).Flush() // chunked: no length
			}
			w.Write(b)
		})
		_, err := record.Run(context.Background(), record.Config{From: serve(t, h), Out: t.TempDir(), Rate: fastRate, MaxAnswerBytes: 64 << 10})
		if err == nil || !strings.Contains(err.Error(), "GET /feedbacks?limit=100&offset=0: the answer is over 64 KiB (--max-answer-mib)") {
			t.Errorf("announced %v: %v", announced, err)
		}
	}
}

// A recording writes at most MaxWriteBytes, its state file included:
// past it, it stops with an error that names the file and the bound,
// and leaves no file half-written; with a larger bound, the next run
// goes on from its state file. A state file larger than MaxReadBytes is
// not gone on from.
func TestRecordBoundsWhatItWrites(t *testing.T) {
	src := newSource(t, mock.Options{}) // 1,009 reviews: some 1.1 MB read
	for _, c := range []struct {
		bound int64
		file  string
	}{{64 << 10, ".record-shop.jsonl"}, {2 << 20, "recorded/shop.json"}} {
		out := t.TempDir()
		cfg := record.Config{From: src.url + "/api/v1", Out: out, Name: "shop", Rate: fastRate, MaxWriteBytes: c.bound}
		_, err := record.Run(context.Background(), cfg)
		want := fmt.Sprintf("writing %s would take what the recording writes over %s (--max-write-mib)", c.file, map[int64]string{64 << 10: "64 KiB", 2 << 20: "2 MiB"}[c.bound])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("bound %d: %v, want %q", c.bound, err, want)
		}
		if n := dirBytes(t, out); n > c.bound {
			t.Errorf("bound %d: %d bytes written", c.bound, n)
		}
		if _, err := os.Stat(filepath.Join(out, "recorded", "shop.json")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("bound %d: recorded/shop.json is there (%v)", c.bound, err)
		}
		if c.bound == 2<<20 {
			cfg.MaxWriteBytes = 0 // the default
			res, err := record.Run(context.Background(), cfg)
			if err != nil || res.Resumed != 1009 || res.Requests != 0 {
				t.Errorf("going on with the default bound: %v, resumed %d in %d requests", err, res.Resumed, res.Requests)
			}
		}
	}
	out := t.TempDir()
	cfg := cutShort(t, src, out, 500)
	cfg.MaxReadBytes = 64 << 10
	if _, err := record.Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "more than the 64 KiB a recording reads (--max-read-mib)") {
		t.Errorf("a state file over the read bound: %v", err)
	}
}

// The bounds' flags take MiB from 1 to a TiB; the announcement says them.
func TestRecordBoundsFlags(t *testing.T) {
	for _, args := range [][]string{{"--max-read-mib", "0"}, {"--max-answer-mib", "-1"}, {"--max-write-mib", "2000000"}} {
		err := record.Main(context.Background(), append([]string{"--from", "http://127.0.0.1:1/api/v1", "--out", t.TempDir()}, args...), io.Discard, io.Discard)
		var ue *probe.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]+" must be from 1 to") {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	src := newSource(t, mock.Options{Scenario: "empty-shop"})
	var stderr strings.Builder
	if err := record.Main(context.Background(), []string{"--from", src.url + "/api/v1", "--out", t.TempDir(), "--rate", "1000", "--max-read-mib", "64"}, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "8 MiB an answer, 64 MiB read, 1024 MiB written") {
		t.Errorf("the announcement: %q", stderr.String())
	}
}
