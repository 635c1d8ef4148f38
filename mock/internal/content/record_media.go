package content

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// shape is one of the record's media objects, in the upstream's shape:
// its members are the JSON names of media's Go type (media.Photo,
// media.Video), strings and integers. Fixtures decode it from YAML,
// seeds from JSON; both name it alike in their problems.
type shape struct {
	what   string            // how problems call it: "a photo"
	is     string            // what it is, as a seed's problems say
	orNull bool              // null stands for none
	keys   []string          // its members, in order
	idx    map[string]int    // each member's Go field
	ints   map[string]bool   // the integer members
	strs   []string          // the string members, in order
	old    map[string]string // keys of earlier versions (fixtures), with the key that replaced them ("" for gone)
}

var (
	photoShape = newShape[media.Photo]("a photo", false, nil)
	videoShape = newShape[media.Video]("a video", true, map[string]string{"id": "", "preview_image": "previewImage", "duration_sec": "durationSec"})
)

func newShape[T any](what string, orNull bool, old map[string]string) *shape {
	s := &shape{what: what, orNull: orNull, idx: map[string]int{}, ints: map[string]bool{}, old: old}
	for i, sf := range reflect.VisibleFields(reflect.TypeFor[T]()) {
		key, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		s.keys = append(s.keys, key)
		s.idx[key] = i
		s.ints[key] = sf.Type.Kind() == reflect.Int
		if !s.ints[key] {
			s.strs = append(s.strs, key)
		}
	}
	s.is = what + " is "
	if orNull {
		s.is += "null or "
	}
	s.is += "an object {" + strings.Join(s.keys, ", ") + "}, as upstream"
	return s
}

// member is v's member key, a string or an integer (the other nil), or
// neither for a key the shape has not; v is a pointer to the shape's
// media type, or to a type of the same fields.
func (s *shape) member(v reflect.Value, key string) (*string, *int) {
	i, ok := s.idx[key]
	if !ok {
		return nil, nil
	}
	p := v.Elem().Field(i).Addr().Interface()
	if s.ints[key] {
		return nil, p.(*int)
	}
	return p.(*string), nil
}

// str is v's string member key; v is a value of the shape's media type,
// or of a type of the same fields.
func (s *shape) str(v reflect.Value, key string) string { return v.Field(s.idx[key]).String() }

// PhotoFixture is a photo as a fixture writes it, the upstream's shape:
// {fullSize: URL, miniSize: URL}.
type PhotoFixture media.Photo

// UnmarshalYAML reads a photo mapping. A plain URL, the form of earlier
// versions, is refused with the form to write instead. Its errors are
// yaml.TypeErrors, so decoding goes on and each is placed at its line.
func (p *PhotoFixture) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return yamlfile.NodeProblem(n, "a photo is a mapping {fullSize: URL, miniSize: URL}, as upstream; got the plain URL %q "+
			"(the form of earlier versions): write {fullSize: %s, miniSize: <a smaller image>}", wire.Clip(n.Value), wire.Clip(n.Value))
	}
	return photoShape.decodeYAML(n, reflect.ValueOf(p))
}

// VideoFixture is a video as a fixture writes it, the upstream's shape:
// {previewImage: URL, link: URL of an HLS playlist, durationSec: N}.
type VideoFixture media.Video

// UnmarshalYAML reads a video mapping; the keys of earlier versions are
// refused with the key to write instead.
func (v *VideoFixture) UnmarshalYAML(n *yaml.Node) error {
	return videoShape.decodeYAML(n, reflect.ValueOf(v))
}

// decodeYAML decodes the mapping n into v (see member), strictly:
// unknown and duplicate keys are errors, and so is a key of earlier
// versions, with the key that replaced it.
func (s *shape) decodeYAML(n *yaml.Node, v reflect.Value) error {
	if n.Kind != yaml.MappingNode {
		return yamlfile.NodeProblem(n, "%s must be a mapping, got %s", s.what, yamlfile.DescribeTag(n.ShortTag()))
	}
	has := s.what + " has " + strings.Join(s.keys, ", ") + ", as upstream"
	var errs []string
	add := func(err error) {
		if te, ok := err.(*yaml.TypeError); ok {
			errs = append(errs, te.Errors...)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		str, num := s.member(v, k.Value)
		switch {
		case seen[k.Value]:
			add(yamlfile.NodeProblem(k, "duplicate key"))
		case (str != nil || num != nil) && val.Kind != yaml.ScalarNode:
			add(yamlfile.NodeProblem(val, "must be a %s, got %s", map[bool]string{true: "string", false: "integer"}[str != nil], yamlfile.DescribeTag(val.ShortTag())))
		case str != nil:
			*str = val.Value
			if val.ShortTag() == "!!null" {
				*str = ""
			}
		case num != nil:
			x, err := strconv.Atoi(val.Value)
			if val.ShortTag() != "!!int" || err != nil {
				add(yamlfile.NodeProblem(val, "must be an integer, got %q", val.Value))
			}
			*num = x
		default:
			switch repl, renamed := s.old[k.Value]; {
			case renamed && repl != "":
				add(yamlfile.NodeProblem(k, "unknown field: it is %s now (%s)", repl, has))
			case renamed:
				add(yamlfile.NodeProblem(k, "unknown field: it is gone (%s)", has))
			default:
				add(yamlfile.NodeProblem(k, "unknown field (%s)", has))
			}
		}
		seen[k.Value] = true
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// decodeJSON decodes the JSON object raw into v (see member), member by
// member, so that a problem names its path.
func (s *shape) decodeJSON(raw json.RawMessage, path string, v reflect.Value) error {
	if k := wire.JSONKind(raw); k != "object" {
		return wire.InvalidBody(path, "%s, got %s", s.is, k)
	}
	return wire.EachMember(raw, path, func(key string, val json.RawMessage) error {
		p := path + "." + key
		str, num := s.member(v, key)
		switch {
		case str != nil:
			var err error
			*str, err = wire.DecodeString(val, p)
			return err
		case num != nil:
			n, err := wire.DecodeInt(val, p)
			*num = int(n)
			return err
		}
		return wire.InvalidBody(p, "unknown field: %s", s.is)
	})
}
