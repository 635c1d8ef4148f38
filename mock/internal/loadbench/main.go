// Command loadbench measures replymock against the limit of the machine.
// It prints throughput, latency percentiles and the ratios the
// performance targets are stated in.
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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/replymock/replymock/mock"
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
	only := fs.String("only", "", "run only these sections, comma-separated: throughput, big (start-up, memory and latency of a big shop), patch, store (--store memory against redis)")
	bin := fs.String("bin", "", "the replymock binary to measure; empty builds the module's")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sections := map[string]bool{"throughput": true, "big": true, "patch": true, "store": true}
	if *only != "" {
		clear(sections)
		for name := range strings.SplitSeq(*only, ",") {
			switch name = strings.TrimSpace(name); name {
			case "throughput", "big", "patch", "store":
				sections[name] = true
			default:
				return fmt.Errorf("-only: unknown section %q; sections: throughput, big, patch, store", name)
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
	if sections["store"] {
		if err := storeSection(out, *bin, *rounds, *wrkDur, verdict); err != nil {
			return err
		}
	}
	if misses > 0 {
		return fmt.Errorf("%d targets missed", misses)
	}
	fmt.Fprintln(out, "\nall targets met")
	return nil
}
