package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"

	"gopkg.in/yaml.v3"
)

var yamlTypes = []string{"application/yaml", "application/x-yaml", "text/yaml"}

// Body says how a route reads a document body: its limits, each said in
// the 413 of a body past it, and its shape, checked before the body is
// decoded.
type Body struct {
	Limit int64  // bytes of JSON at most
	Bound string // what Limit stands for, said in its 413
	// YAMLLimit bounds a YAML body's bytes, and YAMLNodes what yaml.v3
	// builds of it (as YAMLNodes counts them): YAML takes many times its
	// size while it is read, and a bigger one goes as JSON (YAMLBound).
	YAMLLimit int64
	YAMLNodes int
	YAMLBound string
	Shape     *Shape
}

// What reading, checking and decoding a body costs at most, as a
// multiple of its bytes for JSON; for YAML, its bytes YAMLCost times and
// what yaml.v3 builds for each value YAMLNodes counts (some 270 bytes).
// Tests hold the server's bodies to them at their limits.
const (
	JSONCost      = 5
	YAMLCost      = 4
	YAMLValueCost = 280
)

// Cost is the most that reading and checking r's body may cost.
func (b *Body) Cost(r *http.Request) int64 {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	limit, isYAML := b.Limit, slices.Contains(yamlTypes, mt)
	if isYAML {
		limit = b.YAMLLimit
	}
	n := limit
	if r.ContentLength >= 0 {
		n = min(r.ContentLength, limit)
	}
	if isYAML {
		return YAMLCost*n + YAMLValueCost*min(int64(b.YAMLNodes), 3*n+2) // YAMLNodes counts 3 a byte at most
	}
	return JSONCost * n
}

// ReadDocument reads a request body of JSON or YAML, by its Content-Type,
// within b's limits, as JSON checked against b's shape, so that one
// decoder checks both.
func ReadDocument(r *http.Request, b *Body) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	isYAML := err == nil && slices.Contains(yamlTypes, mt)
	if err != nil || mt != "application/json" && !isYAML {
		return nil, &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Type must be application/json, or for YAML application/yaml, application/x-yaml or text/yaml; got %q%s", ct, formHint(mt))}
	}
	limit, bound := b.Limit, b.Bound
	if isYAML {
		limit, bound = b.YAMLLimit, b.YAMLBound
	}
	body, err := readBody(nil, r, limit, bound)
	if err != nil {
		return nil, err
	}
	if isYAML {
		if n := YAMLNodes(body); n > b.YAMLNodes {
			return nil, &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge,
				Message: fmt.Sprintf("the YAML body may hold more than %d values (keys, values, lists and maps, counted by its lines and punctuation), and YAML costs many times its size to read (%s)", b.YAMLNodes, b.YAMLBound)}
		}
		if body, err = YAMLToJSON(body); err != nil {
			return nil, err
		}
	}
	if err := b.Shape.Check(body); err != nil {
		return nil, err
	}
	return body, nil
}

// readBody reads r's body, of at most limit bytes (bound says what the
// limit stands for). It is refused unread when its length says it is
// over, so that a client that sent Expect: 100-continue is not asked for
// a body that would be thrown away.
func readBody(w http.ResponseWriter, r *http.Request, limit int64, bound string) ([]byte, error) {
	msg := fmt.Sprintf("request body is larger than %d bytes", limit)
	if bound != "" {
		msg += " (" + bound + ")"
	}
	tooLarge := &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge, Message: msg}
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	rd := http.MaxBytesReader(w, r.Body, limit)
	var body []byte
	var err error
	if r.ContentLength >= 0 {
		body, err = readAnnounced(rd, r.ContentLength)
	} else {
		body, err = io.ReadAll(rd)
	}
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case err != nil:
		return nil, InvalidBody("", "reading request body: %v", err)
	}
	return body, nil
}

// YAMLToJSON turns a YAML document into the JSON document it stands for,
// keys in order. Keys must be plain names; anchors, aliases and merge
// keys are refused.
func YAMLToJSON(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, InvalidBody("", "YAML: %s", Clip(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty: the JSON decoder says so
	}
	// The JSON is about as long as the YAML. Duplicate keys pass: the JSON
	// decoder refuses them, naming the key.
	buf := bytes.NewBuffer(make([]byte, 0, len(data)))
	enc := jsontext.NewEncoder(buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true), jsontext.EscapeForJS(true))
	if err := writeYAML(enc, doc.Content[0], ""); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeYAML writes a YAML node as JSON; path names it in errors.
func writeYAML(enc *jsontext.Encoder, n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		enc.WriteToken(jsontext.BeginObject)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return InvalidBody(path, "YAML: keys must be plain names, at line %d", k.Line)
			}
			enc.WriteToken(jsontext.String(k.Value))
			if err := writeYAML(enc, v, JoinPath(path, k.Value)); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndObject)
	case yaml.SequenceNode:
		enc.WriteToken(jsontext.BeginArray)
		for i, e := range n.Content {
			if err := writeYAML(enc, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndArray)
	case yaml.ScalarNode:
		if tooBig(n) {
			return enc.WriteValue(jsontext.Value(n.Value)) // the decoder refuses it
		}
		return enc.WriteToken(yamlScalar(n))
	case yaml.AliasNode:
		return InvalidBody(path, "YAML: anchors and aliases are not supported (line %d)", n.Line)
	}
	return InvalidBody(path, "YAML: unexpected node at line %d", n.Line)
}

