package media

import (
	"strconv"

	"github.com/replymock/replymock/mock/internal/reviews"
)

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
	b := []byte{'['}
	for i, p := range photos {
		if i > 0 {
			b = append(b, ',')
		}
		b = reviews.AppendJSONString(append(b, `{"fullSize":`...), p.FullSize)
		b = reviews.AppendJSONString(append(b, `,"miniSize":`...), p.MiniSize)
		b = append(b, '}')
	}
	return string(append(b, ']'))
}

// VideoJSON is the compact JSON of a video object, as a record's video
// field holds it.
func VideoJSON(v Video) []byte {
	b := reviews.AppendJSONString([]byte(`{"previewImage":`), v.PreviewImage)
	b = reviews.AppendJSONString(append(b, `,"link":`...), v.Link)
	b = append(b, `,"durationSec":`...)
	b = strconv.AppendInt(b, int64(v.DurationSec), 10)
	return append(b, '}')
}
