package content

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// The table is the API's record but for id, which the server assigns:
// the same names in the same order. A field of the record is a row, and
// so is in both formats.
func TestTableIsTheRecord(t *testing.T) {
	var names []string
	for _, sf := range reflect.VisibleFields(reflect.TypeFor[reviews.Feedback]()) {
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		names = append(names, name)
	}
	if want := append([]string{"id"}, fieldNames()...); !slices.Equal(names, want) {
		t.Errorf("reviews.Feedback has the fields\n  %v\nthe record's table lists (with id)\n  %v", names, want)
	}
	for _, f := range fields {
		if f.seed == fillProduct {
			var rf ReviewFixture
			Product{}.fill(f.name, reflect.ValueOf(&rf).Elem().FieldByIndex(f.fixtureIdx)) // panics for a field products lack
		}
		if f.fixture == required && f.seed == asFixture && f.about == "" {
			t.Errorf("%s: required of a seed too, without what its message calls it (about)", f.name)
		}
	}
}

// The media shapes are media's types: their keys are the JSON names of
// media.Photo and media.Video, in order.
func TestShapesAreMediaTypes(t *testing.T) {
	for _, tc := range []struct {
		s    *shape
		keys []string
	}{
		{photoShape, []string{"fullSize", "miniSize"}},
		{videoShape, []string{"previewImage", "link", "durationSec"}},
	} {
		if !slices.Equal(tc.s.keys, tc.keys) {
			t.Errorf("%s: keys %v, want %v", tc.s.what, tc.s.keys, tc.keys)
		}
	}
}

// seedAndFixture is one review written as a seed and as a fixture, both
// decoded: the record each makes, or the problem each has.
type seedAndFixture struct {
	seed, fixture       reviews.Feedback
	seedErr, fixtureErr error
}

// testURLs is where the tests' media are.
var testURLs = media.URLs{Base: "http://mock.test"}

// decodeBoth decodes the JSON object review as a seed body's one review
// and as a reviews fixture's (JSON is YAML), filled and checked as the
// server does.
func decodeBoth(t *testing.T, review string) seedAndFixture {
	t.Helper()
	var out seedAndFixture
	_, recs, err := DecodeSeedBody([]byte(`{"reviews":[` + review + `]}`))
	if err == nil {
		f := &Filler{Session: "s", Seed: 1, Anchor: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), URLs: testURLs, Products: DefaultProducts,
			Bank: func() (*Bank, error) { return shippedBank(t, "ru"), nil }}
		out.seed, err = f.Fill(&recs[0], 0, 0)
	}
	out.seedErr = err
	fbs, err := DecodeReviews("f.yaml", []byte("kind: reviews\nreviews:\n  - "+review+"\n"), testURLs)
	if err == nil {
		out.fixture = fbs[0]
	}
	out.fixtureErr = err
	return out
}

// complete is a review that gives every field a fixture requires and a
// seed fills, with replace set over it (a value of "" leaves it out).
func complete(replace map[string]string) string {
	members := []string{}
	for _, kv := range [][2]string{
		{"feedback_id", `"base-1"`}, {"nm_id", `7`}, {"imt_id", `8`}, {"product_valuation", `3`},
		{"created_date", `"2026-01-02 03:04:05"`}, {"product_name", `"p"`}, {"supplier_article", `"a"`}, {"brand_name", `"b"`},
	} {
		if v, ok := replace[kv[0]]; ok {
			kv[1] = v
		}
		if kv[1] != "" {
			members = append(members, fmt.Sprintf("%q:%s", kv[0], kv[1]))
		}
	}
	for k, v := range replace {
		if !strings.Contains(strings.Join(members, ","), fmt.Sprintf("%q:", k)) && v != "" {
			members = append(members, fmt.Sprintf("%q:%s", k, v))
		}
	}
	return "{" + strings.Join(members, ",") + "}"
}

