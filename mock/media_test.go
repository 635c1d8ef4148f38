package mock_test

import (
	"bytes"
	"encoding/json"
	"image"
	_ "image/jpeg" // image.Decode reads the photos
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
)

const (
	photoPath    = "/__mock/media/photos/Ij2V5jHW3HW1YCswao90/1/fs.jpg"
	miniPath     = "/__mock/media/photos/Ij2V5jHW3HW1YCswao90/1/ms.jpg"
	previewPath  = "/__mock/media/videos/06e5accc-172b-4144-9273-d57f4c39ddd2/preview.jpg"
	playlistPath = "/__mock/media/videos/06e5accc-172b-4144-9273-d57f4c39ddd2/53s/index.m3u8"
	segmentPath  = "/__mock/media/videos/06e5accc-172b-4144-9273-d57f4c39ddd2/53s/5.ts"
)

// Paths that name no media file are 404s in the envelope, whatever they
// try; the names around them are served.
func TestMediaBadPaths(t *testing.T) {
	h := newDefault(t)
	key64 := strings.Repeat("k", 64)
	for _, target := range []string{
		"/__mock/media/photos/" + key64 + "/99/fs.jpg",
		"/__mock/media/photos/a_b-C9/1/ms.jpg",
		"/__mock/media/videos/" + key64 + "/3600s/359.ts",
		"/__mock/media/videos/k/1s/index.m3u8",
		"/__mock/media/videos/k/1s/0.ts",
		"/__mock/media/videos/k/10s/0.ts",
		"/__mock/media/videos/k/11s/1.ts",
	} {
		if r := get(t, h, target); r.status != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", target, r.status)
		}
	}
	for _, target := range []string{
		"/__mock/media",
		"/__mock/media/",
		"/__mock/media/photos",
		"/__mock/media/photos/",
		"/__mock/media/photos/k/1",
		"/__mock/media/photos/k/1/",
		"/__mock/media/photos/k/1/fs.jpg/",
		"/__mock/media/photos/k/1/fs.jpg/x",
		"/__mock/media/photos/k/1/xs.jpg",
		"/__mock/media/photos/k/1/fs.png",
		"/__mock/media/photos/k/1/FS.JPG",
		"/__mock/media/photos/k/1/fs.jpg.",
		"/__mock/media/photos/k/0/fs.jpg",
		"/__mock/media/photos/k/01/fs.jpg",
		"/__mock/media/photos/k/100/fs.jpg",
		"/__mock/media/photos/k/-1/fs.jpg",
		"/__mock/media/photos/k/1e1/fs.jpg",
		"/__mock/media/photos/k//1/fs.jpg",
		"/__mock/media/photos//1/fs.jpg",
		"/__mock/media/photos/" + key64 + "k/1/fs.jpg",
		"/__mock/media/photos/" + strings.Repeat("k", 10000) + "/1/fs.jpg",
		"/__mock/media/photos/k.k/1/fs.jpg",
		"/__mock/media/photos/%D0%BA/1/fs.jpg",
		"/__mock/media/photos/%6B/1/fs.jpg",
		"/__mock/media/photos/k%00/1/fs.jpg",
		"/__mock/media/photos/../../health",
		"/__mock/media/photos/..%2F..%2Fhealth/1/fs.jpg",
		"/__mock/media/photos/%2e%2e/1/fs.jpg",
		"/__mock/media/photos/../1/fs.jpg",
		"/__mock/media/../openapi.yaml",
		"/__mock/media/%2e%2e/openapi.yaml",
		"/__mock/media/./photos/k/1/fs.jpg",
		"/__mock/media//photos/k/1/fs.jpg",
		"/__mock/media/photos/k/1/fs.jpg%2F..%2F..",
		"/__mock/media/videos/k",
		"/__mock/media/videos/k/",
		"/__mock/media/videos/k/preview.png",
		"/__mock/media/videos/k/0s/index.m3u8",
		"/__mock/media/videos/k/3601s/index.m3u8",
		"/__mock/media/videos/k/021s/index.m3u8",
		"/__mock/media/videos/k/21/index.m3u8",
		"/__mock/media/videos/k/s/index.m3u8",
		"/__mock/media/videos/k/21s/index.m3u",
		"/__mock/media/videos/k/21s/3.ts",
		"/__mock/media/videos/k/21s/00.ts",
		"/__mock/media/videos/k/21s/-1.ts",
		"/__mock/media/videos/k/21s/.ts",
		"/__mock/media/videos/k/10s/1.ts",
		"/__mock/media/videos/k/21s/preview.jpg",
		"/__mock/media/videos/k/21s/index.m3u8/0.ts",
		"/__mock/media/audio/k/1/fs.jpg",
		"/__mock/MEDIA/photos/k/1/fs.jpg",
	} {
		r := get(t, h, target)
		checkError(t, "GET "+target, r, http.StatusNotFound, mock.CodeNotFound, "")
		if len(r.body) > 2000 {
			t.Errorf("GET %s: a 404 of %d bytes", target, len(r.body))
		}
	}
	// Only GET and HEAD.
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE"} {
		r := do(t, h, method, photoPath, "")
		checkError(t, method+" "+photoPath, r, http.StatusMethodNotAllowed, mock.CodeMethodNotAllowed, "")
		if allow := r.header.Get("Allow"); allow != "GET, HEAD" {
			t.Errorf("%s %s: Allow %q", method, photoPath, allow)
		}
	}
}

