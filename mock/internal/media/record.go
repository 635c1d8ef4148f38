package media

import "github.com/replymock/replymock/mock/internal/wire"

// Photo is one item of a record's photos: the upstream's photoLinks item.
// Its YAML keys, for the fixtures a recording writes, are its JSON's.
type Photo struct {
	FullSize string `json:"fullSize" yaml:"fullSize"`
	MiniSize string `json:"miniSize" yaml:"miniSize"`
}

// Video is a record's video: the upstream's video object.
type Video struct {
	PreviewImage string `json:"previewImage" yaml:"previewImage"`
	Link         string `json:"link" yaml:"link"`
	DurationSec  int    `json:"durationSec" yaml:"durationSec"`
}

// PhotosJSON is the JSON text of a list of photos, as a record's photos
// field holds it; none gives "[]".
func PhotosJSON(photos []Photo) string {
	if len(photos) == 0 {
		return "[]"
	}
	return string(mustJSON(photos))
}

// VideoJSON is the JSON of a video object, as a record's video field
// holds it.
func VideoJSON(v Video) []byte { return mustJSON(v) }

// mustJSON encodes a media value, which cannot fail.
func mustJSON(v any) []byte {
	b, err := wire.MarshalJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}
