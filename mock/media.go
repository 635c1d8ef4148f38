package mock

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// The review records' media (photos, video previews, HLS playlists and
// their segments) are served by the mock itself, under MediaPrefix, so
// that a UI shows them offline. They hold no data: each file is drawn
// from its path alone, the same bytes on every run and machine. Paths:
//
//	photos/KEY/N/fs.jpg          a review's photo N, 450×600
//	photos/KEY/N/ms.jpg          its miniature, 90×120
//	videos/KEY/preview.jpg       a video's preview image, 640×360
//	videos/KEY/Ds/index.m3u8     an HLS playlist of D seconds
//	videos/KEY/Ds/I.ts           its segment I (10 seconds each, the last shorter)
//
// KEY is 1 to 64 letters, digits, '_' and '-'; N is 1 to 99, D 1 to
// 3600, I from 0: plain decimals without leading zeros, so each file has
// one path.
const MediaPrefix = AdminPrefix + "/media/"

// DefaultPublicURL is the base of media URLs when Options.PublicURL is
// empty: the address replymock listens on by default.
const DefaultPublicURL = "http://127.0.0.1:8080"

// DefaultMediaCacheBytes bounds the rendered images kept in memory when
// Options.MediaCacheBytes is 0.
const DefaultMediaCacheBytes = 32 << 20

// maxPublicURL bounds a public URL's length: every media URL of every
// record carries it.
const maxPublicURL = 256

// ParsePublicURL checks the base of media URLs, an absolute http or https
// URL (a path is allowed, for a server behind a proxy that strips it),
// and returns it without a trailing slash.
func ParsePublicURL(raw string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("must be an absolute http:// or https:// URL such as http://localhost:18080 (%s), got %q", why, clip(raw))
	}
	if len(raw) > maxPublicURL {
		return "", fmt.Errorf("must be at most %d bytes, got %d", maxPublicURL, len(raw))
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return "", bad("it does not parse")
	case u.Scheme != "http" && u.Scheme != "https":
		return "", bad("the scheme is not http or https")
	case u.Host == "" || u.Hostname() == "":
		return "", bad("it names no host")
	case u.User != nil:
		return "", bad("it has a user name or password")
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ContainsAny(raw, "?#"):
		return "", bad("it has a query or a fragment")
	case u.Port() == "" && strings.HasSuffix(u.Host, ":"):
		return "", bad("the port is empty")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "", bad("the port is not 1 to 65535")
		}
	}
	return u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

// mediaKind is what a media path names.
type mediaKind int

const (
	mediaPhoto mediaKind = iota + 1
	mediaPreview
	mediaPlaylist
	mediaSegment
)

// mediaItem is a parsed media path.
type mediaItem struct {
	kind mediaKind
	key  string
	n    int    // photo number
	size string // photo size: fs or ms
	secs int    // a video's duration in seconds
	seg  int    // a segment's index
}

// Bounds of the names in a media path.
const (
	maxMediaKey  = 64
	maxPhotoN    = 99
	maxVideoSecs = 3600
	segmentSecs  = 10
	maxMediaPath = len("videos/") + maxMediaKey + len("/3600s/index.m3u8")
)

// How media files are answered.
const (
	contentJPEG  = "image/jpeg"
	contentHLS   = "application/vnd.apple.mpegurl"
	contentTS    = "video/mp2t"
	mediaCaching = "public, max-age=31536000, immutable"
)

