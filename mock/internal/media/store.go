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

	mu    sync.Mutex // guards the fields below
	max   int64      // the budget; <= 0 keeps nothing
	used  int64
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
func NewStore(budget int64) *Store {
	return &Store{renders: make(chan struct{}, runtime.GOMAXPROCS(0)), max: budget,
		lru: list.New(), files: make(map[string]*list.Element)}
}

// Register adds the cache's metrics to reg: the bytes it holds and the
// images drawn.
func (m *Store) Register(reg *prometheus.Registry) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "replymock_media_cache_bytes",
			Help: "Rendered media images kept in memory, within Options.MediaCacheBytes."},
			func() float64 { return float64(m.bytes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "replymock_media_renders_total",
			Help: "Media images drawn (each cached image is drawn once until it is evicted)."},
			func() float64 { return float64(m.rendered.Load()) }))
}

// Budget is the most the cache may hold, in bytes (0 when it keeps none).
func (m *Store) Budget() int64 { return max(m.max, 0) }

func (m *Store) bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

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
	if _, ok := m.files[f.path]; ok || f.cost() > m.max {
		return
	}
	m.files[f.path] = m.lru.PushFront(f)
	m.used += f.cost()
	for m.used > m.max {
		old := m.lru.Remove(m.lru.Back()).(*file)
		delete(m.files, old.path)
		m.used -= old.cost()
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
