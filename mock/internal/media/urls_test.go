package media

import (
	"strings"
	"testing"
)

// The URLs built for generated reviews name files the server serves, of
// the kind they are built for, and the fixtures' checks take them back.
func TestBuiltURLsParse(t *testing.T) {
	const base = "http://media.test:18080/mock"
	u := URLs{Base: base}
	key := strings.Repeat("k", maxKey)
	for _, tc := range []struct {
		url  string
		want item
	}{
		{u.Photo(key, maxPhotoN, SizeFull), item{kind: kindPhoto, key: key, n: maxPhotoN, size: SizeFull}},
		{u.Photo("a_b-C9", 1, SizeMini), item{kind: kindPhoto, key: "a_b-C9", n: 1, size: SizeMini}},
		{u.Preview(key), item{kind: kindPreview, key: key}},
		{u.Playlist(key, MaxVideoSecs), item{kind: kindPlaylist, key: key, secs: MaxVideoSecs}},
	} {
		rest, ok := strings.CutPrefix(tc.url, base+Prefix)
		it, ok2 := parsePath(rest)
		if !ok || !ok2 || it != tc.want {
			t.Errorf("%s parses to %+v (%v, %v), want %+v", tc.url, it, ok, ok2, tc.want)
		}
		path := strings.TrimPrefix(tc.url, base)
		var abs, problem string
		switch tc.want.kind {
		case kindPhoto:
			abs, problem = u.ResolvePhoto(path, tc.want.size)
		case kindPreview:
			abs, problem = u.ResolvePreview(path)
		default:
			abs, problem = u.ResolvePlaylist(path, tc.want.secs)
		}
		if abs != tc.url || problem != "" {
			t.Errorf("resolving %s: %q, %q; want %s", path, abs, problem, tc.url)
		}
	}
	// A path of another kind, size or duration is refused.
	for _, p := range []string{
		u.Photo("k", 1, SizeMini)[len(base):],
		u.Preview("k")[len(base):],
		u.Playlist("k", 20)[len(base):],
	} {
		if abs, problem := u.ResolvePhoto(p, SizeFull); abs != "" || problem == "" {
			t.Errorf("ResolvePhoto(%s, fs) took it: %q", p, abs)
		}
	}
	if _, problem := u.ResolvePlaylist(u.Playlist("k", 20)[len(base):], 21); problem == "" {
		t.Error("a playlist of 20 s was taken for a video of 21 s")
	}
}
