package admin

import (
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// testServer serves, without a Server, what the admin API's tests ask
// of one with default options: the API (package api, whose requests fill
// the journal) and the admin API's routes, on a router set up as mock's.
type testServer struct {
	*Admin
	api    *api.API
	router *mux.Router
	reqSeq atomic.Int64
}

// newTestServer serves the shipped scenario name, with mock's default
// bounds.
func newTestServer(tb testing.TB, name string) *testServer {
	tb.Helper()
	log := slog.New(slog.DiscardHandler)
	anchor := time.Now().UTC().Truncate(time.Second)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Logger: log, PublicURL: "http://localhost:8080"}), anchor, name)
	if err != nil {
		tb.Fatal(err)
	}
	st := shared.New(shared.Config{Log: log, Now: time.Now, Registry: reg, MaxSessions: 1000, SessionTTL: time.Hour,
		MaxShopBytes: 1 << 30, MaxSeedBytes: 512 << 20, JournalSize: journal.DefaultSize, JournalBytes: 128 << 20, JournalEntries: 50_000})
	s := &testServer{Admin: New(Config{Log: log, Now: time.Now, State: st, Started: time.Now(), Metrics: prometheus.NewRegistry(),
		Snapshots: snapshot.NewKeeper(st, time.Now, "test")})}
	s.router = mux.NewRouter()
	s.router.SkipClean(true)
	s.router.UseEncodedPath()
	for _, rt := range s.Routes() {
		s.router.Handle(rt.Path, rt.Handler).Methods(rt.Methods...)
	}
	s.api = api.New(api.Config{Log: log, Now: time.Now, State: st, Proxies: proxy.NewPool("", proxy.DefaultTimeout, "", log), Fallback: s.router})
	return s
}

// ServeHTTP serves an API request through the API, with a request id,
// and any other through the router; a panic is answered as mock's are.
func (s *testServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer api.Recover(s.Log, w, r)
	if strings.HasPrefix(r.URL.Path, api.Prefix+"/") {
		x := new(api.Exchange)
		x.ID[0] = "rm-" + strconv.FormatInt(s.reqSeq.Add(1), 10)
		s.api.Serve(w, r, x)
		return
	}
	s.router.ServeHTTP(w, r)
}
