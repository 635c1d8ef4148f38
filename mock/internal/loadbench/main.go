// Command loadbench measures replymock against the practical limit of the
// machine, in one run, and prints throughput, latency percentiles and the
// ratios the performance targets are stated in.
//
// Throughput: it builds the replymock binary (or takes -bin), starts it
// on loopback with its default flags (a text log line per request, stderr
// a pipe it drains and discards, as a container runtime would) and once
// more with --log-level warn, and starts a minimal net/http handler
// writing the same page and headers from memory in a process of its own;
// wrk (wrk -t2 -c32, a process of its own too) drives each in turn, in
// alternated rounds. The other sections (a big shop's start-up, memory
// and latency by query; PATCH under reads) measure replymock in this
// process, with a Go load generator.
//
//	go run ./mock/internal/loadbench -only throughput   # the throughput section alone, about a minute
//	go run ./mock/internal/loadbench                    # every section, about three minutes
//	go run ./mock/internal/loadbench -quick             # a shorter, noisier run
//
// It stops the processes it started, and exits 1 if a target is missed.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

func main() {
	if file := os.Getenv("LOADBENCH_STATIC"); file != "" {
		// A child of the throughput section: the static server.
		if err := serveStatic(file, os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench static server:", err)
			os.Exit(1)
		}
		return
	}
	// An interrupt stops the server processes started, then exits.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		stopChildren()
		os.Exit(1)
	}()
	err := run(os.Args[1:], os.Stdout)
	stopChildren()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// shape is one query the targets name.
type shape struct {
	name  string
	query string
	limit float64 // the highest allowed ratio of big-shop to default-data median latency
}