// A media file: its type, caching for good, a validator, CORS for any
// page the API serves, HEAD, and no token or session needed.
func TestMediaAnswers(t *testing.T) {
	h := newServer(t, mock.Options{AdminToken: "s3cret", CORSOrigins: []string{"https://app.test", "http://*.local:*"}})
	for _, tc := range []struct{ path, contentType, start string }{
		{photoPath, "image/jpeg", "\xff\xd8"},
		{miniPath, "image/jpeg", "\xff\xd8"},
		{previewPath, "image/jpeg", "\xff\xd8"},
		{playlistPath, "application/vnd.apple.mpegurl", "#EXTM3U\n"},
		{segmentPath, "video/mp2t", "\x47"},
	} {
		r := get(t, h, tc.path, "Origin", "https://app.test")
		if r.status != http.StatusOK || r.header.Get("Content-Type") != tc.contentType || !bytes.HasPrefix(r.body, []byte(tc.start)) {
			t.Errorf("GET %s: %d %q %q", tc.path, r.status, r.header.Get("Content-Type"), truncate(r.body, 20))
			continue
		}
		etag := r.header.Get("ETag")
		for k, want := range map[string]string{
			"Cache-Control":                "public, max-age=31536000, immutable",
			"Access-Control-Allow-Origin":  "https://app.test",
			"Cross-Origin-Resource-Policy": "cross-origin",
			"X-Content-Type-Options":       "nosniff",
		} {
			if got := r.header.Get(k); got != want {
				t.Errorf("GET %s: %s = %q, want %q", tc.path, k, got, want)
			}
		}
		if len(etag) < 10 || etag[0] != '"' || r.header.Get("Content-Length") != strconv.Itoa(len(r.body)) {
			t.Errorf("GET %s: ETag %q, Content-Length %q of %d bytes", tc.path, etag, r.header.Get("Content-Length"), len(r.body))
		}
		for _, inm := range []string{etag, `"x", ` + etag, "W/" + etag, "*"} {
			if nm := get(t, h, tc.path, "If-None-Match", inm); nm.status != http.StatusNotModified || len(nm.body) != 0 || nm.header.Get("ETag") != etag {
				t.Errorf("GET %s If-None-Match %s: %d, %d bytes", tc.path, inm, nm.status, len(nm.body))
			}
		}
		if other := get(t, h, tc.path, "If-None-Match", `"other"`); other.status != http.StatusOK {
			t.Errorf("GET %s with another ETag: %d", tc.path, other.status)
		}
		head := do(t, h, http.MethodHead, tc.path, "")
		if head.status != http.StatusOK || len(head.body) != 0 || head.header.Get("Content-Length") != strconv.Itoa(len(r.body)) || head.header.Get("ETag") != etag {
			t.Errorf("HEAD %s: %d, %d bytes, Content-Length %q", tc.path, head.status, len(head.body), head.header.Get("Content-Length"))
		}
	}
	// An origin outside --cors-origins gets the file without CORS headers
	// (the browser hides it); one matching a pattern may read it, though
	// it may not call the admin API.
	if r := get(t, h, photoPath, "Origin", "https://evil.test"); r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("an origin outside the list: %d, %q", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
	if r := get(t, h, photoPath, "Origin", "http://ui.local:3000"); r.header.Get("Access-Control-Allow-Origin") != "http://ui.local:3000" {
		t.Errorf("an origin matching a pattern: %q", r.header.Get("Access-Control-Allow-Origin"))
	}
	pre := do(t, h, http.MethodOptions, photoPath, "", "Origin", "https://app.test", "Access-Control-Request-Method", "GET")
	if pre.status != http.StatusNoContent || pre.header.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
		t.Errorf("preflight: %d %q", pre.status, pre.header.Get("Access-Control-Allow-Methods"))
	}
	// The rest of the admin API still wants its token.
	if r := get(t, h, "/__mock/scenarios"); r.status != http.StatusUnauthorized {
		t.Errorf("GET /__mock/scenarios without the token: %d", r.status)
	}
}

