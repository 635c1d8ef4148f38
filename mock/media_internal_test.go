package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // image.Decode reads the photos
	"io/fs"
	"maps"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock/internal/generate"
	"gopkg.in/yaml.v3"
)

// testPublicURL is the public URL the media tests give the server: not
// the default, so that a URL built without it shows.
const testPublicURL = "http://media.test:18080"

// tagVocabulary is every buyer tag the phrase banks of the shipped
// fixtures may give, by locale.
func tagVocabulary(t *testing.T) map[string][]string {
	t.Helper()
	vocab := map[string][]string{}
	for _, locale := range generate.Locales {
		data, err := fs.ReadFile(fixtures.FS, "phrases/"+locale+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		var bank struct {
			Tags     []string
			Products []struct{ Tags []string }
		}
		if err := yaml.Unmarshal(data, &bank); err != nil {
			t.Fatal(err)
		}
		tags := bank.Tags
		for _, p := range bank.Products {
			tags = append(tags, p.Tags...)
		}
		vocab[locale] = tags
	}
	return vocab
}

// recordSchemas are the OpenAPI document's schemas of the JSON texts in
// photos and valuation_tags.
func recordSchemas(t *testing.T) (photos, tags *openapi3.Schema) {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(openAPIYAML)
	if err != nil {
		t.Fatal(err)
	}
	p, ok1 := doc.Components.Schemas["PhotoList"]
	v, ok2 := doc.Components.Schemas["ValuationTags"]
	if !ok1 || !ok2 {
		t.Fatal("the OpenAPI document has no PhotoList or ValuationTags schema")
	}
	return p.Value, v.Value
}

// mediaProblems lists what is wrong with f's photos, video and tags; it
// adds each media URL to urls with what it must be.
func mediaProblems(f *Feedback, vocab []string, photoSchema, tagSchema *openapi3.Schema, urls map[string]string) []string {
	var probs []string
	bad := func(format string, args ...any) { probs = append(probs, fmt.Sprintf(format, args...)) }
	url := func(what, u, want string) {
		if !strings.HasPrefix(u, testPublicURL+MediaPrefix) {
			bad("%s %q is not under %s", what, u, testPublicURL+MediaPrefix)
			return
		}
		urls[u] = want
	}
	var photosAny any
	if err := json.Unmarshal([]byte(f.Photos), &photosAny); err != nil {
		bad("photos %q is not JSON: %v", f.Photos, err)
	} else if f.Photos != "[]" {
		if err := photoSchema.VisitJSON(photosAny); err != nil {
			bad("photos %q does not match the OpenAPI PhotoList: %v", f.Photos, err)
		}
	}
	dec := json.NewDecoder(strings.NewReader(f.Photos))
	dec.DisallowUnknownFields()
	var photos []Photo
	if err := dec.Decode(&photos); err != nil {
		bad("photos %q is not a list of {fullSize, miniSize}: %v", f.Photos, err)
	}
	for i, p := range photos {
		if p.FullSize == "" || p.MiniSize == "" {
			bad("photos[%d] lacks a URL: %+v", i, p)
			continue
		}
		url(fmt.Sprintf("photos[%d].fullSize", i), p.FullSize, "fs")
		url(fmt.Sprintf("photos[%d].miniSize", i), p.MiniSize, "ms")
	}
	if string(f.Video) != "null" {
		dec := json.NewDecoder(bytes.NewReader(f.Video))
		dec.DisallowUnknownFields()
		var v Video
		switch err := dec.Decode(&v); {
		case err != nil:
			bad("video %s is not {previewImage, link, durationSec}: %v", f.Video, err)
		case v.PreviewImage == "" || v.Link == "" || v.DurationSec <= 0:
			bad("video %s lacks a field, or durationSec is not above 0", f.Video)
		default:
			url("video.previewImage", v.PreviewImage, "preview")
			url("video.link", v.Link, fmt.Sprintf("playlist %d", v.DurationSec))
		}
	}
	var tagsAny any
	if err := json.Unmarshal([]byte(f.ValuationTags), &tagsAny); err != nil || f.ValuationTags != "[]" && tagSchema.VisitJSON(tagsAny) != nil {
		bad("valuation_tags %q does not match the OpenAPI ValuationTags", f.ValuationTags)
	}
	var tags []string
	if err := json.Unmarshal([]byte(f.ValuationTags), &tags); err != nil || tags == nil {
		bad("valuation_tags %q is not a list of strings", f.ValuationTags)
	}
	for _, tag := range tags {
		if strings.ToLower(tag) != tag || !slices.Contains(vocab, tag) {
			bad("valuation tag %q is not a lowercase tag of the phrase bank", tag)
		}
	}
	if len(tags) > 0 && f.ProductValuation < 4 {
		bad("%d stars with the tags %v: tags are praise", f.ProductValuation, tags)
	}
	return probs
}

// get answers a GET of path (no base) straight from the handler.
func getMedia(h http.Handler, method, path string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// checkMediaFile fetches the media file at path and checks it is what
// want says: a photo of size fs or ms, a preview, or a playlist of N
// seconds (whose segments it fetches too).
func checkMediaFile(t *testing.T, h http.Handler, path, want string) {
	t.Helper()
	rec := getMedia(h, http.MethodGet, path)
	body := rec.Body.Bytes()
	ct := rec.Header().Get("Content-Type")
	if rec.Code != http.StatusOK {
		t.Errorf("GET %s: status %d: %s", path, rec.Code, body)
		return
	}
	switch want {
	case "fs", "ms", "preview":
		// The sizes the package documents (mock/internal/media).
		size := map[string]image.Point{"fs": image.Pt(450, 600), "ms": image.Pt(90, 120), "preview": image.Pt(640, 360)}[want]
		img, format, err := image.Decode(bytes.NewReader(body))
		switch {
		case ct != "image/jpeg":
			t.Errorf("GET %s: Content-Type %q, want image/jpeg", path, ct)
		case err != nil || format != "jpeg":
			t.Errorf("GET %s: not a JPEG image (%q, %v)", path, format, err)
		case img.Bounds().Size() != size:
			t.Errorf("GET %s: %v, want %v", path, img.Bounds().Size(), size)
		}
	default:
		var secs int
		fmt.Sscanf(want, "playlist %d", &secs)
		if ct != "application/vnd.apple.mpegurl" || !bytes.HasPrefix(body, []byte("#EXTM3U\n")) || !bytes.HasSuffix(body, []byte("#EXT-X-ENDLIST\n")) {
			t.Errorf("GET %s: %q, not an HLS playlist:\n%s", path, ct, body)
			return
		}
		total := 0
		dir := path[:strings.LastIndex(path, "/")+1]
		for line := range strings.SplitSeq(string(body), "\n") {
			var d int
			if _, err := fmt.Sscanf(line, "#EXTINF:%d.000,", &d); err == nil {
				total += d
			}
			if strings.HasSuffix(line, ".ts") {
				checkSegment(t, h, dir+line)
			}
		}
		if total != secs {
			t.Errorf("GET %s: the segments last %d s, want durationSec %d", path, total, secs)
		}
	}
}

// checkSegment fetches a segment: an MPEG transport stream.
func checkSegment(t *testing.T, h http.Handler, path string) {
	t.Helper()
	rec := getMedia(h, http.MethodGet, path)
	b := rec.Body.Bytes()
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "video/mp2t" || len(b) == 0 || len(b)%188 != 0 {
		t.Errorf("GET %s: %d %q, %d bytes: want a transport stream", path, rec.Code, rec.Header().Get("Content-Type"), len(b))
		return
	}
	for i := 0; i < len(b); i += 188 {
		if b[i] != 0x47 {
			t.Errorf("GET %s: packet at %d does not start with the sync byte", path, i)
			return
		}
	}
}

// raceDetector reports whether the test runs with -race, which makes
// decoding images many times slower.
func raceDetector() bool {
	bi, ok := debug.ReadBuildInfo()
	return ok && slices.ContainsFunc(bi.Settings, func(s debug.BuildSetting) bool { return s.Key == "-race" && s.Value == "true" })
}

// Every record of every shipped scenario carries the upstream's shapes,
// and every distinct media URL in them answers with a file of its kind.
// The big shop's 100,000 reviews are all checked for shapes, and a
// sample of their media fetched (decoding their 50,000 photos would take
// minutes); with -race, one photo in 8 of the others is fetched (every
// video still is). A living shop's arrivals are checked too.
func TestShippedMedia(t *testing.T) {
	s, err := New(Options{PublicURL: testPublicURL, Now: func() time.Time { return time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	vocab := tagVocabulary(t)
	photoSchema, tagSchema := recordSchemas(t)
	urls := map[string]string{} // URL -> what it must be
	records := 0
	for _, name := range slices.Sorted(maps.Keys(s.scenarioMap())) {
		sc := s.scenarioMap()[name]
		st, err := sc.Store()
		if err != nil {
			t.Fatal(err)
		}
		fbs := listFeedbacks(t, st)
		if sc.Shop() != nil { // a day of arrivals
			hdr := []string{HeaderSession, "media-" + name, HeaderScenario, name, "Content-Type", "application/json"}
			req := httptest.NewRequest(http.MethodPost, "/__mock/clock", strings.NewReader(`{"advance":"24h"}`))
			for i := 0; i < len(hdr); i += 2 {
				req.Header.Set(hdr[i], hdr[i+1])
			}
			s.ServeHTTP(httptest.NewRecorder(), req)
			rec := getMedia(s, http.MethodGet, "/api/v1/feedbacks?limit=100", hdr...)
			var env struct {
				Data struct{ Feedbacks []Feedback }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || len(env.Data.Feedbacks) != 100 || env.Data.Feedbacks[0].ID <= int64(len(fbs)) {
				t.Fatalf("%s: no arrivals after a day: %v %.300s", name, err, rec.Body)
			}
			fbs = append(fbs, env.Data.Feedbacks...)
		}
		sample := urls
		if len(fbs) > 10_000 {
			sample = map[string]string{}
		}
		for i := range fbs {
			if raceDetector() && len(fbs) > 10_000 && i%16 != 0 {
				continue // under the race detector, a sample of the big ones
			}
			records++
			for _, p := range mediaProblems(&fbs[i], vocab[sc.Locale], photoSchema, tagSchema, sample) {
				t.Errorf("%s: %s: %s", name, fbs[i].FeedbackID, p)
			}
		}
		if len(fbs) > 10_000 {
			keys := slices.Sorted(maps.Keys(sample))
			for i := 0; i < len(keys); i += len(keys)/100 + 1 {
				urls[keys[i]] = sample[keys[i]]
			}
		}
	}
	if records < 100_000 && !raceDetector() || records < 10_000 || len(urls) < 500 {
		t.Fatalf("checked %d records and %d media URLs; want every shipped scenario's", records, len(urls))
	}
	kinds := map[string]int{}
	for i, u := range slices.Sorted(maps.Keys(urls)) {
		if raceDetector() && i%8 != 0 {
			continue // under the race detector, one file in 8 of each kind
		}
		kinds[strings.Fields(urls[u])[0]]++
		checkMediaFile(t, s, strings.TrimPrefix(u, testPublicURL), urls[u])
	}
	if kinds["fs"] == 0 || kinds["ms"] == 0 || kinds["preview"] == 0 || kinds["playlist"] == 0 {
		t.Errorf("media kinds fetched: %v; want photos, miniatures, previews and playlists", kinds)
	}
	t.Logf("%d records, %d media URLs: %v", records, len(urls), kinds)
}

// The media files are served below the admin routes' prefix, as the
// token, CORS and log rules that exempt them expect.
func TestMediaPrefixUnderAdmin(t *testing.T) {
	if MediaPrefix != AdminPrefix+"/media/" {
		t.Errorf("MediaPrefix %q, want %q", MediaPrefix, AdminPrefix+"/media/")
	}
}
