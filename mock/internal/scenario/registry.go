package scenario

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// Registry is the scenarios a server serves, by name, and the active
// one, served to sessions that picked none. Scenarios are loaded at the
// start and swapped in again when their files change.
type Registry struct {
	l     *Loader
	log   *slog.Logger
	start string // the scenario the server started with

	mu        sync.Mutex // guards the fields below
	scenarios map[string]*Scenario
	sources   map[string][]byte // the bytes each serving scenario was built from
	seen      map[string][]byte // the bytes at the last reload, to notice changes
	active    string
	onSwap    func()
}

// Info describes one scenario for the admin API.
type Info struct {
	Name         string            `json:"name"`
	Description  string            `json:"description"`
	Descriptions map[string]string `json:"descriptions,omitempty"` // by language (en, ru)
	Extends      string            `json:"extends,omitempty"`
	Active       bool              `json:"active"`
}

// Load loads every scenario l reads, data that ends now anchored to
// anchor, and serves active by default. Any problem fails it; the
// active scenario's data is built before it returns.
func Load(l *Loader, anchor time.Time, active string) (*Registry, error) {
	l.anchor = anchor
	scs, sources, err := l.loadAll()
	l.anchor = time.Time{} // a reload anchors to its own present
	if err != nil {
		return nil, err
	}
	sc, ok := scs[active]
	if !ok {
		return nil, l.notFound(active)
	}
	if _, err := sc.Store(); err != nil {
		return nil, err
	}
	return &Registry{l: l, log: l.log, start: active, scenarios: scs, sources: sources, active: active}, nil
}

// Start is the name of the scenario the server started with.
func (r *Registry) Start() string { return r.start }

// Loader is the loader the registry reads with.
func (r *Registry) Loader() *Loader { return r.l }

// Default returns the scenario served to sessions that picked none.
func (r *Registry) Default() *Scenario {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.scenarios[r.active]
}

// Get returns the scenario name, or with "" the active one, and the
// name it went by.
func (r *Registry) Get(name string) (*Scenario, string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name = cmp.Or(name, r.active)
	sc, ok := r.scenarios[name]
	return sc, name, ok
}

// All returns the scenarios served now, by name.
func (r *Registry) All() map[string]*Scenario {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.scenarios)
}

// List lists the scenarios, marking picked active, or with "" the
// server's active one.
func (r *Registry) List(picked string) []Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	active := cmp.Or(picked, r.active)
	out := make([]Info, 0, len(r.scenarios))
	for _, name := range slices.Sorted(maps.Keys(r.scenarios)) {
		sc := r.scenarios[name]
		out = append(out, Info{Name: name, Description: sc.Description, Descriptions: sc.Descriptions, Extends: sc.Extends, Active: name == active})
	}
	return out
}

// Pick returns the scenario name, or an error naming those there are;
// with setActive, it becomes the active one.
func (r *Registry) Pick(name string, setActive bool) (*Scenario, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	sc, ok := r.scenarios[name]
	if !ok {
		have := strings.Join(slices.Sorted(maps.Keys(r.scenarios)), ", ")
		return nil, wire.InvalidBody("name", "no scenario %q; have: %s", name, have)
	}
	if setActive {
		r.active = name
	}
	return sc, nil
}

// MaxLoggedProblems is how many of a scenario's problems a reload logs;
// the rest are counted.
const MaxLoggedProblems = 10

// Reload reads the scenarios folder again and swaps in every file that
// changed. With settled, a file is swapped in only once it read the same
// in two calls in a row, so a file still being written is never served
// half-way. A broken file is logged and its previous version keeps
// serving, as does the active scenario if its file is removed.
func (r *Registry) Reload(settled bool) error {
	p, err := r.l.newPass()
	if err != nil {
		return err
	}
	read, polled := r.l.poll(p)
	listed := p.names
	inFolder := func(n string) bool { return slices.Contains(listed, n) || p.skipped[n] != nil }
	use, changed := r.changed(p, read, polled, settled)
	if !changed {
		return nil
	}
	var errs []error
	next := make(map[string]*Scenario)
	sources := make(map[string][]byte)
	for _, n := range p.names {
		sc, err := p.load(n, nil)
		if err != nil {
			errs = append(errs, err)
			r.log.Error("scenario reload failed; the previous version keeps serving", "scenario", n, "err", yamlfile.Cap(err, MaxLoggedProblems))
			continue
		}
		next[n], sources[n] = sc, use[n]
	}
	r.swap(next, sources, inFolder)
	return errors.Join(errs...)
}

// changed picks the bytes a reload builds from, readies p to build
// them, and reports whether they differ from the last reload's. With
// settled, a file that changed since the last poll stays as it serves.
func (r *Registry) changed(p *pass, read, polled map[string][]byte, settled bool) (map[string][]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.seen
	if last == nil {
		last = r.sources
	}
	use := read
	if settled {
		use = make(map[string][]byte, len(read))
		var ready []string
		for _, n := range p.names {
			old, ok := polled[n]
			src, serving := r.sources[n]
			switch {
			case ok && bytes.Equal(old, read[n]):
				use[n] = read[n] // the same in two polls in a row
			case serving:
				// Still changing: build the version serving now.
				use[n] = src
				p.files[n] = fileRead{data: src}
			default:
				// New and still changing: as if not there yet.
				p.files[n] = fileRead{err: fs.ErrNotExist}
				continue
			}
			ready = append(ready, n)
		}
		p.names = ready
	}
	changed := !maps.EqualFunc(use, last, bytes.Equal)
	r.seen = use
	return use, changed
}

// swap serves next, built from sources. A scenario that did not build
// keeps its version serving while inFolder has it; an unchanged one
// keeps the same version, so its counters go on.
func (r *Registry) swap(next map[string]*Scenario, sources map[string][]byte, inFolder func(string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for n, old := range r.scenarios {
		if _, ok := next[n]; !ok && (inFolder(n) || n == r.active) {
			next[n] = old // broken, skipped, or removed while active: keep it
			sources[n] = r.sources[n]
		}
	}
	for n, sc := range next {
		if !bytes.Equal(sources[n], r.sources[n]) {
			r.log.Info("scenario reloaded", "scenario", n)
		}
		if old, ok := r.scenarios[n]; ok && old.fingerprint == sc.fingerprint {
			next[n] = old
		}
	}
	r.scenarios, r.sources = next, sources
	r.l.cache.retain(next)
	if r.onSwap != nil {
		r.onSwap()
	}
}

// OnSwap sets fn to be called after each reload that swapped scenarios
// in, with the registry's lock held. Set it before serving.
func (r *Registry) OnSwap(fn func()) {
	r.mu.Lock()
	r.onSwap = fn
	r.mu.Unlock()
}

// Watch reloads settled (see Reload) every interval until ctx ends.
func (r *Registry) Watch(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.Reload(true) // logs its problems
		}
	}
}