var shapes = []shape{
	{"first page", "", 2},
	{"limit=100, offset 400", "limit=100&offset=400", 2},
	{"answered + rating", "answered=0&rating=1&limit=100", 2},
	{"date range", "date_from=2026-03-01&date_to=2026-04-30&limit=100", 2},
	{"all filters, offset 50", "answered=1&rating=5&date_from=2026-01-01&date_to=2026-09-30&limit=100&offset=50", 2},
	{"nm_id + rating", "nm_id=NMID&rating=5&limit=100", 2},
	{"counts_only", "counts_only=1&rating=4&date_from=2026-02-01", 2},
	{"counts_only, all filters", "counts_only=1&answered=1&rating=5&nm_id=NMID&date_from=2026-01-01&date_to=2026-09-30", 2},
	{"search (common word)", "search=%D0%BA%D0%B0%D1%87%D0%B5%D1%81%D1%82%D0%B2%D0%BE&limit=100", 20},
	{"search (rare word)", "search=%D0%B4%D0%B8%D1%80%D0%BA%D0%B0&limit=100", 20},
	{"search + rating", "search=%D0%BA%D0%B0%D1%87%D0%B5%D1%81%D1%82%D0%B2%D0%BE&rating=5&answered=1&limit=100", 20},
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	quick := fs.Bool("quick", false, "shorter runs")
	size := fs.Int("reviews", 1_000_000, "reviews in the big shop")
	latConc := fs.Int("lc", 4, "concurrent connections for the latency runs")
	rounds := fs.Int("rounds", 5, "alternated rounds of the throughput run")
	wrkDur := fs.Duration("duration", 3*time.Second, "how long wrk drives each server a round (whole seconds)")
	only := fs.String("only", "", "run only these sections, comma-separated: throughput, big (start-up, memory and latency of a big shop), patch")
	bin := fs.String("bin", "", "the replymock binary to measure; empty builds the module's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sections := map[string]bool{"throughput": true, "big": true, "patch": true}
	if *only != "" {
		clear(sections)
		for name := range strings.SplitSeq(*only, ",") {
			switch name = strings.TrimSpace(name); name {
			case "throughput", "big", "patch":
				sections[name] = true
			default:
				return fmt.Errorf("-only: unknown section %q; sections: throughput, big, patch", name)
			}
		}
	}
	if *rounds < 1 {
		return errors.New("-rounds must be >= 1")
	}
	if *wrkDur < time.Second {
		return errors.New("-duration must be at least 1s")
	}
	dur := 4 * time.Second
	if *quick {
		dur, *wrkDur = 1500*time.Millisecond, min(*wrkDur, 2*time.Second)
	}
	fmt.Fprintf(out, "loadbench: %s/%s, %d CPUs, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())

	misses := 0
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		misses++
		return "MISSED"
	}
	if sections["throughput"] {
		if err := throughput(out, *bin, *rounds, *wrkDur, verdict); err != nil {
			return err
		}
	}
	if sections["big"] || sections["patch"] {
		// These measure the server's own work, in this process.
		def, err := mock.New(mock.Options{})
		if err != nil {
			return err
		}
		defURL, stopDef, err := listen(def)
		if err != nil {
			return err
		}
		defer stopDef()
		if sections["big"] {
			if err := bigShop(out, defURL, *size, *latConc, dur, verdict); err != nil {
				return err
			}
		}
		if sections["patch"] {
			patch(out, defURL, *latConc, dur, verdict)
		}
	}
	if misses > 0 {
		return fmt.Errorf("%d targets missed", misses)
	}
	fmt.Fprintln(out, "\nall targets met")
	return nil
}

// Throughput targets: replymock's requests per second over the static
// handler's, with its default flags (a log line per request) and with
// --log-level warn (no request lines).
const (
	targetDefault = 0.85
	targetWarn    = 0.90
)

// throughput measures the replymock binary as deployed against a minimal
// net/http handler that writes the same page and headers from memory, in
// a process of its own: the practical limit. wrk drives each in turn, the
// static handler and replymock with default flags and with --log-level
// warn, for dur each a round, the order turning from round to round, so
// that the changing load of a shared machine falls on the three alike.
func throughput(out io.Writer, bin string, rounds int, dur time.Duration, verdict func(bool) string) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return errors.New("the throughput section needs wrk (Debian's package wrk: apt-get install wrk)")
	}
	dir, err := os.MkdirTemp("", "loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	children.mu.Lock()
	children.dirs = append(children.dirs, dir) // for an interrupt
	children.mu.Unlock()
	if bin == "" {
		if bin, err = buildReplymock(dir); err != nil {
			return err
		}
	}
	def, err := startChild("replymock", bin, nil, nil, "/__mock/health")
	if err != nil {
		return err
	}
	defer def.stop()
	warn, err := startChild("replymock --log-level warn", bin, []string{"--log-level", "warn"}, nil, "/__mock/health")
	if err != nil {
		return err
	}
	defer warn.stop()
	page, header, err := fetch(def.url + "/api/v1/feedbacks")
	if err != nil {
		return err
	}
	// The static page's headers are replymock's, with a request id as
	// long as replymock's are after a million requests.
	header.Set("X-Request-Id", "rm-1000000")
	static, err := startStatic(dir, staticPage{header, page})
	if err != nil {
		return err
	}
	defer static.stop()

	fmt.Fprintf(out, "\n1. Throughput, GET /api/v1/feedbacks (default data, a %d-byte page): wrk -t%d -c%d, %s each a round, %d rounds, the order turning\n",
		len(page), wrkThreads, wrkConns, dur, rounds)
	fmt.Fprintf(out, "   default: the replymock binary with default flags (a text log line per request; stderr is a pipe this program drains)\n")
	fmt.Fprintf(out, "   warn: the same with --log-level warn; static: a minimal net/http handler writing the same bytes and headers from memory, in a process of its own\n")
	targets := []wrkTarget{
		{"static", static.url + "/api/v1/feedbacks", static.cmd.Process.Pid},
		{"default", def.url + "/api/v1/feedbacks", def.cmd.Process.Pid},
		{"warn", warn.url + "/api/v1/feedbacks", warn.cmd.Process.Pid},
	}
	for _, t := range targets { // warm up: connections, heap, the journal's ring
		if _, err := runWrk(wrk, t.url, t.pid, time.Second); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	linesBefore := def.lines.Load()
	all, err := wrkRounds(out, wrk, targets, rounds, dur)
	if err != nil {
		return err
	}
	time.Sleep(500 * time.Millisecond) // the last buffered log lines reach the pipe
	n := def.lines.Load() - linesBefore
	if n == 0 {
		return errors.New("replymock with default flags logged no request lines")
	}
	fmt.Fprintf(out, "   replymock with default flags logged %d lines to stderr during the rounds\n", n)
	throughputSummary(out, targets, all, verdict)
	return nil
}

// wrkTarget is a server the throughput section drives: its name, the
// page's URL and the process that serves it.
type wrkTarget struct {
	name string
	url  string
	pid  int
}

// wrkRounds runs wrk against each target for dur, in rounds, the order
// turning from round to round, and prints each round with the ratios of
// "default" and "warn" to "static". It returns the results by target,
// round by round.
func wrkRounds(out io.Writer, wrk string, targets []wrkTarget, rounds int, dur time.Duration) (map[string][]wrkResult, error) {
	all := make(map[string][]wrkResult)
	for round := range rounds {
		res := make(map[string]wrkResult)
		for k := range targets {
			t := targets[(k+round)%len(targets)]
			r, err := runWrk(wrk, t.url, t.pid, dur)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
			res[t.name] = r
			all[t.name] = append(all[t.name], r)
		}
		dr, wr := res["default"].rps/res["static"].rps, res["warn"].rps/res["static"].rps
		fmt.Fprintf(out, "   round %d: static  %s\n            default %s | ratio %.2f\n            warn    %s | ratio %.2f\n",
			round+1, res["static"], res["default"], dr, res["warn"], wr)
	}
	return all, nil
}

// throughputSummary prints the medians of the rounds' results: each
// target's, the CPU per request, and the median ratios against their
// targets.
func throughputSummary(out io.Writer, targets []wrkTarget, all map[string][]wrkResult, verdict func(bool) string) {
	for _, t := range targets {
		rs := all[t.name]
		fmt.Fprintf(out, "   median %-7s %7.0f req/s; CPU per request: the server %s, wrk %s\n", t.name,
			median(field(rs, func(r wrkResult) float64 { return r.rps })),
			micros(median(field(rs, func(r wrkResult) float64 { return r.serverCPU }))),
			micros(median(field(rs, func(r wrkResult) float64 { return r.wrkCPU }))))
	}
	// Two cores do the work of the server and of wrk: the CPU both take
	// per request gives the ratio without the rest of a shared machine's
	// load, which moves the req/s of a round.
	cost := func(name string) float64 {
		return median(field(all[name], func(r wrkResult) float64 { return r.serverCPU + r.wrkCPU }))
	}
	if sc := cost("static"); sc > 0 && cost("default") > 0 && cost("warn") > 0 {
		fmt.Fprintf(out, "   CPU per request, server and wrk together: static %s, default %s (ratio %.2f), warn %s (ratio %.2f)\n",
			micros(sc), micros(cost("default")), sc/cost("default"), micros(cost("warn")), sc/cost("warn"))
	}
	// A round's ratio is of req/s measured side by side: the median of
	// the rounds' ratios, not the ratio of the medians.
	var defRatios, warnRatios []float64
	for i := range all["static"] {
		defRatios = append(defRatios, all["default"][i].rps/all["static"][i].rps)
		warnRatios = append(warnRatios, all["warn"][i].rps/all["static"][i].rps)
	}
	md, mw := median(defRatios), median(warnRatios)
	fmt.Fprintf(out, "   median ratio, default flags:     %.2f (target >= %.2f): %s\n", md, targetDefault, verdict(md >= targetDefault))
	fmt.Fprintf(out, "   median ratio, --log-level warn:  %.2f (target >= %.2f): %s\n", mw, targetWarn, verdict(mw >= targetWarn))
}

func field(rs []wrkResult, f func(wrkResult) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = f(r)
	}
	return out
}

