// Package media serves the reviews' photos and videos under Prefix, and
// builds and checks the media URLs a record carries.
//
// A path picks one of a few embedded pictures by a hash of its key, the
// same on every machine; a video is one embedded segment played again
// and again. Paths under Prefix:
//
//	photos/KEY/N/fs.jpg          a review's photo N, 450×600
//	photos/KEY/N/ms.jpg          its miniature, 90×120
//	videos/KEY/preview.jpg       a video's preview image, 640×360
//	videos/KEY/Ds/index.m3u8     an HLS playlist of D seconds
//	videos/KEY/Ds/I.ts           its segment I (10 seconds each, the last shorter)
//
// KEY is 1 to 64 letters, digits, '_' and '-'; N is 1 to 99, D 1 to
// 3600, I from 0, without leading zeros, so each file has one path.
package media

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Prefix is the path of the media files: below /__mock, but open to any
// client.
const Prefix = "/__mock/media/"

// IsPath reports whether path is under Prefix.
func IsPath(path string) bool { return strings.HasPrefix(path, Prefix) }

// itemKind is what a media path names.
type itemKind int

const (
	kindPhoto itemKind = iota + 1
	kindPreview
	kindPlaylist
	kindSegment
)

// item is a parsed media path.
type item struct {
	kind itemKind
	key  string
	n    int    // photo number
	size string // photo size: fs or ms
	secs int    // a video's duration in seconds
	seg  int    // a segment's index
}

// MaxVideoSecs bounds a video's duration, in seconds.
const MaxVideoSecs = 3600

// Bounds of the names in a media path.
const (
	maxKey      = 64
	maxPhotoN   = 99
	segmentSecs = 10
	maxPath     = len("videos/") + maxKey + len("/3600s/index.m3u8")
)

// parsePath reads a path below Prefix, as sent (escaped).
func parsePath(rest string) (item, bool) {
	if len(rest) > maxPath {
		return item{}, false
	}
	parts := strings.Split(rest, "/")
	switch {
	case len(parts) == 4 && parts[0] == "photos":
		n, ok := number(parts[2], 1, maxPhotoN)
		size, _ := strings.CutSuffix(parts[3], ".jpg")
		if !ok || !validKey(parts[1]) || (parts[3] != "fs.jpg" && parts[3] != "ms.jpg") {
			return item{}, false
		}
		return item{kind: kindPhoto, key: parts[1], n: n, size: size}, true
	case len(parts) == 3 && parts[0] == "videos" && parts[2] == "preview.jpg":
		if !validKey(parts[1]) {
			return item{}, false
		}
		return item{kind: kindPreview, key: parts[1]}, true
	case len(parts) == 4 && parts[0] == "videos":
		d, ok := strings.CutSuffix(parts[2], "s")
		secs, ok2 := number(d, 1, MaxVideoSecs)
		if !ok || !ok2 || !validKey(parts[1]) {
			return item{}, false
		}
		it := item{kind: kindPlaylist, key: parts[1], secs: secs}
		if parts[3] == "index.m3u8" {
			return it, true
		}
		i, ok := strings.CutSuffix(parts[3], ".ts")
		seg, ok2 := number(i, 0, segmentCount(secs)-1)
		if !ok || !ok2 {
			return item{}, false
		}
		it.kind, it.seg = kindSegment, seg
		return it, true
	}
	return item{}, false
}

// number reads a plain decimal from lo to hi, without a sign or leading
// zeros.
func number(s string, lo, hi int) (int, bool) {
	n, err := strconv.Atoi(s)
	return n, err == nil && strconv.Itoa(n) == s && n >= lo && n <= hi
}

var validKey = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z0-9_-]{1,%d}$`, maxKey)).MatchString

// segmentCount is how many segments a video of secs seconds has.
func segmentCount(secs int) int { return (secs + segmentSecs - 1) / segmentSecs }
