package journal

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// deepBody is a JSON object nested depth deep ({"a":{"a":...}}), of
// about size bytes.
func deepBody(depth, size int) string {
	pad := strings.Repeat("x", max(size-6*depth-2, 1))
	return strings.Repeat(`{"a":`, depth) + `"` + pad + `"` + strings.Repeat("}", depth)
}

// deepPath is a body part depth steps deep into deepBody, the last one
// named last.
func deepPath(depth int, last string) string { return strings.Repeat("a.", depth-1) + last }

// work is what a listing of p over j charges, in bytes read.
func work(t *testing.T, j *Journals, p *Pattern) int64 {
	t.Helper()
	sc := newScan()
	if _, err := j.find(p, 0, sc); err != nil {
		t.Fatal(err)
	}
	return MaxScanBytes - sc.left
}

// A body part reads an entry's body once, however deep its path:
// decoding each step, as the journal once did, read it once a step.
func TestScanWorkIsLinear(t *testing.T) {
	const size = 4096
	for _, depth := range []int{1, 4, 16, MaxBodyPathDepth} {
		j := New(10, 1<<30, 100)
		k := j.Open("s")
		body := deepBody(depth, size)
		j.Record(k, request("s", "PATCH", "/api/v1/settings/ai", nil, body, nil))
		for _, last := range []string{"a", "missing"} {
			p := mustCompile(t, Filter{Body: map[string]string{deepPath(depth, last): "x"}})
			got := work(t, j, p)
			if bound := int64(scanEntryCost + scanPartCost + 2*len(body)); got > bound || got < int64(len(body)) {
				t.Errorf("depth %d, last step %q: read %d bytes of a %d-byte body, want from %d to %d", depth, last, got, len(body), len(body), bound)
			}
		}
		// Each further body part reads the body once more.
		f := Filter{Body: map[string]string{}}
		for i := range MaxPatternParts {
			f.Body[deepPath(depth, "k"+strconv.Itoa(i))] = "x"
		}
		if got, bound := work(t, j, mustCompile(t, f)), int64(scanEntryCost+MaxPatternParts*(scanPartCost+len(body))+len(body)); got > bound {
			t.Errorf("depth %d, %d body parts: read %d bytes, want at most %d", depth, MaxPatternParts, got, bound)
		}
	}
}

// Past MaxScanBytes, a listing, a verification and a wait answer
// ErrScanTooLarge instead of reading on; a pattern narrowed by since
// reads less and is answered.
func TestScanBounded(t *testing.T) {
	body := deepBody(MaxBodyPathDepth, MaxBody) // 32 KiB
	n := MaxScanBytes/MaxBody + 8               // one body part reads each once: just past the bound
	j := New(n, 1<<30, n)
	k := j.Open("s")
	for range n {
		// A body of its own, as each request has.
		j.Record(k, request("s", "PATCH", "/api/v1/settings/ai", nil, strings.Clone(body), nil))
	}
	f := Filter{Body: map[string]string{deepPath(MaxBodyPathDepth, "missing"): "x"}}
	p := mustCompile(t, f)
	if _, err := j.List(p, 0); !errors.Is(err, ErrScanTooLarge) {
		t.Errorf("List: %v, want ErrScanTooLarge", err)
	}
	if _, err := j.Verify(p, AtLeast(1)); !errors.Is(err, ErrScanTooLarge) {
		t.Errorf("Verify: %v, want ErrScanTooLarge", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // against a hang only
	defer cancel()
	if err := j.Await(ctx, "", p, 1); !errors.Is(err, ErrScanTooLarge) {
		t.Errorf("Await: %v, want ErrScanTooLarge", err)
	}
	f.Since = int64(n - 100)
	if v, err := j.Verify(mustCompile(t, f), AtMost(0)); err != nil || !v.OK {
		t.Errorf("Verify of the newest 100: %+v, %v", v, err)
	}
	// The Go API's listing is code in this process: not bounded.
	if got := j.Entries(mustCompile(t, Filter{Body: map[string]string{"a.a": "x"}}), 0); len(got) != 0 {
		t.Errorf("Entries: %d", len(got))
	}
}

// A pattern has at most MaxPatternParts parts beyond method and path,
// and a body path at most MaxBodyPathDepth steps.
func TestPatternBounds(t *testing.T) {
	f := Filter{Query: map[string]string{}, Body: map[string]string{}}
	for i := range MaxPatternParts / 2 {
		f.Query["q"+strconv.Itoa(i)] = "1"
		f.Body["b"+strconv.Itoa(i)] = "1"
	}
	if _, err := compile(f, nil); err != nil {
		t.Errorf("%d parts: %v", MaxPatternParts, err)
	}
	f.Body[deepPath(MaxBodyPathDepth, "z")] = "1"
	if _, err := compile(f, nil); err == nil || !strings.Contains(err.Error(), "at most 32 query, header and body parts") {
		t.Errorf("%d parts: %v, want a refusal", MaxPatternParts+1, err)
	}
	if _, err := compile(Filter{Body: map[string]string{deepPath(MaxBodyPathDepth+1, "z"): "1"}}, nil); err == nil || !strings.Contains(err.Error(), "at most 32 steps") {
		t.Errorf("a body path of %d steps: %v, want a refusal", MaxBodyPathDepth+1, err)
	}
}

// BenchmarkVerifyDeepPatterns is the attack of deep patterns over a
// full journal: 32 body parts 32 steps deep over 50,000 entries of 2.6
// KiB nested 32 deep (what 128 MiB of journal holds). Each step decoded,
// one verification of 16 such parts over 1,000 entries took 12 s; now
// any stops at MaxScanBytes.
func BenchmarkVerifyDeepPatterns(b *testing.B) {
	const n = 50_000
	j := New(n, 128<<20, n)
	k := j.Open("s")
	body := deepBody(MaxBodyPathDepth, 2600)
	for range n {
		j.Record(k, request("s", "PATCH", "/api/v1/settings/ai", nil, strings.Clone(body), nil))
	}
	f := Filter{Body: map[string]string{}}
	for i := range MaxPatternParts {
		f.Body[deepPath(MaxBodyPathDepth, "k"+strconv.Itoa(i))] = "x"
	}
	p, err := compile(f, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := j.Verify(p, AtLeast(1)); !errors.Is(err, ErrScanTooLarge) {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerifyCI is a CI job's verification: its session's 1,000
// entries of 1 KiB on several paths, among 49,000 of other sessions, a
// path and two body parts.
func BenchmarkVerifyCI(b *testing.B) {
	const n = 50_000
	j := New(1000, 128<<20, n)
	ss := newSessions(j)
	body := `{"feedback":[{"rating":5,"tone":"formal","signature":"` + strings.Repeat("s", 900) + `"}]}`
	for i := range n {
		sid := "other-" + strconv.Itoa(i%50)
		if i%50 == 0 {
			sid = "ci"
		}
		k := ss.key(sid)
		path := []string{"/api/v1/settings/ai", "/api/v1/feedbacks"}[i/50%2]
		j.Record(k, request(sid, "PATCH", path, nil, strings.Clone(body), nil))
	}
	p, err := compile(Filter{Session: "ci", Path: "/api/v1/settings/ai", Body: map[string]string{"feedback.0.tone": "formal", "feedback.0.rating": "5"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if v, err := j.Verify(p, AtLeast(1)); err != nil || v.Matched != 500 {
			b.Fatal(v.Matched, err)
		}
	}
}
