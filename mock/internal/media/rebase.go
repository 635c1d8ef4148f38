package media

import (
	"bytes"
	"strings"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// Rebase moves the media URLs f carries from the public URL from to to
// (either may be "", for URLs relative to the server): a snapshot's
// reviews restored on another server, a scenario's fingerprinted without
// where the server is reached.
func Rebase(f *reviews.Feedback, from, to string) {
	if from == "" || from == to {
		return
	}
	from, to = from+Prefix, to+Prefix
	f.Photos = strings.ReplaceAll(f.Photos, from, to)
	f.Video = bytes.ReplaceAll(f.Video, []byte(from), []byte(to))
}
