package media

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// DefaultPublicURL is the base of media URLs when none is given: the
// address replymock listens on by default.
const DefaultPublicURL = "http://127.0.0.1:8080"

// maxPublicURL bounds a public URL's length: every media URL of every
// record carries it.
const maxPublicURL = 256

// ParsePublicURL checks the base of media URLs, an absolute http or https
// URL (a path is allowed, for a server behind a proxy that strips it),
// and returns it without a trailing slash.
func ParsePublicURL(raw string) (string, error) {
	bad := func(why string) error {
		return fmt.Errorf("must be an absolute http:// or https:// URL such as http://localhost:18080 (%s), got %q", why, wire.Clip(raw))
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
	case strings.ContainsAny(raw, "?#"):
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

// Photo sizes, as their file names say: the full size and the miniature.
const (
	SizeFull = "fs"
	SizeMini = "ms"
)

// URLs makes and checks the absolute URLs of media files under a public
// URL, Base (as ParsePublicURL returns it).
type URLs struct{ Base string }

// Photo is the URL of photo n (from 1) of key, in size SizeFull or SizeMini.
func (u URLs) Photo(key string, n int, size string) string {
	return u.Base + Prefix + "photos/" + key + "/" + strconv.Itoa(n) + "/" + size + ".jpg"
}

// Preview is the URL of the preview image of video key.
func (u URLs) Preview(key string) string {
	return u.Base + Prefix + "videos/" + key + "/preview.jpg"
}

// Playlist is the URL of the HLS playlist of video key, secs seconds long.
func (u URLs) Playlist(key string, secs int) string {
	return u.Base + Prefix + "videos/" + key + "/" + strconv.Itoa(secs) + "s/index.m3u8"
}

// ResolvePhoto checks a photo's URL as a fixture or a seed writes it and
// returns it absolute; see resolve. The problem is "" when it is fine.
func (u URLs) ResolvePhoto(raw, size string) (abs, problem string) {
	return u.resolve(raw, item{kind: kindPhoto, size: size})
}

// ResolvePreview checks a video preview's URL as ResolvePhoto does.
func (u URLs) ResolvePreview(raw string) (abs, problem string) {
	return u.resolve(raw, item{kind: kindPreview})
}

// ResolvePlaylist checks the URL of a video of secs seconds (its HLS
// playlist) as ResolvePhoto does.
func (u URLs) ResolvePlaylist(raw string, secs int) (abs, problem string) {
	return u.resolve(raw, item{kind: kindPlaylist, secs: secs})
}

// resolve checks a media URL and returns it absolute: an http or https
// URL is kept; a path under Prefix is taken from the public URL, and must
// name a file of want's kind (and size, or duration) that the mock
// serves. The problem is "" when it is fine.
func (u URLs) resolve(raw string, want item) (string, string) {
	served := map[itemKind]string{
		kindPhoto:    Prefix + "photos/KEY/N/" + want.size + ".jpg",
		kindPreview:  Prefix + "videos/KEY/preview.jpg",
		kindPlaylist: Prefix + "videos/KEY/" + strconv.Itoa(want.secs) + "s/index.m3u8",
	}[want.kind]
	if raw == "" {
		return "", "required: an http(s) URL, or a path such as " + served + " (served by the mock)"
	}
	if strings.HasPrefix(raw, "/") {
		rest, ok := strings.CutPrefix(raw, Prefix)
		it, ok2 := parsePath(rest)
		if !ok || !ok2 || it.kind != want.kind || it.size != want.size || it.secs != want.secs {
			return "", fmt.Sprintf("%q is no file the mock serves here: want a path such as %s, or an http(s) URL", wire.Clip(raw), served)
		}
		return u.Base + raw, ""
	}
	parsed, err := url.Parse(raw)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return "", fmt.Sprintf("must be an http(s) URL, or a path such as %s (served by the mock), got %q", served, wire.Clip(raw))
	}
	if want.kind == kindPlaylist && !strings.HasSuffix(parsed.Path, ".m3u8") {
		return "", fmt.Sprintf("must be the URL of an HLS playlist (.m3u8), as upstream, got %q", wire.Clip(raw))
	}
	return raw, ""
}
