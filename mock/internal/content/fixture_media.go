package content

import (
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// PhotoFixture is a photo as a fixture writes it, the upstream's shape:
// {fullSize: URL, miniSize: URL}.
type PhotoFixture struct {
	FullSize string
	MiniSize string
}

// UnmarshalYAML reads a photo mapping. A plain URL, the form of earlier
// versions, is refused with the form to write instead. Its errors are
// yaml.TypeErrors, so decoding goes on and each is placed at its line.
func (p *PhotoFixture) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return yamlfile.NodeProblem(n, "a photo is a mapping {fullSize: URL, miniSize: URL}, as upstream; got the plain URL %q "+
			"(the form of earlier versions): write {fullSize: %s, miniSize: <a smaller image>}", wire.Clip(n.Value), wire.Clip(n.Value))
	}
	return decodeMapping(n, "a photo", []string{"fullSize", "miniSize"},
		map[string]*string{"fullSize": &p.FullSize, "miniSize": &p.MiniSize}, nil, nil)
}

// VideoFixture is a video as a fixture writes it, the upstream's shape:
// {previewImage: URL, link: URL of an HLS playlist, durationSec: N}.
type VideoFixture struct {
	PreviewImage string
	Link         string
	DurationSec  int
}

// oldVideoKeys are the video's keys in earlier versions.
var oldVideoKeys = map[string]string{"id": "", "preview_image": "previewImage", "duration_sec": "durationSec"}

// UnmarshalYAML reads a video mapping; the keys of earlier versions are
// refused with the key to write instead.
func (v *VideoFixture) UnmarshalYAML(n *yaml.Node) error {
	return decodeMapping(n, "a video", []string{"previewImage", "link", "durationSec"},
		map[string]*string{"previewImage": &v.PreviewImage, "link": &v.Link}, map[string]*int{"durationSec": &v.DurationSec}, oldVideoKeys)
}

// decodeMapping decodes the mapping n of string and integer fields (keys
// lists them all, in the order messages name them), strictly: unknown
// and duplicate keys are errors, and so is a key of old, with the key
// that replaced it. what names the value in messages.
func decodeMapping(n *yaml.Node, what string, keys []string, strs map[string]*string, ints map[string]*int, old map[string]string) error {
	if n.Kind != yaml.MappingNode {
		return yamlfile.NodeProblem(n, "%s must be a mapping, got %s", what, yamlfile.DescribeTag(n.ShortTag()))
	}
	has := what + " has " + strings.Join(keys, ", ") + ", as upstream"
	var errs []string
	add := func(err error) {
		if te, ok := err.(*yaml.TypeError); ok {
			errs = append(errs, te.Errors...)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		str, num := strs[k.Value], ints[k.Value]
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
			v, err := strconv.Atoi(val.Value)
			if val.ShortTag() != "!!int" || err != nil {
				add(yamlfile.NodeProblem(val, "must be an integer, got %q", val.Value))
			}
			*num = v
		default:
			switch repl, renamed := old[k.Value]; {
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
