package media

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The cache keeps rendered images within its byte budget, the least
// recently used going first; an evicted image is drawn again, to the
// same bytes; one bigger than the budget is served but not kept.
func TestMediaCacheBudget(t *testing.T) {
	const budget = 100 << 10
	m := NewStore(budget)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	first := map[string][]byte{}
	for i := range 40 { // about 20 KB each: twice the budget and more
		path := fmt.Sprintf("photos/k%d/1/fs.jpg", i)
		it, _ := parsePath(path)
		f, ok := m.image(req, path, it)
		if !ok {
			t.Fatal("no image")
		}
		first[path] = f.body
		if used := m.bytes(); used > budget {
			t.Fatalf("after %d images the cache holds %d bytes, over its budget of %d", i+1, used, budget)
		}
	}
	if n := m.rendered.Load(); n != 40 {
		t.Errorf("rendered %d images, want 40", n)
	}
	if len(m.files) >= 40 || len(m.files) < 2 || m.bytes() < budget/2 {
		t.Errorf("the cache keeps %d files, %d bytes: want some evicted and the budget used", len(m.files), m.bytes())
	}
	// The newest is kept: asking again draws nothing.
	last := "photos/k39/1/fs.jpg"
	it, _ := parsePath(last)
	m.image(req, last, it)
	if n := m.rendered.Load(); n != 40 {
		t.Errorf("a cached image was drawn again (%d renders)", n)
	}
	// The oldest was evicted: it is drawn again, the same.
	oldest := "photos/k0/1/fs.jpg"
	it, _ = parsePath(oldest)
	f, _ := m.image(req, oldest, it)
	if n := m.rendered.Load(); n != 41 {
		t.Errorf("an evicted image was not drawn again (%d renders)", n)
	}
	if !bytes.Equal(f.body, first[oldest]) {
		t.Error("an evicted image drawn again differs")
	}
	// A budget smaller than one image keeps nothing.
	tiny := NewStore(1 << 10)
	tiny.image(req, oldest, it)
	tiny.image(req, oldest, it)
	if tiny.bytes() != 0 || tiny.rendered.Load() != 2 {
		t.Errorf("a 1 KiB cache holds %d bytes after 2 renders of %d", tiny.bytes(), tiny.rendered.Load())
	}
	// No budget (Options.MediaCacheBytes < 0) keeps nothing either.
	none := NewStore(-1)
	none.image(req, oldest, it)
	if none.bytes() != 0 || none.Budget().Max() > 0 {
		t.Errorf("a cache without budget holds %d bytes, budget %d", none.bytes(), none.Budget().Max())
	}
}

// A client that leaves while waiting for a turn to draw gets nothing and
// costs nothing.
func TestMediaRenderWaitEndsWithClient(t *testing.T) {
	m := NewStore(1 << 20)
	for range cap(m.renders) {
		m.renders <- struct{}{} // every drawing slot busy
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req := httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx)
	it, _ := parsePath("photos/k/1/fs.jpg")
	if f, ok := m.image(req, "photos/k/1/fs.jpg", it); ok || f != nil || m.rendered.Load() != 0 {
		t.Errorf("image for a client gone: %v, %v, %d renders", f != nil, ok, m.rendered.Load())
	}
}