// micros writes a CPU time per request in microseconds, "?" if unknown.
func micros(us float64) string {
	if us <= 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f µs", us)
}

// wrk's threads and connections for the throughput section: two threads,
// as the machine the targets are stated for has two cores.
const (
	wrkThreads = 2
	wrkConns   = 32
)

// wrkResult is what one wrk run reported, and the CPU time the server
// and wrk took per request (0 where unknown).
type wrkResult struct {
	rps               float64
	requests          int64
	p50, p99          time.Duration
	serverCPU, wrkCPU float64 // microseconds per request
}

func (r wrkResult) String() string {
	return fmt.Sprintf("%7.0f req/s, p50 %v p99 %v, CPU per request %s (wrk %s)", r.rps, r.p50, r.p99, micros(r.serverCPU), micros(r.wrkCPU))
}

// runWrk runs wrk against url, served by process pid, for d and reads
// its report. A socket error or an answer other than 2xx fails the run.
func runWrk(wrk, url string, pid int, d time.Duration) (wrkResult, error) {
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.Command(wrk, "-t"+strconv.Itoa(wrkThreads), "-c"+strconv.Itoa(wrkConns), "-d"+strconv.Itoa(secs)+"s",
		"--timeout", "10s", "--latency", url)
	before := processCPU(pid)
	outb, err := cmd.Output()
	after := processCPU(pid)
	if err != nil {
		return wrkResult{}, fmt.Errorf("wrk: %v\n%s", err, outb)
	}
	r, err := parseWrk(string(outb))
	if err != nil || r.requests == 0 {
		return r, err
	}
	if before >= 0 && after >= before {
		r.serverCPU = float64((after - before).Microseconds()) / float64(r.requests)
	}
	if u := cmd.ProcessState.SysUsage(); u != nil {
		if ru, ok := u.(*syscall.Rusage); ok {
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			r.wrkCPU = float64(cpu.Microseconds()) / float64(r.requests)
		}
	}
	return r, nil
}