// parseMediaPath reads a path below MediaPrefix, as sent (escaped).
func parseMediaPath(rest string) (mediaItem, bool) {
	if len(rest) > maxMediaPath {
		return mediaItem{}, false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 4 && parts[0] == "photos":
		n, ok := mediaNumber(parts[2], 1, maxPhotoN)
		size, _ := strings.CutSuffix(parts[3], ".jpg")
		if !ok || !validMediaKey(parts[1]) || (parts[3] != "fs.jpg" && parts[3] != "ms.jpg") {
			return mediaItem{}, false
		}
		return mediaItem{kind: mediaPhoto, key: parts[1], n: n, size: size}, true
	case len(parts) == 3 && parts[0] == "videos" && parts[2] == "preview.jpg":
		if !validMediaKey(parts[1]) {
			return mediaItem{}, false
		}
		return mediaItem{kind: mediaPreview, key: parts[1]}, true
	case len(parts) == 4 && parts[0] == "videos":
		d, ok := strings.CutSuffix(parts[2], "s")
		secs, ok2 := mediaNumber(d, 1, maxVideoSecs)
		if !ok || !ok2 || !validMediaKey(parts[1]) {
			return mediaItem{}, false
		}
		it := mediaItem{kind: mediaPlaylist, key: parts[1], secs: secs}
		if parts[3] == "index.m3u8" {
			return it, true
		}
		i, ok := strings.CutSuffix(parts[3], ".ts")
		seg, ok2 := mediaNumber(i, 0, segmentCount(secs)-1)
		if !ok || !ok2 {
			return mediaItem{}, false
		}
		it.kind, it.seg = mediaSegment, seg
		return it, true
	}
	return mediaItem{}, false
}

// mediaNumber reads a plain decimal from lo to hi without leading zeros.
func mediaNumber(s string, lo, hi int) (int, bool) {
	if s == "" || len(s) > 4 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, n >= lo && n <= hi
}

func validMediaKey(k string) bool {
	if k == "" || len(k) > maxMediaKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// segmentCount is how many segments a video of secs seconds has.
func segmentCount(secs int) int { return (secs + segmentSecs - 1) / segmentSecs }

// mediaURLs makes the absolute URLs of media files under a public URL.
type mediaURLs struct{ base string }

func (m mediaURLs) photo(key string, n int, size string) string {
	return m.base + MediaPrefix + "photos/" + key + "/" + strconv.Itoa(n) + "/" + size + ".jpg"
}

func (m mediaURLs) preview(key string) string {
	return m.base + MediaPrefix + "videos/" + key + "/preview.jpg"
}

func (m mediaURLs) playlist(key string, secs int) string {
	return m.base + MediaPrefix + "videos/" + key + "/" + strconv.Itoa(secs) + "s/index.m3u8"
}

// Photo is one item of a record's photos: the upstream's photoLinks item.
type Photo struct {
	FullSize string `json:"fullSize"`
	MiniSize string `json:"miniSize"`
}

// Video is a record's video: the upstream's video object.
type Video struct {
	PreviewImage string `json:"previewImage"`
	Link         string `json:"link"`
	DurationSec  int    `json:"durationSec"`
}

// photosJSON is the JSON text of a list of photos; none gives "[]".
func photosJSON(photos []Photo) string {
	b := []byte{'['}
	for i, p := range photos {
		if i > 0 {
			b = append(b, ',')
		}
		b = reviews.AppendJSONString(append(b, `{"fullSize":`...), p.FullSize)
		b = reviews.AppendJSONString(append(b, `,"miniSize":`...), p.MiniSize)
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// videoJSON is the JSON of a video object.
func videoJSON(v Video) []byte {
	b := reviews.AppendJSONString([]byte(`{"previewImage":`), v.PreviewImage)
	b = reviews.AppendJSONString(append(b, `,"link":`...), v.Link)
	b = append(b, `,"durationSec":`...)
	b = strconv.AppendInt(b, int64(v.DurationSec), 10)
	return append(b, '}')
}

// mediaStore renders media files and keeps the rendered images within a
// byte budget, least recently used out first. Playlists and segments
// are made per request: they cost less than a lookup would save.
type mediaStore struct {
	renders  chan struct{} // bounds the images drawn at once, each a few MB of pixels
	rendered atomic.Int64  // images drawn, for the metrics and tests

	mu    sync.Mutex // guards the fields below
	max   int64      // the budget; <= 0 keeps nothing
	used  int64
	lru   *list.List // of *mediaFile, most recently used first
	files map[string]*list.Element
}

// mediaFile is a rendered file with its entity tag.
type mediaFile struct {
	path string
	body []byte
	etag string
}

func newMediaStore(budget int64) *mediaStore {
	return &mediaStore{renders: make(chan struct{}, runtime.GOMAXPROCS(0)), max: budget,
		lru: list.New(), files: make(map[string]*list.Element)}
}

func (m *mediaStore) register(reg *prometheus.Registry) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "replymock_media_cache_bytes",
			Help: "Rendered media images kept in memory, within Options.MediaCacheBytes."},
			func() float64 { return float64(m.bytes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "replymock_media_renders_total",
			Help: "Media images drawn (each cached image is drawn once until it is evicted)."},
			func() float64 { return float64(m.rendered.Load()) }))
}

