package content

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/wire"
)

// MaxSeedReviews bounds the reviews of one seed body (400 above it) and
// those a session keeps seeded, in all its scenarios together (409).
const MaxSeedReviews = 10_000

// SeedShape bounds a seed body before it is decoded: its reviews, and
// in each what the record's fields may hold.
var SeedShape = &wire.Shape{What: "a seed body", Items: MaxSeedReviews * 64, Array: 100, Members: 100,
	Arrays: []wire.Bound{{Path: "reviews", Max: MaxSeedReviews, Msg: "at most %d reviews a request, got %d"}}}

// MaxSeedYAMLNodes bounds a seed body sent as YAML, counted as
// wire.YAMLNodes counts: YAML takes many times its size while it is
// read, and a bigger body goes as JSON.
const MaxSeedYAMLNodes = MaxSeedReviews * 50

// Seed modes: the reviews replace the scenario's data, or are added to it.
const (
	SeedReplace = "replace"
	SeedAppend  = "append"
)

// SeedReview is a review to seed (PUT /__mock/data): a record of a
// reviews fixture (ReviewFixture), with the spec's field names, in which
// only product_valuation is required. A nil field is filled in, the same
// way for the same session, position and scenario (Filler):
// feedback_id (20 letters and digits), created_date, the product fields
// from the scenario's catalogue (nm_id, imt_id, product_name,
// supplier_article, brand_name; those of the product nm_id names, when
// it names one of the session's or the scenario's). The rest default as
// in a fixture: text, pros, cons and user_name empty (a rating-only
// review, an anonymous reviewer), created_at = created_date,
// answer_state and state from answer_text, was_viewed 1, no tags, photos
// or video. id is assigned. Its fields are the rows of the record's
// field table (fields), as ReviewFixture's are.
type SeedReview struct {
	FeedbackID       *string       `json:"feedback_id,omitempty"`
	NmID             *int64        `json:"nm_id,omitempty"`
	ImtID            *int64        `json:"imt_id,omitempty"`
	Text             string        `json:"text,omitempty"`
	Pros             string        `json:"pros,omitempty"`
	Cons             string        `json:"cons,omitempty"`
	ProductValuation int           `json:"product_valuation"`
	ValuationTags    []string      `json:"valuation_tags,omitempty"`
	CreatedDate      *string       `json:"created_date,omitempty"`
	AnswerText       string        `json:"answer_text,omitempty"`
	AnswerState      *string       `json:"answer_state,omitempty"`
	ProductName      *string       `json:"product_name,omitempty"`
	SupplierArticle  *string       `json:"supplier_article,omitempty"`
	BrandName        *string       `json:"brand_name,omitempty"`
	Photos           []media.Photo `json:"photos,omitempty"`
	Video            *media.Video  `json:"video,omitempty"`
	UserName         string        `json:"user_name,omitempty"`
	WasViewed        *int          `json:"was_viewed,omitempty"`
	State            *string       `json:"state,omitempty"`
	CreatedAt        string        `json:"created_at,omitempty"`
}

