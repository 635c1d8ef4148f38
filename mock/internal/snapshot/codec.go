package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// Decode reads a snapshot document, JSON or YAML, strictly: an unknown
// field is an error naming it.
func Decode(data []byte) (*Snapshot, error) { return decode(data, true) }

// DecodeJSON is Decode of JSON alone, for a body a request's
// Content-Type has made JSON already (wire.ReadDocument).
func DecodeJSON(data []byte) (*Snapshot, error) { return decode(data, false) }

func decode(data []byte, allowYAML bool) (*Snapshot, error) {
	data = bytes.TrimSpace(data)
	if allowYAML && len(data) > 0 && data[0] != '{' {
		js, err := wire.YAMLToJSON(data)
		if err != nil {
			return nil, err
		}
		data = js
	}
	var snap Snapshot
	if err := wire.DecodeStrict(data, &snap); err != nil {
		return nil, err
	}
	return &snap, snap.check()
}

// Marshal writes snap as JSON, or as YAML (block style, the reviews
// among it as readable as the rest).
func Marshal(snap *Snapshot, asYAML bool) ([]byte, error) {
	js, err := json.Marshal(snap)
	if err != nil || !asYAML {
		return js, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// blockStyle drops the flow style and quotes JSON gave every node: the
// encoder quotes what needs it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// RedactTokens hides the bearer tokens of the session's auth override:
// a snapshot is made to be handed on, and secrets never leave the server.
func (snap *Snapshot) RedactTokens() {
	if o := snap.Overrides; o != nil && o.Auth != nil && len(o.Auth.Tokens) > 0 {
		c, a := *o, *o.Auth
		a.Tokens = []string{wire.Redacted}
		c.Auth = &a
		snap.Overrides = &c
	}
}

// IsSnapshot reports whether data is a snapshot document (its format
// key names one), rather than a scenario or fixture.
func IsSnapshot(data []byte) bool {
	// Top reads the node tree only: decoding would cost a mapping of n
	// keys n² comparisons.
	return strings.HasPrefix(yamlfile.Top(data, "format"), "replymock-snapshot/")
}

// Validate checks a snapshot file by giving it to restore, which
// restores it where the caller wants it checked. A problem names the
// file and the field; notes say what would not come back.
func Validate(path string, data []byte, restore func(*Snapshot) (Result, error)) (notes []string, err error) {
	if len(data) > MaxBytes {
		return nil, &yamlfile.Problem{File: path, Message: fmt.Sprintf("larger than a snapshot may be (%d MiB)", MaxBytes>>20)}
	}
	snap, err := Decode(data)
	if err == nil {
		var res Result
		res, err = restore(snap)
		notes = res.Dropped
	}
	if ae, ok := err.(*wire.APIError); ok {
		return nil, &yamlfile.Problem{File: path, Field: ae.Field, Message: ae.Message}
	}
	return notes, err
}
