package settings

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The places outside this package that list the settings fields, read
// from the repository by their path relative to this folder.
var (
	contract    = "../../API.md" // its Contract assumptions
	openAPIDocs = []string{"../../openapi.yaml", "../../admin-openapi.yaml"}
	panelFiles  = struct{ app, i18n, html string }{"../../ui/app.js", "../../ui/i18n.js", "../../ui/index.html"}
)

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTableMatchesDocuments holds the OpenAPI documents to the field
// table: each settings schema names the table's fields of its element,
// in order, with the kind, values and bounds the table gives them; the
// PATCH's description names the shared fields and those that stay per
// rating.
func TestTableMatchesDocuments(t *testing.T) {
	for _, name := range openAPIDocs {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(readFile(t, name)), &doc); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := openAPIDoc{t: t, name: name, root: doc.Content[0]}
		schemas := d.at(d.root, "components", "schemas")
		d.checkSchema(t, "FeedbackSettings", d.at(schemas, "FeedbackSettings"), inFeedback, fieldNames(inFeedback))
		d.checkSchema(t, "QuestionSettings", d.at(schemas, "QuestionSettings"), inQuestion, fieldNames(inQuestion))
		if patch := child(schemas, "SettingsPatch"); patch != nil || name == openAPIDocs[0] {
			var keys []string
			for _, f := range fields {
				if f.key {
					keys = append(keys, f.name)
				}
			}
			d.checkSchema(t, "SettingsPatch feedback element", d.at(patch, "properties", "feedback", "items"), inFeedback, keys)
			d.checkSchema(t, "SettingsPatch question", d.at(patch, "properties", "question"), inQuestion, nil)
		}
		if name == openAPIDocs[0] {
			checkPatchDescription(t, name, d.at(d.root, "paths", "/settings/ai", "patch", "description").Value)
		}
	}
}

// checkPatchDescription reads the sentence of the PATCH's description
// that lists the shared fields and the per-rating ones.
func checkPatchDescription(t *testing.T, doc, text string) {
	text = strings.Join(strings.Fields(text), " ")
	perRating := perRatingNames()
	for _, c := range []struct {
		re   *regexp.Regexp
		want []string
	}{
		{regexp.MustCompile("`" + unifiedName + "` is one flag shown in every element; while it is 1, (.+?) are equal in all five elements"), sharedNames()},
		{regexp.MustCompile(`\)\. ([a-z_, ]+?) stay per rating`), perRating},
	} {
		m := c.re.FindStringSubmatch(text)
		if m == nil {
			t.Errorf("%s: the settings PATCH's description has no part that matches %q", doc, c.re)
			continue
		}
		if got := splitList(m[1]); !slices.Equal(got, c.want) {
			t.Errorf("%s: the settings PATCH's description names %v, the field table %v", doc, got, c.want)
		}
	}
}

// perRatingNames lists the per-rating values that unified settings do
// not share, in order.
func perRatingNames() []string {
	var names []string
	for _, f := range fields {
		if f.in&inFeedback != 0 && !f.shared && !f.key && f.name != unifiedName {
			names = append(names, f.name)
		}
	}
	return names
}

