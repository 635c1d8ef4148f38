package mock

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/media"
)

// The review records' media (photos, video previews, HLS playlists and
// their segments) are served by the mock itself, under MediaPrefix, so
// that a UI shows them offline; mock/internal/media owns them. They hold
// no data: a path picks one of a few pictures embedded in the binary, the
// same bytes on every run and machine. Paths:
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
const MediaPrefix = media.Prefix

// DefaultPublicURL is the base of media URLs when Options.PublicURL is
// empty: the address replymock listens on by default.
const DefaultPublicURL = media.DefaultPublicURL

// ParsePublicURL checks the base of media URLs, an absolute http or https
// URL (a path is allowed, for a server behind a proxy that strips it),
// and returns it without a trailing slash.
func ParsePublicURL(raw string) (string, error) { return media.ParsePublicURL(raw) }

// Photo is one item of a record's photos: the upstream's photoLinks item.
type Photo = media.Photo

// Video is a record's video: the upstream's video object.
type Video = media.Video

// handleMedia serves GET and HEAD /__mock/media/...: no admin token, no
// session, no faults; a path that names no file is a 404 in the envelope.
func (s *Server) handleMedia(w http.ResponseWriter, r *http.Request) {
	media.Serve(w, r, s.log)
}