// processCPU is the CPU time process pid has taken, user and system, all
// its threads; -1 where /proc does not tell.
func processCPU(pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The fields after the command's name, which is in parentheses and
	// may hold spaces: utime and stime are the 14th and 15th fields.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return -1
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	const ticks = 100 // USER_HZ, the unit of /proc's times on Linux
	return time.Duration(utime+stime) * time.Second / ticks
}

// parseWrk reads the figures of wrk's report printed with --latency.
func parseWrk(report string) (wrkResult, error) {
	var r wrkResult
	var haveRPS bool
	for line := range strings.Lines(report) {
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return r, fmt.Errorf("wrk: %q: %v", line, err)
			}
			r.rps, haveRPS = v, true
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			n, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return r, fmt.Errorf("wrk: %q: %v", line, err)
			}
			r.requests = n
		case len(f) == 2 && (f[0] == "50%" || f[0] == "99%"):
			d, err := time.ParseDuration(f[1])
			if err != nil {
				return r, fmt.Errorf("wrk: %q: %v", line, err)
			}
			if f[0] == "50%" {
				r.p50 = d
			} else {
				r.p99 = d
			}
		case strings.HasPrefix(strings.TrimSpace(line), "Socket errors:"), strings.HasPrefix(strings.TrimSpace(line), "Non-2xx or 3xx responses:"):
			return r, fmt.Errorf("wrk: %s\n%s", strings.TrimSpace(line), report)
		}
	}
	if !haveRPS || r.rps == 0 {
		return r, fmt.Errorf("wrk: no requests answered\n%s", report)
	}
	return r, nil
}

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

// child is a server process the benchmark started, with its stderr
// drained and discarded as a container runtime would, counted.
type child struct {
	name  string
	url   string
	cmd   *exec.Cmd
	lines atomic.Int64 // lines read from its stderr
	tail  tailBuffer   // the end of its stderr, for errors
	done  chan struct{}
}

// children are the processes started and the temporary folders made, so
// that an early error or an interrupt stops and removes them too.
var children struct {
	mu   sync.Mutex
	list []*child
	dirs []string
}