// TestTableMatchesREADME holds the documented contract for the settings
// (mock/API.md's Contract assumptions) to
// the field table: the values of each enum, the length of each text, the
// shared fields and those that stay per rating.
func TestTableMatchesREADME(t *testing.T) {
	_, section, _ := strings.Cut(readFile(t, contract), "\n**GET/PATCH /settings/ai**\n")
	section, _, _ = strings.Cut(section, "\n**")
	if section == "" {
		t.Fatalf("%s: no GET/PATCH /settings/ai section", contract)
	}
	names := func(s string) []string { return splitList(strings.ReplaceAll(s, "`", "")) }
	enums, lengths := map[string]string{}, map[string]string{}
	for _, m := range regexp.MustCompile("`([a-z_]+)` in ((?:`[a-z_]+`(?:, )?)+)").FindAllStringSubmatch(section, -1) {
		enums[m[1]] = strings.Join(names(m[2]), ",")
	}
	_, lens, _ := strings.Cut(section, "lengths in characters: ")
	lens, _, _ = strings.Cut(lens, ".\n")
	for _, m := range regexp.MustCompile("((?:`[a-z_]+`(?:, | and )?)+) <= (\\d+)").FindAllStringSubmatch(lens, -1) {
		for _, n := range names(m[1]) {
			lengths[n] = m[2]
		}
	}
	wantEnums, wantLengths := map[string]string{}, map[string]string{}
	for _, f := range fields {
		switch f.kind {
		case kindEnum:
			wantEnums[f.name] = strings.Join(f.values, ",")
		case kindText:
			wantLengths[f.name] = strconv.Itoa(f.max)
		}
	}
	if !maps.Equal(enums, wantEnums) {
		t.Errorf("%s: the settings' enums are %v; the field table's %v", contract, enums, wantEnums)
	}
	if !maps.Equal(lengths, wantLengths) {
		t.Errorf("%s: the settings' lengths are %v; the field table's %v", contract, lengths, wantLengths)
	}
	for _, c := range []struct {
		re   string
		want []string
	}{
		{`the shared fields \(([^)]*)\) are equal`, sharedNames()},
		{"((?:`[a-z_]+`(?:, | and )?)+) always stay per rating", perRatingNames()},
	} {
		m := regexp.MustCompile(c.re).FindStringSubmatch(section)
		if m == nil {
			t.Errorf("%s: the settings section has no part that matches %q", contract, c.re)
		} else if got := names(m[1]); !slices.Equal(got, c.want) {
			t.Errorf("%s: the settings section names %v, the field table %v", contract, got, c.want)
		}
	}
}

// splitList splits "a, b and c" into its names.
func splitList(s string) []string {
	return strings.Split(strings.NewReplacer(" and ", ", ").Replace(s), ", ")
}

type openAPIDoc struct {
	t    *testing.T
	name string
	root *yaml.Node
}

// child is the value of key in the mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// at walks the mappings from n by keys; a missing one fails the test.
func (d openAPIDoc) at(n *yaml.Node, keys ...string) *yaml.Node {
	for i, k := range keys {
		if n = child(n, k); n == nil {
			d.t.Fatalf("%s: no %s", d.name, strings.Join(keys[:i+1], "."))
		}
	}
	return n
}

// resolve follows a $ref within the document.
func (d openAPIDoc) resolve(n *yaml.Node) *yaml.Node {
	if ref := child(n, "$ref"); ref != nil {
		path := strings.Split(strings.TrimPrefix(ref.Value, "#/"), "/")
		return d.at(d.root, path...)
	}
	return n
}

// checkSchema compares the object schema s of one element with the
// table's fields of in, and its required list with required.
func (d openAPIDoc) checkSchema(t *testing.T, what string, s *yaml.Node, in elements, required []string) {
	t.Helper()
	where := d.name + ": " + what
	if ap := child(s, "additionalProperties"); ap == nil || ap.Value != "false" {
		t.Errorf("%s: additionalProperties must be false: the API refuses unknown fields", where)
	}
	var req []string
	if r := child(s, "required"); r != nil {
		r.Decode(&req)
	}
	if !slices.Equal(req, required) {
		t.Errorf("%s: required %v, want %v", where, req, required)
	}
	props := d.at(s, "properties")
	var names []string
	for i := 0; i+1 < len(props.Content); i += 2 {
		name := props.Content[i].Value
		names = append(names, name)
		if f := lookup(name, in); f != nil {
			for _, p := range schemaProblems(f, d.resolve(props.Content[i+1])) {
				t.Errorf("%s.%s: %s", where, name, p)
			}
		}
	}
	if want := fieldNames(in); !slices.Equal(names, want) {
		t.Errorf("%s: properties %v; the field table has %v", where, names, want)
	}
}

