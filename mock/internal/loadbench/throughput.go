package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

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
