package media

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/wire"
)

// DefaultCacheBytes bounds the drawn images kept in memory when no
// budget is given.
const DefaultCacheBytes = 32 << 20

// How media files are answered.
const (
	contentJPEG = "image/jpeg"
	contentHLS  = "application/vnd.apple.mpegurl"
	contentTS   = "video/mp2t"
	caching     = "public, max-age=31536000, immutable"
)

// Store serves the media files; it draws images and keeps the drawn ones
// within a byte budget, least recently used out first. Playlists and
// segments are made per request: they cost less than a lookup would save.
type Store struct {
	renders  chan struct{} // bounds the images drawn at once, each a few MB of pixels
	rendered atomic.Int64  // images drawn, for the metrics and tests

	cache *budget.Budget // what the kept images take, against its most (<= 0 keeps nothing)

	mu    sync.Mutex // guards the fields below, and makes each change of cache whole
	lru   *list.List // of *file, most recently used first
	files map[string]*list.Element
}

// file is a media file with its entity tag.
type file struct {
	path string
	body []byte
	etag string
}

// NewStore returns a Store that keeps at most budget bytes of drawn
// images; a budget of 0 or less keeps none.
func NewStore(maxBytes int64) *Store {
	return &Store{renders: make(chan struct{}, runtime.GOMAXPROCS(0)),
		cache: budget.New("replymock_media_cache_bytes", "Rendered media images kept in memory, within Options.MediaCacheBytes.", maxBytes),
		lru:   list.New(), files: make(map[string]*list.Element)}
}

// Register adds the cache's count of images drawn to reg (what it keeps
// is its Budget's gauge).
func (m *Store) Register(reg *prometheus.Registry) {
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "replymock_media_renders_total",
			Help: "Media images drawn (each cached image is drawn once until it is evicted)."},
			func() float64 { return float64(m.rendered.Load()) }))
}

// Budget is the cache's byte budget, for the server's set of them.
func (m *Store) Budget() *budget.Budget { return m.cache }

func (m *Store) bytes() int64 { return m.cache.Used() }

// cost is what a file counts against the budget: its bytes, its path
// and a fixed overhead for the entry.
func (f *file) cost() int64 { return int64(len(f.body)+len(f.path)+len(f.etag)) + 128 }

func (m *Store) get(path string) *file {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.files[path]; ok {
		m.lru.MoveToFront(e)
		return e.Value.(*file)
	}
	return nil
}

// put keeps f, evicting the least recently used files to stay within
// the budget; a file bigger than the whole budget is not kept.
func (m *Store) put(f *file) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[f.path]; ok || f.cost() > m.cache.Max() {
		return
	}
	m.files[f.path] = m.lru.PushFront(f)
	m.cache.Charge(f.cost())
	for m.cache.Over() > 0 {
		old := m.lru.Remove(m.lru.Back()).(*file)
		delete(m.files, old.path)
		m.cache.Release(old.cost())
	}
}

func newFile(path string, body []byte) *file {
	sum := sha256.Sum256(body)
	return &file{path: path, body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// image returns the JPEG of a photo or preview, from the cache or drawn
// now; ok is false when the client left while waiting for its turn.
func (m *Store) image(r *http.Request, path string, it item) (*file, bool) {
	if f := m.get(path); f != nil {
		return f, true
	}
	select {
	case m.renders <- struct{}{}:
	case <-r.Context().Done():
		return nil, false
	}
	body := render(it)
	<-m.renders
	m.rendered.Add(1)
	f := newFile(path, body)
	m.put(f)
	return f, true
}

// Serve answers GET and HEAD of a path under Prefix: no admin token, no
// session, no faults; a path that names no file is a 404 in the
// envelope, logged to log as wire.WriteError does.
func (m *Store) Serve(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), Prefix)
	it, ok := parsePath(rest)
	if !ok {
		wire.WriteError(w, r, log, &wire.APIError{Status: http.StatusNotFound, Code: wire.CodeNotFound,
			Message: "no such media file: " + wire.Clip(r.URL.Path) + "; media paths are photos/KEY/N/fs.jpg or ms.jpg, " +
				"videos/KEY/preview.jpg, videos/KEY/Ds/index.m3u8 and its segments videos/KEY/Ds/I.ts"})
		return
	}
	var f *file
	ct := contentJPEG
	switch it.kind {
	case kindPhoto, kindPreview:
		if f, ok = m.image(r, rest, it); !ok {
			return
		}
	case kindPlaylist:
		f, ct = newFile(rest, hlsPlaylist(it.secs)), contentHLS
	case kindSegment:
		f, ct = newFile(rest, hlsSegment(it.secs, it.seg)), contentTS
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", caching)
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	// Pages that isolate themselves (Cross-Origin-Embedder-Policy) may
	// still show these.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	if etagMatches(r.Header.Get("If-None-Match"), f.etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(f.body)
	}
}

// etagMatches reports whether an If-None-Match header names etag (weak
// comparison, as RFC 9110 asks for If-None-Match) or is "*".
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}
