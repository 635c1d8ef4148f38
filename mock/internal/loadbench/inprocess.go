package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// bigShop measures the start-up, memory and latency by query of a big
// shop, against the default data served at defURL.
func bigShop(out io.Writer, defURL string, size, latConc int, dur time.Duration, verdict func(bool) string) error {
	fmt.Fprintf(out, "\n2. A shop of %d reviews: start-up and memory\n", size)
	big, buildTime, heapPerReview, err := buildBig(size)
	if err != nil {
		return err
	}
	bigURL, stopBig, err := listen(big)
	if err != nil {
		return err
	}
	defer stopBig()
	jsonPerReview, err := jsonSize(bigURL)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "   start-up (generate, encode, index): %.1f s\n", buildTime.Seconds())
	fmt.Fprintf(out, "   heap: %.0f bytes per review, of which about %.0f are the review's own JSON text; %.0f beyond it (target < 2048): %s\n",
		heapPerReview, jsonPerReview, heapPerReview-jsonPerReview, verdict(heapPerReview-jsonPerReview < 2048))

	fmt.Fprintf(out, "\n3. Latency by query, default data vs %d reviews, %d connections, %s each (median of 2 runs' p50)\n", size, latConc, dur)
	fmt.Fprintf(out, "   %-28s %12s %12s %12s %12s %7s %7s\n", "query", "default p50", "default p99", "big p50", "big p99", "ratio", "target")
	defNM, err := someNmID(defURL)
	if err != nil {
		return err
	}
	bigNM, err := someNmID(bigURL)
	if err != nil {
		return err
	}
	for _, s := range shapes {
		var dRes, bRes result
		var dp50s, bp50s []float64
		for range 2 {
			dRes = load(defURL+"/api/v1/feedbacks?"+strings.ReplaceAll(s.query, "NMID", defNM), latConc, dur/2)
			bRes = load(bigURL+"/api/v1/feedbacks?"+strings.ReplaceAll(s.query, "NMID", bigNM), latConc, dur/2)
			dp50s, bp50s = append(dp50s, float64(dRes.p50)), append(bp50s, float64(bRes.p50))
		}
		if dRes.errors+bRes.errors > 0 {
			return fmt.Errorf("%s: %d errors", s.name, dRes.errors+bRes.errors)
		}
		ratio := median(bp50s) / median(dp50s)
		fmt.Fprintf(out, "   %-28s %12s %12s %12s %12s %7.2f %7s %s\n", s.name, time.Duration(median(dp50s)).Round(time.Microsecond), dRes.p99.Round(time.Microsecond),
			time.Duration(median(bp50s)).Round(time.Microsecond), bRes.p99.Round(time.Microsecond), ratio, fmt.Sprintf("<= %g", s.limit), verdict(ratio <= s.limit))
	}

	return nil
}

// patch measures reads of the settings while one client PATCHes them.
func patch(out io.Writer, defURL string, latConc int, dur time.Duration, verdict func(bool) string) {
	fmt.Fprintf(out, "\n4. PATCH under concurrent reads: %d readers of GET /settings/ai, alone and while one client PATCHes\n", latConc)
	alone := load(defURL+"/api/v1/settings/ai", latConc, dur)
	pr := patchUnderLoad(defURL, latConc, dur)
	slow := float64(pr.reads.p50) / float64(alone.p50)
	fmt.Fprintf(out, "   reads alone %s\n   reads with PATCHes %s; PATCHes %s\n", alone, pr.reads, pr.patches)
	// The PATCH client takes CPU from the readers on 2 cores; a reader that
	// waited for a PATCH's whole work would show far more than that.
	fmt.Fprintf(out, "   read p50 with PATCHes / alone: %.2f (target <= 2): %s\n", slow, verdict(slow <= 2))
}

// listen serves h on a loopback port.
func listen(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

func fetch(url string) ([]byte, http.Header, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return nil, nil, fmt.Errorf("GET %s: %d", url, resp.StatusCode)
	}
	h := resp.Header.Clone()
	h.Del("Date")
	h.Del("X-Request-Id")
	return body, h, err
}

// buildBig makes a server whose served scenario has n generated reviews,
// and measures the build and the heap it keeps.
func buildBig(n int) (*mock.Server, time.Duration, float64, error) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		return nil, 0, 0, err
	}
	files := fstest.MapFS{
		"default.yaml": {Data: def},
		"big.yaml": {Data: fmt.Appendf(nil, "extends: default\ndescription: loadbench\ndata:\n  generate: {count: %d, products: %d}\n",
			n, max(40, n/2500))},
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	old := debug.SetGCPercent(400) // as the replymock binary does while it starts
	srv, err := mock.New(mock.Options{Scenarios: files, Scenario: "big"})
	debug.SetGCPercent(old)
	if err != nil {
		return nil, 0, 0, err
	}
	took := time.Since(start)
	runtime.GC()
	runtime.ReadMemStats(&after)
	return srv, took, float64(after.HeapAlloc-before.HeapAlloc) / float64(n), nil
}