// DecodeSeedBody decodes the JSON document of a seed body:
// {"mode": "replace"|"append", "reviews": [...]} (mode defaults to
// replace; "kind": "reviews" may be there, so that a reviews fixture is a
// body as it is). Every problem names its path.
func DecodeSeedBody(body []byte) (string, []SeedReview, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return "", nil, wire.InvalidBody("", `empty body: send {"mode":"replace","reviews":[...]}`)
	}
	var mode string
	var raw json.RawMessage
	err := wire.EachMember(body, "", func(key string, v json.RawMessage) error {
		switch key {
		case "mode":
			s, err := wire.DecodeString(v, key)
			if err != nil {
				return err
			}
			if s != SeedReplace && s != SeedAppend {
				return wire.InvalidBody(key, "must be replace or append, got %q", wire.Clip(s))
			}
			mode = s
		case "kind":
			s, err := wire.DecodeString(v, key)
			if err != nil {
				return err
			}
			if s != "reviews" {
				return wire.InvalidBody(key, "must be \"reviews\" when given, got %q", wire.Clip(s))
			}
		case "reviews":
			raw = v
		default:
			return wire.InvalidBody(key, "unknown field: the body has mode and reviews")
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	recs, err := decodeSeedReviews(raw)
	return mode, recs, err
}

// decodeSeedReviews decodes the body's reviews, raw (nil when the body
// has none).
func decodeSeedReviews(raw json.RawMessage) ([]SeedReview, error) {
	if raw == nil {
		return nil, wire.InvalidBody("reviews", "required: a list of reviews ([] for none)")
	}
	if k := wire.JSONKind(raw); k != "array" {
		return nil, wire.InvalidBody("reviews", "must be an array, got %s", k)
	}
	var elems []json.RawMessage // each the part of the body that holds it
	if err := wire.EachElement(raw, "reviews", func(_ int, e json.RawMessage) error {
		elems = append(elems, e)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(elems) > MaxSeedReviews {
		return nil, wire.InvalidBody("reviews", "at most %d reviews a request, got %d", MaxSeedReviews, len(elems))
	}
	recs := make([]SeedReview, len(elems))
	for i, e := range elems {
		if err := DecodeSeedReview(e, "", &recs[i]); err != nil {
			return nil, wire.At(err, "reviews["+strconv.Itoa(i)+"]") // named only when refused
		}
	}
	return recs, nil
}

// DecodeSeedReview decodes one review of a seed body into r, member by
// member by the record's field table, so that a problem names its field
// (path.key).
func DecodeSeedReview(raw json.RawMessage, path string, r *SeedReview) error {
	rv := reflect.ValueOf(r).Elem()
	return wire.EachMember(raw, path, func(key string, v json.RawMessage) error {
		f := lookup(key)
		switch {
		case f != nil:
			if err := f.decodeJSON(v, "", rv.FieldByIndex(f.seedIdx)); err != nil {
				return wire.At(err, path+"."+key) // named only when refused
			}
			return nil
		case key == "id":
			return wire.InvalidBody(path+"."+key, "is assigned: leave it out")
		}
		return wire.InvalidBody(path+"."+key, "unknown field")
	})
}

// decodeJSON decodes v, f's value in a seed body at path p, into dst,
// its SeedReview field; a pointer is set to what was given (but for a
// null video: none).
func (f *field) decodeJSON(v json.RawMessage, p string, dst reflect.Value) error {
	switch f.kind {
	case kindText, kindTime:
		s, err := wire.DecodeString(v, p)
		if err != nil {
			return err
		}
		target(dst).SetString(s)
	case kindInt:
		n, err := wire.DecodeInt(v, p)
		if err != nil {
			return err
		}
		if msg := f.intProblem(n); f.early && msg != "" {
			return wire.InvalidBody(p, "%s", msg)
		}
		target(dst).SetInt(n)
	case kindTags:
		tags := []string{}
		err := wire.EachElement(v, p, func(i int, e json.RawMessage) error {
			s, err := wire.DecodeString(e, "")
			tags = append(tags, s)
			if err != nil {
				return wire.At(err, p+"["+strconv.Itoa(i)+"]") // named only when refused
			}
			return nil
		})
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(tags))
	case kindPhotos:
		photos := []media.Photo{}
		err := wire.EachElement(v, p, func(i int, e json.RawMessage) error {
			var ph media.Photo
			err := photoShape.decodeJSON(e, fmt.Sprintf("%s[%d]", p, i), reflect.ValueOf(&ph))
			photos = append(photos, ph)
			return err
		})
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(photos))
	case kindVideo:
		if wire.JSONKind(v) == "null" {
			return nil
		}
		return videoShape.decodeJSON(v, p, target(dst).Addr())
	}
	return nil
}

// target is dst, a Go field of the table's kinds, to be set; for a
// pointer, a new value that dst points to.
func target(dst reflect.Value) reflect.Value {
	if dst.Kind() != reflect.Pointer {
		return dst
	}
	p := reflect.New(dst.Type().Elem())
	dst.Set(p)
	return p.Elem()
}

// set sets dst, a Go field of the table's kinds, to v, converted where
// its type is another of the same fields (media.Video, VideoFixture).
func set(dst, v reflect.Value) {
	t := target(dst)
	if v.Type() != t.Type() {
		v = v.Convert(t.Type())
	}
	t.Set(v)
}
