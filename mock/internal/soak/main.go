// Command soak runs a long mixed load against replymock and checks that
// it neither fails nor leaks.
//
// It fails on an unexpected 5xx, resident memory that grows more than
// 10% from after warm-up (by then the journals have filled their
// bounds) to the end, or goroutines left.
//
//	go run ./mock/internal/soak                  # 200,000 requests
//	go run ./mock/internal/soak -requests 20000  # a quick one
//
// The mix: list queries with random filters, valid and invalid PATCHes,
// requests through fault scenarios (flaky, first-calls-fail, slow is left
// out to keep it short), run-time faults added and removed, journal reads
// and resets, over 2,000 sessions, twice the session limit, so sessions
// are evicted all along. It exits 1 if a check fails.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replymock/replymock/mock"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("soak", flag.ContinueOnError)
	total := fs.Int("requests", 200_000, "requests to send")
	workers := fs.Int("c", 16, "concurrent clients")
	sessions := fs.Int("sessions", 2000, "distinct X-Mock-Session values")
	entries := fs.Int("journal-entries", 0, "journal entries kept in all (0: the default)")
	maxGrowth := fs.Float64("max-rss-growth", 0.10, "the largest allowed RSS growth from warm-up to the end")
	warmup := fs.Float64("warmup", 0.5, "share of the requests after which the start RSS is taken: by then the journal has reached its bounds")
	shops := fs.Int("shops", 200, "living-shop sessions (demo-frozen) each advanced -shop-advance after the mixed load; 0 skips them")
	shopAdvance := fs.String("shop-advance", "24h", "how far each living shop's clock is advanced")
	maxShopGrowth := fs.Int64("max-shop-rss-mb", 600, "the largest allowed RSS growth in MB from the living shops")
	if err := fs.Parse(args); err != nil {
		return err
	}
	srv, err := mock.New(mock.Options{MaxSessions: max(*sessions/2, *shops+1), JournalEntries: *entries})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	base := "http://" + ln.Addr().String()
	fmt.Printf("soak: %d requests, %d clients, %d sessions (limit %d), %s/%s %d CPUs, %s\n",
		*total, *workers, *sessions, *sessions/2, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())

	goroutinesBefore := runtime.NumGoroutine()
	tr := &http.Transport{MaxIdleConnsPerHost: *workers}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	warmAt := int64(float64(*total) * *warmup)
	m := mixedLoad(client, base, *total, *workers, *sessions, warmAt)
	rssWarm, rssEnd, unexpected := m.rssWarm, m.rssEnd, m.unexpected
	growth := float64(rssEnd-rssWarm) / float64(rssWarm)
	fmt.Printf("  RSS after warm-up (%d requests) %d MB, at the end %d MB: %+.1f%%\n", warmAt, rssWarm>>20, rssEnd>>20, growth*100)
	var fails []string
	if *shops > 0 {
		if err := shopPhase(client, base, *shops, *shopAdvance, *maxShopGrowth<<20); err != nil {
			fails = append(fails, err.Error())
		}
	}
	tr.CloseIdleConnections()
	hs.Close()
	time.Sleep(200 * time.Millisecond) // let connection goroutines end
	goroutinesAfter := runtime.NumGoroutine()

	fmt.Printf("  goroutines before %d, after %d\n", goroutinesBefore, goroutinesAfter)
	if unexpected > 0 {
		fails = append(fails, "unexpected 5xx or errors")
	}
	if growth > *maxGrowth {
		fails = append(fails, fmt.Sprintf("RSS grew by more than %.0f%%", *maxGrowth*100))
	}
	if goroutinesAfter > goroutinesBefore+2 {
		fails = append(fails, "goroutines leaked")
	}
	if len(fails) > 0 {
		return fmt.Errorf("%s", strings.Join(fails, "; "))
	}
	fmt.Println("  all checks passed")
	return nil
}

var queries = []string{"", "limit=100", "answered=0&rating=1", "date_from=2026-03-01&date_to=2026-06-30&limit=50",
	"counts_only=1&rating=5", "search=%D0%BA%D0%B0%D1%87%D0%B5%D1%81%D1%82%D0%B2%D0%BE", "offset=900&limit=100",
	"nm_id=555000111", "limit=0", "rating=9", "date_from=2026-02-30"}

var patches = []string{`{"feedback":[{"rating":1,"tone":"calm"}]}`, `{"question":{"reply_mode":"auto"}}`,
	`{"feedback":[{"rating":2,"use_unified_settings":1,"signature":"S"}]}`, `{"feedback":[{"rating":7}]}`, `{"oops":1}`, `{`}