// startChild runs bin with args (and env on top of the environment
// without REPLYMOCK_ variables, so the binary sees its defaults) on a
// free loopback port given by --addr, and waits until it answers ready.
func startChild(name, bin string, args, env []string, ready string) (*child, error) {
	var lastErr error
	for range 3 { // the free port may be taken between asking and listening
		addr, err := freePort()
		if err != nil {
			return nil, err
		}
		c, err := startOnce(name, bin, append(args, "--addr", addr), env, "http://"+addr, ready)
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	return nil, lastErr
}

func startOnce(name, bin string, args, env []string, url, ready string) (*child, error) {
	c := &child{name: name, url: url, done: make(chan struct{})}
	c.cmd = exec.Command(bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "REPLYMOCK_") && !strings.HasPrefix(kv, "LOADBENCH_") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Env = append(c.cmd.Env, env...)
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		return nil, err
	}
	children.mu.Lock()
	children.list = append(children.list, c)
	children.mu.Unlock()
	go func() {
		defer close(c.done)
		buf := make([]byte, 64<<10)
		for {
			n, err := stderr.Read(buf)
			c.lines.Add(int64(bytes.Count(buf[:n], []byte{'\n'})))
			c.tail.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	client := &http.Client{Timeout: time.Second}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-c.done: // stderr closed: the process has ended
			c.stop()
			return nil, fmt.Errorf("%s exited at start: %s", name, c.tail.String())
		default:
		}
		resp, err := client.Get(url + ready)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return c, nil
			}
		}
	}
	c.stop()
	return nil, fmt.Errorf("%s did not answer %s within 30 s: %s", name, ready, c.tail.String())
}

// stop ends the process by its PID: SIGTERM, so that it drains and
// flushes its logs, then SIGKILL after a few seconds.
func (c *child) stop() {
	p := c.cmd.Process
	p.Signal(syscall.SIGTERM)
	exited := make(chan struct{})
	go func() { c.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		p.Kill()
		<-exited
	}
	children.mu.Lock()
	defer children.mu.Unlock()
	for i, o := range children.list {
		if o == c {
			children.list = append(children.list[:i], children.list[i+1:]...)
			break
		}
	}
}

// stopChildren stops every child still running, then removes the
// temporary folders.
func stopChildren() {
	children.mu.Lock()
	list := append([]*child(nil), children.list...)
	children.mu.Unlock()
	for _, c := range list {
		c.stop()
	}
	children.mu.Lock()
	defer children.mu.Unlock()
	for _, dir := range children.dirs {
		os.RemoveAll(dir)
	}
	children.dirs = nil
}

// tailBuffer keeps the last 4 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(p []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - 4096; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// buildReplymock builds the replymock binary of the module the benchmark
// runs in, into dir.
func buildReplymock(dir string) (string, error) {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if root == "." || root == "" {
		return "", errors.New("not inside the replymock module")
	}
	bin := filepath.Join(dir, "replymock")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// staticPage is what the static server serves: a page and its headers.
type staticPage struct {
	Header http.Header `json:"header"`
	Body   []byte      `json:"body"`
}

// staticHandler writes the page from memory: the practical limit.
func staticHandler(p staticPage) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range p.Header {
			w.Header()[k] = v
		}
		w.Write(p.Body)
	})
}

// startStatic runs the static handler in a process of its own (this
// program again, told so by LOADBENCH_STATIC), so that it and replymock
// are measured alike: another process, reached over loopback.
func startStatic(dir string, p staticPage) (*child, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "static-page.json")
	data, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, data, 0o600); err != nil {
		return nil, err
	}
	return startChild("static", self, nil, []string{"LOADBENCH_STATIC=" + file}, "/ready")
}

// serveStatic is the static server process: it serves the page in file
// on --addr until it is signalled.
func serveStatic(file string, args []string) error {
	if len(args) != 2 || args[0] != "--addr" {
		return fmt.Errorf("static server: want --addr ADDR, got %q", args)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var p staticPage
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", args[1])
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: staticHandler(p), ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signalContext()
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
