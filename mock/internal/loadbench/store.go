package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// targetStore: the replymock binary on a Redis store serves the default
// page at this share of the same binary's requests a second on the
// memory store, at least. Each read pays two exchanges with Redis (its
// versions, its journal entry).
const targetStore = 0.5

// storeSection measures the same binary with --store memory and with
// --store redis://... (Debian's redis-server, started here on a free
// loopback port, no persistence, stopped by its PID), both with
// --log-level warn: wrk on the default page, alternated in rounds, the
// medians and the median of the rounds' ratios; then a PATCH's latency
// on each store (one connection, alternated).
func storeSection(out io.Writer, bin string, rounds int, dur time.Duration, verdict func(bool) string) error {
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		return errors.New("the store section needs wrk (Debian's package wrk)")
	}
	dir, err := os.MkdirTemp("", "loadbench-store-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if bin == "" {
		if bin, err = buildReplymock(dir); err != nil {
			return err
		}
	}
	redisURL, stopRedis, err := startRedis(dir)
	if err != nil {
		return err
	}
	defer stopRedis()
	mem, err := startChild("replymock --store memory", bin, []string{"--log-level", "warn", "--store", "memory"}, nil, "/__mock/health")
	if err != nil {
		return err
	}
	defer mem.stop()
	red, err := startChild("replymock --store redis", bin, []string{"--log-level", "warn", "--store", redisURL}, nil, "/__mock/health")
	if err != nil {
		return err
	}
	defer red.stop()
	const page = "/api/v1/feedbacks?isAnswered=false&take=10&skip=0"
	targets := []wrkTarget{
		{"memory", mem.url + page, mem.cmd.Process.Pid},
		{"redis", red.url + page, red.cmd.Process.Pid},
	}
	fmt.Fprintf(out, "\n5. The store: GET %s, wrk -t%d -c%d, %s each a round, %d rounds, the order turning; the same binary with --log-level warn and --store memory or --store redis (redis-server on loopback)\n",
		page, wrkThreads, wrkConns, dur, rounds)
	for _, t := range targets {
		if _, err := runWrk(wrk, t.url, t.pid, time.Second); err != nil {
			return fmt.Errorf("%s: %w", t.name, err)
		}
	}
	var mems, reds, ratios []float64
	for round := range rounds {
		res := map[string]wrkResult{}
		for k := range targets {
			t := targets[(k+round)%len(targets)]
			r, err := runWrk(wrk, t.url, t.pid, dur)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			res[t.name] = r
		}
		ratio := res["redis"].rps / res["memory"].rps
		mems, reds, ratios = append(mems, res["memory"].rps), append(reds, res["redis"].rps), append(ratios, ratio)
		fmt.Fprintf(out, "   round %d: memory %s\n            redis  %s | ratio %.2f\n", round+1, res["memory"], res["redis"], ratio)
	}
	mr := median(ratios)
	fmt.Fprintf(out, "   median memory %7.0f req/s, redis %7.0f req/s\n", median(mems), median(reds))
	fmt.Fprintf(out, "   median ratio, redis to memory: %.2f (target >= %.2f): %s\n", mr, targetStore, verdict(mr >= targetStore))
	return patchLatency(out, wrk, dir, []*child{mem, red}, dur)
}

// patchLatency runs PATCH /api/v1/settings/ai on one connection against
// each server in turn, twice, and prints wrk's p50 and p99 of each.
func patchLatency(out io.Writer, wrk, dir string, servers []*child, dur time.Duration) error {
	script := filepath.Join(dir, "patch.lua")
	err := os.WriteFile(script, []byte(`wrk.method = "PATCH"
wrk.body = '{"feedback":[{"rating":1,"signature":"loadbench"}]}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-Mock-Session"] = "loadbench"
`), 0o600)
	if err != nil {
		return err
	}
	secs := strconv.Itoa(max(1, int(dur.Round(time.Second)/time.Second)))
	for round := range 2 {
		for _, c := range servers {
			outb, err := exec.Command(wrk, "-t1", "-c1", "-d"+secs+"s", "--latency", "-s", script, c.url+"/api/v1/settings/ai").Output()
			if err != nil {
				return fmt.Errorf("wrk: %v\n%s", err, outb)
			}
			r, err := parseWrk(string(outb))
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "   PATCH, one connection, round %d, %-26s p50 %v p99 %v (%0.f a second)\n", round+1, c.name+":", r.p50, r.p99, r.rps)
		}
	}
	return nil
}

// startRedis starts redis-server on a free loopback port, with no
// persistence and its files in dir; stop ends it by its PID.
func startRedis(dir string) (url string, stop func(), err error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return "", nil, errors.New("the store section needs redis-server (Debian's package redis-server)")
	}
	addr, err := freePort()
	if err != nil {
		return "", nil, err
	}
	port := addr[strings.LastIndexByte(addr, ':')+1:]
	cmd := exec.Command(bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", filepath.Join(dir, "redis.log"), "--daemonize", "no")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
		if err == nil {
			c.Close()
			return "redis://127.0.0.1:" + port + "/0", stop, nil
		}
		if time.Now().After(deadline) {
			stop()
			return "", nil, fmt.Errorf("redis-server did not listen: %v", err)
		}
	}
}
