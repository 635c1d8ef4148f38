package api

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/shared"
)

// testAPI is an API serving the shipped default scenario, as a server
// with default options would, with a fallback that answers 404.
type testAPI struct {
	*API
	t *testing.T
}

func newTestAPI(t *testing.T) testAPI {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	anchor := time.Now().UTC().Truncate(time.Second)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Logger: log, PublicURL: "http://localhost:8080"}), anchor, "default")
	if err != nil {
		t.Fatal(err)
	}
	st := shared.New(shared.Config{Log: log, Now: time.Now, Registry: reg, MaxSessions: 10, SessionTTL: time.Hour,
		MaxShopBytes: 1 << 30, MaxSeedBytes: 1 << 30, JournalSize: 100, JournalBytes: 1 << 26, JournalEntries: 1000})
	a := New(Config{Log: log, Now: time.Now, State: st, Proxies: proxy.NewPool("", proxy.DefaultTimeout, "", log), Fallback: http.NotFoundHandler()})
	return testAPI{a, t}
}

// serve answers a GET of target, as the server does, with a request id.
func (a testAPI) serve(target string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	x := new(Exchange)
	x.ID[0] = "rm-test"
	a.Serve(rec, httptest.NewRequest(http.MethodGet, target, nil), x)
	return rec
}

// entries are the journal's entries of every session, oldest first.
func (a testAPI) entries() []journal.Entry {
	p, err := a.State.Journals().Compile(journal.Filter{})
	if err != nil {
		a.t.Fatal(err)
	}
	return a.State.Journals().Entries(p, 0)
}
