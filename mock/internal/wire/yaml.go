package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// yamlTypes are the Content-Types of a YAML body.
var yamlTypes = []string{"application/yaml", "application/x-yaml", "text/yaml"}

// ReadDocument reads a request body of JSON (at most limit bytes) or
// YAML (at most yamlLimit: decoded, YAML takes many times its size), by
// its Content-Type, as JSON (YAMLToJSON), so that one decoder checks
// both; bound and yamlBound say what the limits are for a request that
// passes one (413).
func ReadDocument(r *http.Request, limit, yamlLimit int64, bound, yamlBound string) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	isYAML := err == nil && (mt == yamlTypes[0] || mt == yamlTypes[1] || mt == yamlTypes[2])
	if err != nil || mt != "application/json" && !isYAML {
		return nil, &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Type must be application/json, or for YAML application/yaml, application/x-yaml or text/yaml; got %q", ct)}
	}
	if isYAML {
		limit, bound = yamlLimit, yamlBound
	}
	tooLarge := &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge,
		Message: fmt.Sprintf("request body is larger than %d bytes (%s)", limit, bound)}
	if r.ContentLength > limit {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		return nil, tooLarge
	case err != nil:
		return nil, InvalidBody("", "reading request body: %v", err)
	}
	if isYAML {
		return YAMLToJSON(body)
	}
	return body, nil
}

// YAMLToJSON turns a YAML document into the JSON document it stands for,
// keys in order, so that one decoder checks both. Keys must be plain
// names; anchors, aliases and merge keys are refused. An empty document
// gives nothing, which the JSON decoder refuses in its own words.
func YAMLToJSON(data []byte) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, InvalidBody("", "YAML: %s", Clip(strings.TrimPrefix(err.Error(), "yaml: ")))
	}
	if len(doc.Content) == 0 {
		return nil, nil // empty: the JSON decoder says so
	}
	var c yamlConverter
	return c.append(nil, doc.Content[0], "")
}

// yamlConverter writes YAML nodes as JSON; its encoder, which writes
// strings as encoding/json does without HTML escaping, is reused from
// one string to the next.
type yamlConverter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func (c *yamlConverter) append(b []byte, n *yaml.Node, path string) ([]byte, error) {
	var err error
	switch n.Kind {
	case yaml.MappingNode:
		b = append(b, '{')
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || k.Tag == "!!merge" {
				return nil, InvalidBody(path, "YAML: keys must be plain names, at line %d", k.Line)
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = c.appendString(b, k.Value)
			b = append(b, ':')
			if b, err = c.append(b, v, JoinPath(path, k.Value)); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case yaml.SequenceNode:
		b = append(b, '[')
		for i, e := range n.Content {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = c.append(b, e, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case yaml.ScalarNode:
		return c.appendScalar(b, n), nil
	case yaml.AliasNode:
		return nil, InvalidBody(path, "YAML: anchors and aliases are not supported (line %d)", n.Line)
	}
	return nil, InvalidBody(path, "YAML: unexpected node at line %d", n.Line)
}

// appendScalar writes a scalar as the JSON value of its tag: null, a
// boolean, an integer (one too big for 64 bits as its digits, which the
// decoder refuses) or a number; strings, timestamps and the rest as
// strings.
func (c *yamlConverter) appendScalar(b []byte, n *yaml.Node) []byte {
	switch n.ShortTag() {
	case "!!null":
		return append(b, "null"...)
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return strconv.AppendBool(b, v)
		}
	case "!!int":
		var v int64
		if n.Decode(&v) == nil {
			return strconv.AppendInt(b, v, 10)
		}
		if isDigits(strings.TrimPrefix(n.Value, "-")) {
			return append(b, n.Value...) // too big: the decoder says so
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil {
			if js, err := json.Marshal(v); err == nil {
				return append(b, js...)
			}
		}
	}
	return c.appendString(b, n.Value)
}

// appendString writes s as a JSON string, as encoding/json does without
// HTML escaping: invalid UTF-8 becomes U+FFFD, U+2028 and U+2029 are
// escaped.
func (c *yamlConverter) appendString(b []byte, s string) []byte {
	if c.enc == nil {
		c.enc = json.NewEncoder(&c.buf)
		c.enc.SetEscapeHTML(false)
	}
	c.buf.Reset()
	c.enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(c.buf.Bytes(), []byte("\n"))...)
}

func isDigits(s string) bool {
	_, err := ParseDigits(s)
	return err == nil || errors.Is(err, strconv.ErrRange)
}