// one sends a random request; faulty says a failure may be injected.
func one(client *http.Client, base string, rng *rand.Rand, sessions int) (int, bool, error) {
	sid := "soak-" + strconv.Itoa(rng.IntN(sessions))
	var req *http.Request
	faulty := false
	switch x := rng.IntN(100); {
	case x < 55:
		req, _ = http.NewRequest("GET", base+"/api/v1/feedbacks?"+queries[rng.IntN(len(queries))], nil)
	case x < 70:
		req, _ = http.NewRequest("PATCH", base+"/api/v1/settings/ai", strings.NewReader(patches[rng.IntN(len(patches))]))
		req.Header.Set("Content-Type", "application/json")
	case x < 78:
		req, _ = http.NewRequest("GET", base+"/api/v1/settings/ai", nil)
	case x < 86:
		req, _ = http.NewRequest("GET", base+"/api/v1/feedbacks?limit=5", nil)
		req.Header.Set("X-Mock-Scenario", []string{"flaky", "first-calls-fail", "empty-shop", "rate-limited"}[rng.IntN(4)])
		faulty = true
	case x < 90:
		body := `{"times":1,"error":{"status":503}}`
		if rng.IntN(4) == 0 {
			body = `{"times":1,"drop":true}`
		}
		req, _ = http.NewRequest("POST", base+"/__mock/faults?session="+sid, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
	case x < 94:
		req, _ = http.NewRequest("GET", base+"/__mock/requests?limit=20&session="+sid, nil)
	case x < 96:
		req, _ = http.NewRequest("POST", base+"/__mock/reset?session="+sid, nil)
	default:
		req, _ = http.NewRequest("DELETE", base+"/__mock/faults?session="+sid, nil)
	}
	req.Header.Set("X-Mock-Session", sid)
	// A run-time fault added to this session may hit any of its API calls.
	faulty = faulty || strings.Contains(req.URL.Path, "/api/v1/")
	resp, err := client.Do(req)
	if err != nil {
		return 0, faulty, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, faulty, err
	}
	return resp.StatusCode, faulty, nil
}

// shopPhase starts n living-shop sessions on the demo-frozen scenario,
// moves each one's clock by advance (arrivals and answers for that
// span), and checks that resident memory grows by at most maxGrowth
// bytes and that the API still answers, timing a list request in the
// first and in the last shop.
func shopPhase(client *http.Client, base string, n int, advance string, maxGrowth int64) error {
	send := func(method, path, sid, body string) error {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("X-Mock-Session", sid)
		req.Header.Set("X-Mock-Scenario", "demo-frozen")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s in session %s: status %d", method, path, sid, resp.StatusCode)
		}
		return nil
	}
	listLatency := func(sid string) (time.Duration, error) {
		var times []time.Duration
		for range 21 {
			t0 := time.Now()
			if err := send("GET", "/api/v1/feedbacks?limit=100&answered=0", sid, ""); err != nil {
				return 0, err
			}
			times = append(times, time.Since(t0))
		}
		slices.Sort(times)
		return times[len(times)/2], nil
	}
	debug.FreeOSMemory()
	before := rss()
	start := time.Now()
	for i := range n {
		sid := "shop-" + strconv.Itoa(i)
		if err := send("POST", "/__mock/clock", sid, `{"advance":"`+advance+`"}`); err != nil {
			return fmt.Errorf("living shops: %v", err)
		}
	}
	elapsed := time.Since(start)
	debug.FreeOSMemory()
	after := rss()
	first, err := listLatency("shop-0")
	if err != nil {
		return fmt.Errorf("living shops: %v", err)
	}
	last, err := listLatency("shop-" + strconv.Itoa(n-1))
	if err != nil {
		return fmt.Errorf("living shops: %v", err)
	}
	fmt.Printf("  living shops: %d demo-frozen sessions advanced %s in %.1f s; RSS %d MB before, %d MB after (%+d MB); "+
		"median list latency %v (first shop), %v (last)\n",
		n, advance, elapsed.Seconds(), before>>20, after>>20, (after-before)>>20, first.Round(time.Microsecond), last.Round(time.Microsecond))
	if after-before > maxGrowth {
		return fmt.Errorf("living shops grew RSS by %d MB, more than %d MB", (after-before)>>20, maxGrowth>>20)
	}
	return nil
}

// rss is the process's resident memory in bytes (Linux), or the Go
// runtime's view of it elsewhere.
func rss() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "VmRSS:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb << 10
			}
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}

// mixed is what the mixed load measured.
type mixed struct {
	rssWarm, rssEnd int64 // RSS after the warm-up and at the end
	unexpected      int64 // 5xx answers and errors no fault injected
}

// mixedLoad sends total requests of the mix from workers clients over
// sessions sessions, reading the RSS after warmAt of them and at the end.
func mixedLoad(client *http.Client, base string, total, workers, sessions int, warmAt int64) mixed {
	var sent, unexpected, injected atomic.Int64
	var rssWarm atomic.Int64
	var mu sync.Mutex
	statuses := map[int]int{}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for {
				n := sent.Add(1)
				if n > int64(total) {
					return
				}
				if n == warmAt {
					debug.FreeOSMemory() // as at the end: count what is live, not what the runtime has yet to return
					rssWarm.Store(rss())
				}
				status, faulty, err := one(client, base, rng, sessions)
				if err != nil {
					if faulty {
						injected.Add(1)
						continue
					}
					fmt.Fprintln(os.Stderr, "soak: request error:", err)
					unexpected.Add(1)
					continue
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
				if status >= 500 {
					if faulty {
						injected.Add(1)
					} else {
						unexpected.Add(1)
					}
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	debug.FreeOSMemory()
	rssEnd := rss()
	fmt.Printf("  %.0f requests/s over %.1f s; statuses %v\n", float64(total)/elapsed.Seconds(), elapsed.Seconds(), statuses)
	fmt.Printf("  injected failures (expected): %d; unexpected 5xx or errors: %d\n", injected.Load(), unexpected.Load())
	return mixed{rssWarm: rssWarm.Load(), rssEnd: rssEnd, unexpected: unexpected.Load()}
}