// goodValue is a value of f each format takes, other than what a
// record has when it is left out; overValue one past its bound.
func goodValue(f *field) string {
	switch f.kind {
	case kindText:
		return `"some ` + f.name + `"`
	case kindTime:
		return `"2026-01-02 03:04:06"`
	case kindInt:
		if f.top != 0 {
			return fmt.Sprint(f.min)
		}
		return fmt.Sprint(f.min + 41)
	case kindTags:
		return `["мягкий","тёплый"]`
	case kindPhotos:
		return `[{"fullSize":"https://cdn.example/f.jpg","miniSize":"/__mock/media/photos/k1/1/ms.jpg"}]`
	}
	return `{"previewImage":"https://cdn.example/p.jpg","link":"https://cdn.example/v.m3u8","durationSec":12}`
}

func overValue(f *field) (string, bool) {
	list := func(item func(i int) string) string {
		items := make([]string, f.max+1)
		for i := range items {
			items[i] = item(i)
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	switch {
	case f.kind == kindText:
		return `"` + strings.Repeat("я", f.max+1) + `"`, true
	case f.kind == kindInt && f.top != 0:
		return fmt.Sprint(f.top + 1), true
	case f.kind == kindInt:
		return fmt.Sprint(f.min - 1), true
	case f.kind == kindTags:
		return list(func(i int) string { return fmt.Sprintf(`"t%d"`, i) }), true
	case f.kind == kindPhotos:
		return list(func(int) string {
			return `{"fullSize":"https://cdn.example/f.jpg","miniSize":"https://cdn.example/m.jpg"}`
		}), true
	case f.kind == kindTime:
		return `"2026-02-30"`, true
	}
	return "", false
}

// recordValue is the record's value of the field name, as the API writes it.
func recordValue(t *testing.T, fb reviews.Feedback, name string) string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(reviews.AppendJSON(nil, &fb), &m); err != nil {
		t.Fatal(err)
	}
	return string(m[name])
}

// sameProblem fails unless the seed's and the fixture's problems are
// one: at reviews[0].NAME, worded alike.
func sameProblem(t *testing.T, what, name string, got seedAndFixture) {
	t.Helper()
	var ae *wire.APIError
	if !errors.As(got.seedErr, &ae) || ae.Field != "reviews[0]."+name {
		t.Errorf("%s: the seed: %v; want a problem at reviews[0].%s", what, got.seedErr, name)
		return
	}
	if want := "reviews[0]." + name + ": " + ae.Message; got.fixtureErr == nil || !strings.Contains(got.fixtureErr.Error(), want) {
		t.Errorf("%s: the fixture: %v; want the seed's problem %q", what, got.fixtureErr, want)
	}
}

// The fixture format and the seed format agree on every field of the
// table: a value one takes, the other takes, and the record they make
// is the same, with the value in it; a value past the field's bound both
// refuse, at the field, in the same words; left out, the fixture
// refuses what it requires and the seed fills what its row says.
func TestSeedAndFixtureAgree(t *testing.T) {
	base := decodeBoth(t, complete(nil))
	if base.seedErr != nil || base.fixtureErr != nil {
		t.Fatalf("a complete review: the seed %v, the fixture %v", base.seedErr, base.fixtureErr)
	}
	for i := range fields {
		f := &fields[i]
		t.Run(f.name, func(t *testing.T) {
			v := goodValue(f)
			got := decodeBoth(t, complete(map[string]string{f.name: v}))
			if got.seedErr != nil || got.fixtureErr != nil {
				t.Fatalf("%s: %s: the seed %v, the fixture %v", f.name, v, got.seedErr, got.fixtureErr)
			}
			if !reflect.DeepEqual(got.seed, got.fixture) {
				t.Errorf("%s: %s: the seed makes\n  %+v\nthe fixture\n  %+v", f.name, v, got.seed, got.fixture)
			}
			if recordValue(t, got.seed, f.name) == recordValue(t, base.seed, f.name) {
				t.Errorf("%s: %s: not in the record (%s either way)", f.name, v, recordValue(t, got.seed, f.name))
			}
			if over, ok := overValue(f); ok {
				sameProblem(t, "past the bound", f.name, decodeBoth(t, complete(map[string]string{f.name: over})))
			}
			checkLeftOut(t, f)
		})
	}
}

// checkLeftOut holds the formats to the table for f left out.
func checkLeftOut(t *testing.T, f *field) {
	t.Helper()
	got := decodeBoth(t, complete(map[string]string{f.name: ""}))
	switch {
	case f.fixture == required && f.seed == asFixture: // both refuse; the seed says what it lacks
		var ae *wire.APIError
		if !errors.As(got.seedErr, &ae) || ae.Field != "reviews[0]."+f.name || ae.Message != "required: "+f.about {
			t.Errorf("left out: the seed %v; want reviews[0].%s: required: %s", got.seedErr, f.name, f.about)
		}
		if got.fixtureErr == nil || !strings.Contains(got.fixtureErr.Error(), "reviews[0]."+f.name+": ") {
			t.Errorf("left out: the fixture %v; want a problem at reviews[0].%s", got.fixtureErr, f.name)
		}
		return
	case f.fixture == required:
		if got.fixtureErr == nil || !strings.Contains(got.fixtureErr.Error(), "reviews[0]."+f.name+": ") {
			t.Errorf("left out: the fixture %v; want a problem at reviews[0].%s", got.fixtureErr, f.name)
		}
	case got.fixtureErr != nil:
		t.Errorf("left out: the fixture %v; want it taken", got.fixtureErr)
	}
	if got.seedErr != nil {
		t.Fatalf("left out: the seed %v; want it filled", got.seedErr)
	}
	filled := recordValue(t, got.seed, f.name)
	switch f.seed {
	case fillDrawn:
		if len(filled) != 22 {
			t.Errorf("left out: feedback_id %s; want 20 letters and digits", filled)
		}
	case fillDated:
		if filled != `"2026-05-01 12:00:00"` {
			t.Errorf("left out: created_date %s; want the anchor's", filled)
		}
	case fillProduct:
		if filled == `""` || filled == "0" || filled == recordValue(t, decodeBoth(t, complete(nil)).seed, f.name) {
			t.Errorf("left out: %s %s; want the catalogue's", f.name, filled)
		}
	case asFixture:
		if want := recordValue(t, got.fixture, f.name); filled != want {
			t.Errorf("left out: the seed has %s, the fixture %s", filled, want)
		}
	}
}

// The media shapes are decoded alike from a seed's JSON and a fixture's
// YAML: the same members taken, an unknown one refused by both.
func TestMediaShapesAgree(t *testing.T) {
	for _, s := range []*shape{photoShape, videoShape} {
		obj := map[string]any{}
		for i, key := range s.keys {
			obj[key] = fmt.Sprintf("https://cdn.example/%d", i)
			if s.ints[key] {
				obj[key] = 7
			}
		}
		js, _ := json.Marshal(obj)
		jv := reflect.New(reflect.TypeFor[media.Photo]())
		yv := reflect.New(reflect.TypeFor[PhotoFixture]())
		if s == videoShape {
			jv, yv = reflect.New(reflect.TypeFor[media.Video]()), reflect.New(reflect.TypeFor[VideoFixture]())
		}
		if err := s.decodeJSON(js, "x", jv); err != nil {
			t.Fatalf("%s from JSON %s: %v", s.what, js, err)
		}
		var n yaml.Node
		if err := yaml.Unmarshal(js, &n); err != nil {
			t.Fatal(err)
		}
		if err := s.decodeYAML(n.Content[0], yv); err != nil {
			t.Fatalf("%s from YAML %s: %v", s.what, js, err)
		}
		if !reflect.DeepEqual(jv.Elem().Interface(), yv.Elem().Convert(jv.Elem().Type()).Interface()) {
			t.Errorf("%s %s: from JSON %+v, from YAML %+v", s.what, js, jv.Elem(), yv.Elem())
		}
		bad := bytes.Replace(js, []byte(`{`), []byte(`{"extra":"x",`), 1)
		if err := s.decodeJSON(bad, "x", jv); err == nil || !strings.Contains(err.Error(), "x.extra: unknown field: "+s.what) {
			t.Errorf("%s with an unknown member, from JSON: %v", s.what, err)
		}
		yaml.Unmarshal(bad, &n)
		if err := s.decodeYAML(n.Content[0], yv); err == nil || !strings.Contains(err.Error(), "unknown field ("+s.what+" has "+strings.Join(s.keys, ", ")) {
			t.Errorf("%s with an unknown member, from YAML: %v", s.what, err)
		}
	}
}

// The admin OpenAPI document's SeedReview, Photo and Video schemas are
// the table's and the shapes': the fields in order, what a seed
// requires, the bounds of texts, lists and closed ranges.
func TestTableMatchesAdminDocument(t *testing.T) {
	data, err := os.ReadFile("../../admin-openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]schema
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	sr := doc.Components.Schemas["SeedReview"]
	var names, need []string
	for _, f := range fields {
		names = append(names, f.name)
		if f.fixture == required && f.seed == asFixture {
			need = append(need, f.name)
		}
		p := sr.Properties.get(f.name)
		if p == nil {
			continue
		}
		switch {
		case f.kind == kindText && p.MaxLength != f.max:
			t.Errorf("SeedReview.%s: maxLength %d, the table %d", f.name, p.MaxLength, f.max)
		case (f.kind == kindTags || f.kind == kindPhotos) && p.MaxItems != f.max:
			t.Errorf("SeedReview.%s: maxItems %d, the table %d", f.name, p.MaxItems, f.max)
		case f.kind == kindInt && f.top != 0 && !slices.Equal(p.values(), []int64{f.min, f.top}):
			t.Errorf("SeedReview.%s: from %v; the table %d to %d", f.name, p.values(), f.min, f.top)
		}
	}
	if got := sr.Properties.names(); !slices.Equal(got, names) {
		t.Errorf("SeedReview's properties\n  %v\nthe table's fields\n  %v", got, names)
	}
	if !slices.Equal(sr.Required, need) {
		t.Errorf("SeedReview requires %v; a seed requires %v", sr.Required, need)
	}
	for name, s := range map[string]*shape{"Photo": photoShape, "Video": videoShape} {
		sc := doc.Components.Schemas[name]
		if got := sc.Properties.names(); !slices.Equal(got, s.keys) {
			t.Errorf("%s's properties %v; the shape's %v", name, got, s.keys)
		}
		for _, key := range s.keys {
			if p := sc.Properties.get(key); !s.ints[key] && p.MaxLength != maxListEntry {
				t.Errorf("%s.%s: maxLength %d, a media URL's bound %d", name, key, p.MaxLength, maxListEntry)
			}
		}
		if sc.Nullable != s.orNull {
			t.Errorf("%s: nullable %v; the shape's %v", name, sc.Nullable, s.orNull)
		}
	}
}

// schema is what the test reads of an OpenAPI schema.
type schema struct {
	Properties properties
	Required   []string
	Nullable   bool
	MaxLength  int `yaml:"maxLength"`
	MaxItems   int `yaml:"maxItems"`
	Minimum    *int64
	Maximum    *int64
	Enum       []any
}

// values are an integer's allowed values: its minimum and maximum, or
// the first and last of its enum.
func (s *schema) values() []int64 {
	if len(s.Enum) > 0 {
		first, ok1 := s.Enum[0].(int)
		last, ok2 := s.Enum[len(s.Enum)-1].(int)
		if !ok1 || !ok2 {
			return nil
		}
		return []int64{int64(first), int64(last)}
	}
	if s.Minimum == nil || s.Maximum == nil {
		return nil
	}
	return []int64{*s.Minimum, *s.Maximum}
}

// properties keep the order the document lists them in.
type properties struct{ node yaml.Node }

func (p *properties) UnmarshalYAML(n *yaml.Node) error { p.node = *n; return nil }

func (p *properties) names() []string {
	var out []string
	for i := 0; i+1 < len(p.node.Content); i += 2 {
		out = append(out, p.node.Content[i].Value)
	}
	return out
}

func (p *properties) get(name string) *schema {
	for i := 0; i+1 < len(p.node.Content); i += 2 {
		if p.node.Content[i].Value == name {
			var s schema
			p.node.Content[i+1].Decode(&s)
			return &s
		}
	}
	return nil
}