// tooBig reports whether n is an integer too big for 64 bits.
func tooBig(n *yaml.Node) bool {
	if n.ShortTag() != "!!int" {
		return false
	}
	_, err := ParseDigits(strings.TrimPrefix(n.Value, "-"))
	return errors.Is(err, strconv.ErrRange)
}

// yamlScalar is the JSON value of a scalar by its tag; timestamps,
// infinities and the rest are strings.
func yamlScalar(n *yaml.Node) jsontext.Token {
	switch n.ShortTag() {
	case "!!null":
		return jsontext.Null
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return jsontext.Bool(v)
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return jsontext.Int(v)
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return jsontext.Float(v)
		}
	}
	return jsontext.String(n.Value)
}

// YAMLNodes is at least the number of nodes yaml.v3 builds of data (its
// tree: the document, every map, list and scalar), counted without
// building them, so that a body is refused before it costs what they
// would. Every node either starts a run of text on a line (a scalar, an
// alias; a tag or anchor goes with its node's run) or stands for an
// indicator as yaml.v3's scanner reads them: a flow collection's "[" or
// "{"; a block list's "-" entry; a map's ":" or "?" key; an empty scalar
// where a key or value is missing beside ":", "?", "-", ",", "]" or "}".
// An indicator counts where the scanner could read one, or more often:
// "," "?" "[" "]" "{" "}" anywhere (they end a plain scalar in a flow),
// ":" before a blank or where no run is open, "-" where no run is open;
// each counts 1, more where it may stand for more nodes. Counting more
// is safe, fewer is not; what a run holds (quotes, commas of a plain
// scalar in a block) is never skipped. Line breaks are YAML's: CR, LF,
// NEL, LS and PS.
func YAMLNodes(data []byte) int {
	data = utf8Text(data)
	n := 2 // the document, and its value
	inRun := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case lineBreak(data[i:]) > 0:
			i += lineBreak(data[i:]) - 1
			inRun = false
		case c == ' ' || c == '\t':
		case bytes.HasPrefix(data[i:], bom):
			i += len(bom) - 1 // read as nothing, or as text: neither starts a run
		case c == ',' || c == ']' || c == '}':
			n++ // an empty value before it
			inRun = false
		case c == '[' || c == '{':
			n++ // the collection
			inRun = false
		case c == '?':
			n += 2 + emptyAfter(data, i) // a map, an empty value; an empty key
			inRun = false
		case c == ':' && (!inRun || i+1 == len(data) || isBlankOrBreak(data[i+1:])):
			n += 1 + emptyAfter(data, i) // a map; an empty value
			if !inRun {
				n++ // an empty key
			}
			inRun = false
		case c == '-' && !inRun:
			n += 1 + emptyAfter(data, i) // a list; an empty entry
		default:
			if !inRun {
				n++
				inRun = true
			}
		}
	}
	return n
}

// emptyAfter is 1 when the indicator at data[i] may have an empty node
// after it: nothing but blanks follow on its line before its end, a
// comment, or an indicator that closes or parts what it is in.
func emptyAfter(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case c == ' ' || c == '\t':
		case c == '#' || c == ',' || c == ']' || c == '}' || c == '?' || c == ':' || lineBreak(data[j:]) > 0:
			return 1
		default:
			return 0
		}
	}
	return 1
}

var bom = []byte("\ufeff")

// utf8Text is data as UTF-8: a UTF-16 document, which yaml.v3 reads by
// its byte order mark, is decoded; others are returned as they are.
func utf8Text(data []byte) []byte {
	if !bytes.HasPrefix(data, []byte{0xFF, 0xFE}) && !bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return data
	}
	text, _, err := transform.Bytes(unicode.BOMOverride(transform.Nop), data)
	if err != nil {
		return data
	}
	return text
}

// lineBreak is the length of the line break data starts with: CR, LF,
// NEL (C2 85), LS (E2 80 A8) or PS (E2 80 A9); 0 for none.
func lineBreak(data []byte) int {
	switch {
	case len(data) >= 1 && (data[0] == '\n' || data[0] == '\r'):
		return 1
	case len(data) >= 2 && data[0] == 0xC2 && data[1] == 0x85:
		return 2
	case len(data) >= 3 && data[0] == 0xE2 && data[1] == 0x80 && (data[2] == 0xA8 || data[2] == 0xA9):
		return 3
	}
	return 0
}

func isBlankOrBreak(data []byte) bool {
	return data[0] == ' ' || data[0] == '\t' || lineBreak(data) > 0
}

// firstChunk is what a body's buffer holds before its bytes show that
// they come: a client that announces a megabyte and sends a byte now and
// then holds this much of the server's, not the megabyte.
const firstChunk = 64 << 10

// readAnnounced reads a body of n bytes announced: the first firstChunk
// into a small buffer, then, once they have come, the rest into one of
// n. A body shorter or longer than n is an error.
func readAnnounced(rd io.Reader, n int64) ([]byte, error) {
	body := make([]byte, min(n, firstChunk))
	if _, err := io.ReadFull(rd, body); err != nil {
		return nil, err
	}
	if n > firstChunk {
		whole := make([]byte, n)
		copy(whole, body)
		if _, err := io.ReadFull(rd, whole[firstChunk:]); err != nil {
			return nil, err
		}
		body = whole
	}
	if k, err := rd.Read(make([]byte, 1)); k > 0 || err == nil {
		return nil, errors.New("body longer than its Content-Length")
	} else if err != io.EOF {
		return nil, err
	}
	return body, nil
}