func (m *mediaStore) bytes() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// cost is what a file counts against the budget: its bytes, its path
// and a fixed overhead for the entry.
func (f *mediaFile) cost() int64 { return int64(len(f.body)+len(f.path)+len(f.etag)) + 128 }

func (m *mediaStore) get(path string) *mediaFile {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.files[path]; ok {
		m.lru.MoveToFront(e)
		return e.Value.(*mediaFile)
	}
	return nil
}

// put keeps f, evicting the least recently used files to stay within
// the budget; a file bigger than the whole budget is not kept.
func (m *mediaStore) put(f *mediaFile) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[f.path]; ok || f.cost() > m.max {
		return
	}
	m.files[f.path] = m.lru.PushFront(f)
	m.used += f.cost()
	for m.used > m.max {
		old := m.lru.Remove(m.lru.Back()).(*mediaFile)
		delete(m.files, old.path)
		m.used -= old.cost()
	}
}

func newMediaFile(path string, body []byte) *mediaFile {
	sum := sha256.Sum256(body)
	return &mediaFile{path: path, body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// image returns the JPEG of a photo or preview, from the cache or drawn
// now; ok is false when the client left while waiting for its turn.
func (m *mediaStore) image(r *http.Request, path string, it mediaItem) (*mediaFile, bool) {
	if f := m.get(path); f != nil {
		return f, true
	}
	select {
	case m.renders <- struct{}{}:
	case <-r.Context().Done():
		return nil, false
	}
	body := renderMedia(it)
	<-m.renders
	m.rendered.Add(1)
	f := newMediaFile(path, body)
	m.put(f)
	return f, true
}

// handleMedia serves GET and HEAD /__mock/media/...: no admin token, no
// session, no faults; a path that names no file is a 404 in the envelope.
func (s *Server) handleMedia(w http.ResponseWriter, r *http.Request) {
	esc := r.URL.EscapedPath()
	rest, _ := strings.CutPrefix(esc, MediaPrefix)
	it, ok := parseMediaPath(rest)
	if !ok {
		s.writeError(w, r, &APIError{Status: http.StatusNotFound, Code: CodeNotFound,
			Message: "no such media file: " + clip(r.URL.Path) + "; media paths are photos/KEY/N/fs.jpg or ms.jpg, " +
				"videos/KEY/preview.jpg, videos/KEY/Ds/index.m3u8 and its segments videos/KEY/Ds/I.ts"})
		return
	}
	var f *mediaFile
	ct := contentJPEG
	switch it.kind {
	case mediaPhoto, mediaPreview:
		if f, ok = s.media.image(r, rest, it); !ok {
			return
		}
	case mediaPlaylist:
		f, ct = newMediaFile(rest, hlsPlaylist(it.secs)), contentHLS
	case mediaSegment:
		f, ct = newMediaFile(rest, hlsSegment(it.secs, it.seg)), contentTS
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", mediaCaching)
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

// isMediaPath reports whether path is under MediaPrefix.
func isMediaPath(path string) bool { return strings.HasPrefix(path, MediaPrefix) }
