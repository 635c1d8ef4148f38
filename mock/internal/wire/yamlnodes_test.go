package wire

import (
	"math/rand/v2"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// nodes counts the nodes of a yaml.v3 tree, as YAMLNodes bounds them.
func nodes(n *yaml.Node) int {
	c := 1
	for _, k := range n.Content {
		c += nodes(k)
	}
	return c
}

// yamlPieces are what random documents are made of: every indicator,
// alone and with a blank, scalars of each style, line breaks of each
// kind, comments, tags, anchors and aliases, document markers.
var yamlPieces = []string{
	"- ", "-", ":", ": ", "? ", "?", ",", ", ", "[", "]", "{", "}", "a", "b c", "x:y", "-1", "a-b",
	"'q'", "'", "''", "\"x\"", "\"", "\\\"", "\n", "\r\n", "\r", "\u0085", "\u2028", "\u2029", "  ", " ", "\t",
	"#c", " # c", "&a ", "*a", "!!str ", "!t ", "|\n", ">-\n", "---\n", "...\n", "%YAML 1.2\n",
	"k: v\n", "- a\n", "{a: b}", "[a, b]", "{a, b}", "[a: b]", "[? a]", "- - ", "? a\n: b\n", "\ufeff",
}

// YAMLNodes is never below the number of nodes yaml.v3 builds, for any
// document yaml.v3 reads (a property over many random ones), and is near
// it for a document as people and the server write them.
func TestYAMLNodesBoundsTheTree(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	parsed := 0
	for range 60_000 {
		var b strings.Builder
		for range 1 + rng.IntN(24) {
			b.WriteString(yamlPieces[rng.IntN(len(yamlPieces))])
		}
		doc := b.String()
		var n yaml.Node
		if yaml.Unmarshal([]byte(doc), &n) != nil {
			continue
		}
		parsed++
		if got, want := YAMLNodes([]byte(doc)), nodes(&n); got < want {
			t.Fatalf("YAMLNodes(%q) = %d; yaml.v3 builds %d", doc, got, want)
		}
	}
	if parsed < 10_000 {
		t.Errorf("only %d of the random documents parse: the property is barely tried", parsed)
	}
	for _, tc := range []struct {
		doc  string
		most float64 // counted at most this many times the nodes
	}{
		{"kind: reviews\nreviews:\n  - product_valuation: 5\n    text: Хороший товар, советую\n    created_date: \"2026-10-02 10:15:00\"\n    valuation_tags: [качество, цена]\n    photos:\n      - fullSize: https://example.com/a/fs.jpg\n        miniSize: https://example.com/a/ms.jpg\n", 1.6},
		{strings.Repeat("- {a: 1, b: [x, y]}\n", 100), 2.1},
		{strings.Repeat("-\n", 100), 2.1},
		{"[" + strings.Repeat("a,", 100) + "a]", 2.1},
	} {
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(tc.doc), &n); err != nil {
			t.Fatal(err)
		}
		got, real := YAMLNodes([]byte(tc.doc)), nodes(&n)
		if got < real || float64(got) > tc.most*float64(real) {
			t.Errorf("YAMLNodes(%.40q...) = %d for %d nodes; want %d to %.0f", tc.doc, got, real, real, tc.most*float64(real))
		}
	}
}

// A UTF-16 document, which yaml.v3 reads by its byte order mark, is
// counted as the text it stands for.
func TestYAMLNodesUTF16(t *testing.T) {
	doc := "a: b\nc: [d, e]\n"
	for _, enc := range [][]byte{utf16LE(doc), utf16BE(doc)} {
		var n yaml.Node
		if err := yaml.Unmarshal(enc, &n); err != nil {
			t.Fatal(err)
		}
		if got, want := YAMLNodes(enc), YAMLNodes([]byte(doc)); got != want || got < nodes(&n) {
			t.Errorf("UTF-16: %d; as UTF-8: %d, nodes %d", got, want, nodes(&n))
		}
	}
}

func utf16LE(s string) []byte {
	b := []byte{0xFF, 0xFE}
	for _, r := range s {
		b = append(b, byte(r), byte(r>>8))
	}
	return b
}

func utf16BE(s string) []byte {
	b := []byte{0xFE, 0xFF}
	for _, r := range s {
		b = append(b, byte(r>>8), byte(r))
	}
	return b
}