// Media follow the API's rule for browsers, not the admin API's: a local
// dev origin reads them; a page elsewhere gets them without CORS headers
// (an <img> shows them, a script may not read them), never a 403.
func TestMediaCORSDefaultOrigins(t *testing.T) {
	h := newDefault(t)
	if r := get(t, h, miniPath, "Origin", "http://localhost:5173"); r.header.Get("Access-Control-Allow-Origin") != "http://localhost:5173" {
		t.Errorf("media for a local dev origin: Access-Control-Allow-Origin %q", r.header.Get("Access-Control-Allow-Origin"))
	}
	r := get(t, h, miniPath, "Origin", "https://anywhere.test")
	if r.status != http.StatusOK || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("media for https://anywhere.test: %d, Access-Control-Allow-Origin %q; want the file without CORS headers", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
	if r := get(t, h, "/__mock/scenarios", "Origin", "https://anywhere.test"); r.status != http.StatusForbidden || r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("the admin API answered https://anywhere.test: %d %q", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
}

// With --admin-addr, the API listener serves the media (the records'
// URLs point there) but not the admin API.
func TestAPIHandlerServesMedia(t *testing.T) {
	h := newServer(t, mock.Options{AdminToken: "s3cret"}).APIHandler()
	for target, want := range map[string]int{
		photoPath: 200, playlistPath: 200, segmentPath: 200, "/__mock/media/photos/k/0/fs.jpg": 404,
		"/__mock/scenarios": 404, "/__mock/media/../scenarios": 404,
	} {
		if r := getUnchecked(h, target); r.status != want {
			t.Errorf("GET %s: %d, want %d", target, r.status, want)
		}
	}
}

// A media URL gives the same bytes every time and on every server; the
// photos of a review differ; a photo and its miniature are JPEGs of their
// sizes.
func TestMediaDeterministic(t *testing.T) {
	a, b := newServer(t, mock.Options{}), newServer(t, mock.Options{PublicURL: "https://elsewhere.test"})
	bodies := map[string]string{}
	for _, path := range []string{photoPath, miniPath, previewPath, playlistPath, segmentPath,
		"/__mock/media/photos/Ij2V5jHW3HW1YCswao90/2/fs.jpg"} {
		first := get(t, a, path)
		again := get(t, a, path)
		other := get(t, b, path)
		if !bytes.Equal(first.body, again.body) || !bytes.Equal(first.body, other.body) || first.header.Get("ETag") != other.header.Get("ETag") {
			t.Errorf("GET %s: the bytes differ between requests or servers", path)
		}
		bodies[string(first.body)] = path
	}
	if len(bodies) != 6 {
		t.Errorf("%d different files for 6 paths", len(bodies))
	}
	full, _, err1 := image.DecodeConfig(bytes.NewReader(get(t, a, photoPath).body))
	mini, _, err2 := image.DecodeConfig(bytes.NewReader(get(t, a, miniPath).body))
	if err1 != nil || err2 != nil || full.Width != 450 || full.Height != 600 || mini.Width != 90 || mini.Height != 120 {
		t.Errorf("photo %dx%d, miniature %dx%d (%v, %v); want 450x600 and 90x120", full.Width, full.Height, mini.Width, mini.Height, err1, err2)
	}
}

// The public URL is the base of every media URL in the records: checked,
// without its trailing slash, a path kept; bad ones fail New.
func TestPublicURL(t *testing.T) {
	for _, tc := range []struct{ in, base string }{
		{"", "http://127.0.0.1:8080"},
		{"http://localhost:18080", "http://localhost:18080"},
		{"http://localhost:18080/", "http://localhost:18080"},
		{"https://demo.example.test/mock/", "https://demo.example.test/mock"},
		{"HTTP://[::1]:9000", "http://[::1]:9000"},
	} {
		h := newServer(t, mock.Options{PublicURL: tc.in})
		d := list(t, h, "nm_id=555000111&limit=100")
		var found bool
		for _, f := range d.Feedbacks {
			if f.FeedbackID == "EdgeLongText00000001" {
				want := `{"fullSize":"` + tc.base + `/__mock/media/photos/EdgeLongText00000001/1/fs.jpg"`
				found = strings.HasPrefix(f.Photos, "["+want)
				if !found {
					t.Errorf("public URL %q: photos %s, want them to start with %s", tc.in, f.Photos, want)
				}
			}
		}
		if !found {
			t.Errorf("public URL %q: the edge case with photos is not there", tc.in)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"localhost:8080", "scheme is not http or https"},
		{"ftp://localhost", "scheme is not http or https"},
		{"//localhost:8080", "scheme is not http or https"},
		{"http://", "names no host"},
		{"http://:8080", "names no host"},
		{"http://user:pw@localhost", "user name or password"},
		{"http://localhost/?a=1", "query or a fragment"},
		{"http://localhost/#top", "query or a fragment"},
		{"http://localhost:99999", "not 1 to 65535"},
		{"http://localhost:0", "not 1 to 65535"},
		{"http://localhost:", "port is empty"},
		{"http://local host", "does not parse"},
		{"http://localhost/\x7f", "does not parse"},
		{"http://localhost/" + strings.Repeat("a", 300), "at most 256 bytes"},
	} {
		_, err := mock.New(mock.Options{PublicURL: tc.in})
		if err == nil || !strings.Contains(err.Error(), "public URL") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PublicURL %q: %v; want an error saying %q", tc.in, err, tc.want)
		}
		if _, err := mock.ParsePublicURL(tc.in); err == nil {
			t.Errorf("ParsePublicURL(%q) accepted it", tc.in)
		}
	}
}

// A reviews fixture writes photos and videos in the upstream's shapes; a
// media path becomes a URL under the public URL, another URL stays.
func TestFixtureMedia(t *testing.T) {
	fixture := `kind: reviews
reviews:
  - feedback_id: F1
    nm_id: 1
    product_name: Плед
    product_valuation: 5
    created_date: "2026-01-01 10:00:00"
    valuation_tags: [цена, по размеру]
    photos:
      - {fullSize: /__mock/media/photos/F1/1/fs.jpg, miniSize: /__mock/media/photos/F1/1/ms.jpg}
      - fullSize: https://cdn.example.test/f1/fs.webp
        miniSize: https://cdn.example.test/f1/ms.webp
    video:
      previewImage: /__mock/media/videos/v1/preview.jpg
      link: /__mock/media/videos/v1/21s/index.m3u8
      durationSec: 21
  - feedback_id: F2
    nm_id: 1
    product_name: Плед
    product_valuation: 2
    created_date: "2026-01-01 10:00:00"
    video: {previewImage: "https://cdn.example.test/p.jpg", link: "https://cdn.example.test/v/index.m3u8", durationSec: 40}
`
	h := newServer(t, mock.Options{PublicURL: "http://localhost:18080", Scenarios: fstest.MapFS{
		"s.yaml": {Data: []byte("description: x\nseed: 1\nsettings: settings/default.yaml\ndata:\n  fixtures: [reviews/media.yaml]\n")},
	}, Scenario: "s", Fixtures: fstest.MapFS{
		"reviews/media.yaml":    {Data: []byte(fixture)},
		"settings/default.yaml": {Data: mustRead(t, fixtures.FS, "settings/default.yaml")},
	}})
	d := list(t, h, "limit=10")
	byID := map[string]mock.Feedback{}
	for _, f := range d.Feedbacks {
		byID[f.FeedbackID] = f
	}
	f1, f2 := byID["F1"], byID["F2"]
	wantPhotos := `[{"fullSize":"http://localhost:18080/__mock/media/photos/F1/1/fs.jpg","miniSize":"http://localhost:18080/__mock/media/photos/F1/1/ms.jpg"},` +
		`{"fullSize":"https://cdn.example.test/f1/fs.webp","miniSize":"https://cdn.example.test/f1/ms.webp"}]`
	if f1.Photos != wantPhotos {
		t.Errorf("photos\n got %s\nwant %s", f1.Photos, wantPhotos)
	}
	wantVideo := `{"previewImage":"http://localhost:18080/__mock/media/videos/v1/preview.jpg","link":"http://localhost:18080/__mock/media/videos/v1/21s/index.m3u8","durationSec":21}`
	if string(f1.Video) != wantVideo {
		t.Errorf("video\n got %s\nwant %s", f1.Video, wantVideo)
	}
	if f1.ValuationTags != `["цена","по размеру"]` || f2.Photos != "[]" || f2.ValuationTags != "[]" {
		t.Errorf("F1 tags %s; F2 photos %s, tags %s", f1.ValuationTags, f2.Photos, f2.ValuationTags)
	}
	var v mock.Video
	if err := json.Unmarshal(f2.Video, &v); err != nil || v.DurationSec != 40 || v.Link != "https://cdn.example.test/v/index.m3u8" {
		t.Errorf("F2 video %s: %v", f2.Video, err)
	}
}

// FuzzMediaPath: any path below /__mock/media/ answers a file (200, with
// a media type) or the 404 envelope; nothing else, and no panic.
func FuzzMediaPath(f *testing.F) {
	for _, p := range []string{photoPath, miniPath, previewPath, playlistPath, segmentPath,
		"/__mock/media/photos/../../health", "/__mock/media/videos/k/3600s/359.ts", "/__mock/media/photos/%2e%2e/1/fs.jpg"} {
		f.Add(strings.TrimPrefix(p, mock.MediaPrefix))
	}
	h := newDefault(f)
	types := []string{"image/jpeg", "application/vnd.apple.mpegurl", "video/mp2t"}
	f.Fuzz(func(t *testing.T, rest string) {
		target := mock.MediaPrefix + rest
		u, err := url.ParseRequestURI(target)
		if err != nil || u.RawQuery != "" || u.Fragment != "" {
			t.Skip("not a request target")
		}
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.URL, req.RequestURI = u, target
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch ct := rec.Header().Get("Content-Type"); rec.Code {
		case http.StatusOK:
			if !slices.Contains(types, ct) || rec.Body.Len() == 0 {
				t.Errorf("GET %q: 200 with %q, %d bytes", target, ct, rec.Body.Len())
			}
		case http.StatusNotFound:
			var eb errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil || eb.Error.Code != mock.CodeNotFound || ct != "application/json; charset=utf-8" {
				t.Errorf("GET %q: 404 %q %s", target, ct, rec.Body)
			}
		default:
			t.Errorf("GET %q: %d %s", target, rec.Code, rec.Body)
		}
	})
}

// BenchmarkServeMedia measures whole media answers: a photo and a
// segment, embedded, and a playlist, written per request.
func BenchmarkServeMedia(b *testing.B) {
	s := newDefault(b)
	for _, path := range []string{photoPath, playlistPath, segmentPath} {
		b.Run(path[strings.LastIndex(path, "/")+1:], func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			b.ReportAllocs()
			for b.Loop() {
				s.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
