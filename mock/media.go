package mock

import "github.com/replymock/replymock/mock/internal/media"

// MediaPrefix is where the mock serves the records' photos and videos, so
// that a UI shows them offline. mock/API.md lists the paths.
const MediaPrefix = media.Prefix

// DefaultPublicURL is the base of media URLs when Options.PublicURL is
// empty.
const DefaultPublicURL = media.DefaultPublicURL

// ParsePublicURL checks the base of media URLs and returns it without a
// trailing slash.
func ParsePublicURL(raw string) (string, error) { return media.ParsePublicURL(raw) }

// A record's media.
type (
	// Photo is one item of a record's photos.
	Photo = media.Photo
	// Video is a record's video.
	Video = media.Video
)