// jsonSize is the mean size of a review's JSON, from a few pages.
func jsonSize(base string) (float64, error) {
	total, count := 0, 0
	for _, off := range []int{0, 1000, 50000, 300000} {
		body, _, err := fetch(fmt.Sprintf("%s/api/v1/feedbacks?limit=100&offset=%d", base, off))
		if err != nil {
			return 0, err
		}
		total += len(body)
		count += 100
	}
	return float64(total) / float64(count), nil
}

// someNmID is the nm_id of the first review.
func someNmID(base string) (string, error) {
	body, _, err := fetch(base + "/api/v1/feedbacks?limit=1")
	if err != nil {
		return "", err
	}
	_, after, ok := strings.Cut(string(body), `"nm_id":`)
	if !ok {
		return "", errors.New("no nm_id in the first review")
	}
	end := strings.IndexByte(after, ',')
	return after[:end], nil
}

// result is what one load run measured.
type result struct {
	requests, errors int
	rps              float64
	p50, p90, p99    time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("%7.0f req/s, p50 %v p90 %v p99 %v", r.rps, r.p50.Round(time.Microsecond), r.p90.Round(time.Microsecond), r.p99.Round(time.Microsecond))
}

// load sends GET url on conc keep-alive connections for d.
func load(url string, conc int, d time.Duration) result {
	dr := newDriver(url, conc)
	defer dr.close()
	return summarize(dr.run(d))
}

// driver sends GET url on conc keep-alive connections, kept open between
// its runs.
type driver struct {
	url    string
	conc   int
	tr     *http.Transport
	client *http.Client
}

func newDriver(url string, conc int) *driver {
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true}
	return &driver{url: url, conc: conc, tr: tr, client: &http.Client{Transport: tr, Timeout: 10 * time.Second}}
}

func (dr *driver) close() { dr.tr.CloseIdleConnections() }

// sample is what runs of a driver measured.
type sample struct {
	lat     []time.Duration
	errors  int
	elapsed time.Duration
}

// run sends requests for d.
func (dr *driver) run(d time.Duration) sample {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var mu sync.Mutex
	var s sample
	var wg sync.WaitGroup
	start := time.Now()
	for range dr.conc {
		wg.Go(func() {
			mine := make([]time.Duration, 0, 1<<12)
			bad := 0
			for ctx.Err() == nil {
				t0 := time.Now()
				resp, err := dr.client.Get(dr.url)
				if err != nil {
					bad++
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					bad++
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			s.lat = append(s.lat, mine...)
			s.errors += bad
			mu.Unlock()
		})
	}
	wg.Wait()
	s.elapsed = time.Since(start)
	return s
}

// summarize joins samples into one result.
func summarize(samples ...sample) result {
	var lat []time.Duration
	var r result
	var elapsed time.Duration
	for _, s := range samples {
		lat = append(lat, s.lat...)
		r.errors += s.errors
		elapsed += s.elapsed
	}
	slices.Sort(lat)
	pct := func(p float64) time.Duration {
		if len(lat) == 0 {
			return 0
		}
		return lat[min(len(lat)-1, int(float64(len(lat))*p))]
	}
	r.requests, r.rps = len(lat), float64(len(lat))/elapsed.Seconds()
	r.p50, r.p90, r.p99 = pct(0.5), pct(0.9), pct(0.99)
	return r
}

type patchResult struct{ reads, patches result }

// patchUnderLoad reads the settings while another client PATCHes them.
func patchUnderLoad(base string, readers int, d time.Duration) patchResult {
	done := make(chan result)
	go func() { done <- load(base+"/api/v1/settings/ai", readers, d) }()
	client := &http.Client{Timeout: 10 * time.Second}
	var lat []time.Duration
	deadline := time.Now().Add(d)
	for i := 0; time.Now().Before(deadline); i++ {
		body := fmt.Sprintf(`{"feedback":[{"rating":%d,"tone":"tone-%d"}]}`, i%5+1, i)
		t0 := time.Now()
		req, _ := http.NewRequest(http.MethodPatch, base+"/api/v1/settings/ai", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			lat = append(lat, time.Since(t0))
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	p := result{requests: len(lat), rps: float64(len(lat)) / d.Seconds()}
	if len(lat) > 0 {
		p.p50, p.p90, p.p99 = lat[len(lat)/2], lat[len(lat)*9/10], lat[len(lat)*99/100]
	}
	return patchResult{reads: <-done, patches: p}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}