// schemaProblems compares a property's schema with its field's row.
func schemaProblems(f *field, s *yaml.Node) []string {
	get := func(k string) string {
		if n := child(s, k); n != nil {
			return n.Value
		}
		return ""
	}
	var enum []string
	if n := child(s, "enum"); n != nil {
		n.Decode(&enum)
	}
	want := map[string]string{}
	var wantEnum []string
	switch f.kind {
	case kindEnum:
		want["type"], wantEnum = "string", f.values
	case kindText:
		want["type"], want["maxLength"] = "string", strconv.Itoa(f.max)
		if f.nonBlank {
			want["minLength"] = "1"
		}
	case kindDate:
		want["type"], want["format"], want["nullable"] = "string", "date", "true"
	case kindBool:
		want["type"], wantEnum = "integer", []string{"0", "1"}
	case kindInt:
		want["type"], want["minimum"], want["maximum"] = "integer", strconv.Itoa(f.min), strconv.Itoa(f.max)
	}
	var probs []string
	for _, k := range []string{"type", "format", "nullable", "minLength", "maxLength", "minimum", "maximum"} {
		if got := get(k); got != want[k] {
			probs = append(probs, k+" is "+strconv.Quote(got)+", the field table says "+strconv.Quote(want[k]))
		}
	}
	if !slices.Equal(enum, wantEnum) {
		probs = append(probs, "enum is "+strings.Join(enum, ",")+", the field table says "+strings.Join(wantEnum, ","))
	}
	return probs
}

// TestTableMatchesPanel holds the control panel to the field table: the
// settings fields app.js shows are those the table gives a panel key,
// each key names a column of the settings table in index.html or a line
// app.js writes, and i18n.js has words for it in every language.
func TestTableMatchesPanel(t *testing.T) {
	app, i18n, html := readFile(t, panelFiles.app), readFile(t, panelFiles.i18n), readFile(t, panelFiles.html)
	_, body, ok := strings.Cut(app, "async function loadSettings() {")
	body, _, ok2 := strings.Cut(body, "\n}\n")
	if !ok || !ok2 {
		t.Fatalf("%s: no function loadSettings, which shows the settings", panelFiles.app)
	}
	shown := map[string]bool{}
	for _, m := range regexp.MustCompile(`\b(?:e|s\.question|s\.feedback\[\d+\])\.([a-z_]+)`).FindAllStringSubmatch(body, -1) {
		shown[m[1]] = true
	}
	_, thead, _ := strings.Cut(html, `<table id="settings">`)
	thead, _, _ = strings.Cut(thead, "</thead>")
	columns := map[string]bool{}
	for _, m := range regexp.MustCompile(`data-i18n="([\w-]+)"`).FindAllStringSubmatch(thead, -1) {
		columns[m[1]] = true
	}
	langs := messageBlocks(t, i18n)
	keys := map[string]bool{}
	for _, f := range fields {
		if f.panel == "" {
			if shown[f.name] {
				t.Errorf("%s shows %s, which the field table gives no panel key", panelFiles.app, f.name)
			}
			continue
		}
		keys[f.panel] = true
		if !shown[f.name] {
			t.Errorf("%s does not show %s, which the field table shows under %q", panelFiles.app, f.name, f.panel)
		}
		if !columns[f.panel] && !strings.Contains(body, strconv.Quote(f.panel)) {
			t.Errorf("%q (%s) is neither a column of the settings table in %s nor a line loadSettings writes", f.panel, f.name, panelFiles.html)
		}
		for lang, block := range langs {
			if !strings.Contains(block, strconv.Quote(f.panel)+":") {
				t.Errorf("%s: language %s has no words for %q (%s)", panelFiles.i18n, lang, f.panel, f.name)
			}
		}
	}
	for name := range shown {
		if lookup(name, inBoth) == nil {
			t.Errorf("%s shows the settings field %s, which the field table does not have", panelFiles.app, name)
		}
	}
	for key := range columns {
		if !keys[key] {
			t.Errorf("%s: the settings table has a column %q that no field of the table shows", panelFiles.html, key)
		}
	}
}

// messageBlocks splits i18n.js's MESSAGES into its languages.
func messageBlocks(t *testing.T, src string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?ms)^  (\w+): \{\n(.*?)^  \},`).FindAllStringSubmatch(src, -1) {
		out[m[1]] = m[2]
	}
	if len(out) < 2 {
		t.Fatalf("%s: found the words of %d languages, want en and ru at least", panelFiles.i18n, len(out))
	}
	return out
}
