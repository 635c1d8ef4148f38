package content

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/wire"
)

// kind is what values a field of the review record takes, in a fixture
// and in a seed alike.
type kind int

const (
	kindText   kind = iota + 1 // a string: clean text of at most max characters
	kindTime                   // a string: a timestamp YYYY-MM-DD HH:MM:SS
	kindInt                    // an integer from min, to top when top is not 0
	kindTags                   // a list of at most max buyer tags, each at most maxListEntry characters
	kindPhotos                 // a list of at most max photos (photoShape)
	kindVideo                  // a video (videoShape), or none
)

// need is what a fixture that leaves a field out means.
type need int

const (
	required need = iota + 1 // a mistake: the record has no such default
	optional                 // empty, zero or none
	derived                  // made from the others: answer_state and state from answer_text, was_viewed 1, created_at the created_date
)

// fill is what a seed that leaves a field out gets (SeedReview).
type fill int

const (
	asFixture   fill = iota // what the fixture's need says; a required field is required of a seed too
	fillDrawn               // a feedback_id drawn from the scenario's seed, the session and the position
	fillDated               // a created_date a minute before the previous review of the request
	fillProduct             // the product's, from the scenario's catalogue
)

// field is one field of the review record as fixtures and seeds write
// it: a row of the table.
type field struct {
	name    string // its key in a reviews fixture, a seed body and the API's record
	kind    kind   // what values it takes
	max     int    // kindText: characters; kindTags, kindPhotos: entries
	min     int64  // kindInt: the least value
	top     int64  // kindInt: the greatest, 0 for no bound
	fixture need   // what a fixture that leaves it out means
	seed    fill   // what a seed that leaves it out gets
	early   bool   // kindInt: a seed's value is checked as it is decoded, before anything is filled
	about   string // required of a seed too: what its message calls it

	seedIdx, fixtureIdx []int // its Go field in SeedReview and in ReviewFixture
}

// Bounds of a review record's fields, in characters (lists: entries),
// for fixtures and seeded reviews alike: room for any real review (the
// longest edge case is about 4,000 characters), not for a whole file in
// one field.
const (
	maxReviewText  = 10_000 // text, pros, cons, answer_text
	maxReviewName  = 500    // product_name, supplier_article, brand_name, user_name
	maxFeedbackID  = 64
	maxReviewState = 32   // answer_state, state
	maxListEntries = 20   // valuation_tags, photos
	maxListEntry   = 2000 // a tag or a media URL
)

// fields is the table of the review record's fields, in the order the
// API writes them (but id, which the server assigns). The fixture format
// (ReviewFixture, decoded from YAML) and the seed format (SeedReview,
// decoded from JSON by DecodeSeedReview) both read it: names, kinds,
// bounds, what a fixture requires and what a seed fills; the checks of
// a record (ReviewFixture.Feedback), which seeds go through too, read
// its bounds. The package stops at its start if the Go types disagree
// with it; the tests compare it with the API's record and the admin
// OpenAPI document.
var fields = []field{
	{name: "feedback_id", kind: kindText, max: maxFeedbackID, fixture: required, seed: fillDrawn},
	{name: "nm_id", kind: kindInt, min: 1, fixture: required, seed: fillProduct},
	{name: "imt_id", kind: kindInt, min: 0, fixture: optional, seed: fillProduct},
	{name: "text", kind: kindText, max: maxReviewText, fixture: optional},
	{name: "pros", kind: kindText, max: maxReviewText, fixture: optional},
	{name: "cons", kind: kindText, max: maxReviewText, fixture: optional},
	{name: "product_valuation", kind: kindInt, min: 1, top: 5, fixture: required, early: true, about: "the rating, 1 to 5"},
	{name: "valuation_tags", kind: kindTags, max: maxListEntries, fixture: optional},
	{name: "created_date", kind: kindTime, fixture: required, seed: fillDated},
	{name: "answer_text", kind: kindText, max: maxReviewText, fixture: optional},
	{name: "answer_state", kind: kindText, max: maxReviewState, fixture: derived},
	{name: "product_name", kind: kindText, max: maxReviewName, fixture: required, seed: fillProduct},
	{name: "supplier_article", kind: kindText, max: maxReviewName, fixture: optional, seed: fillProduct},
	{name: "brand_name", kind: kindText, max: maxReviewName, fixture: optional, seed: fillProduct},
	{name: "photos", kind: kindPhotos, max: maxListEntries, fixture: optional},
	{name: "video", kind: kindVideo, fixture: optional},
	{name: "user_name", kind: kindText, max: maxReviewName, fixture: optional},
	{name: "was_viewed", kind: kindInt, min: 0, top: 1, fixture: derived, early: true},
	{name: "state", kind: kindText, max: maxReviewState, fixture: derived},
	{name: "created_at", kind: kindTime, fixture: derived},
}

// The Go fields behind the table's rows, found by their names: JSON in
// SeedReview, YAML in ReviewFixture. A table that does not match the
// types is a mistake in this package, so it stops the program at its
// start (and every test with it).
func init() {
	for _, t := range []struct {
		typ reflect.Type
		tag string
		idx func(*field) *[]int
	}{
		{reflect.TypeFor[SeedReview](), "json", func(f *field) *[]int { return &f.seedIdx }},
		{reflect.TypeFor[ReviewFixture](), "yaml", func(f *field) *[]int { return &f.fixtureIdx }},
	} {
		var names []string
		for _, sf := range reflect.VisibleFields(t.typ) {
			name, _, _ := strings.Cut(sf.Tag.Get(t.tag), ",")
			names = append(names, name)
			f := lookup(name)
			if f == nil {
				panic(fmt.Sprintf("content: %s.%s (%s) has no row in the record's field table", t.typ.Name(), sf.Name, name))
			}
			if !slices.Contains(goTypes(f.kind), sf.Type) {
				panic(fmt.Sprintf("content: %s.%s is a %s; the table's kind wants one of %v", t.typ.Name(), sf.Name, sf.Type, goTypes(f.kind)))
			}
			if t.tag == "json" && f.seed != asFixture && sf.Type.Kind() != reflect.Pointer {
				panic(fmt.Sprintf("content: %s.%s is filled when left out: it must be a pointer, nil for left out", t.typ.Name(), sf.Name))
			}
			*t.idx(f) = sf.Index
		}
		if got, want := strings.Join(names, ","), strings.Join(fieldNames(), ","); got != want {
			panic(fmt.Sprintf("content: %s has the fields %s; the record's table lists %s", t.typ.Name(), got, want))
		}
	}
}

// checkOrder is the order textProblems checks the fields in: the texts
// a fixture gives, then those it may leave to be derived, then the
// lists and media.
var checkOrder = func() []*field {
	var out []*field
	for _, pass := range []func(f *field) bool{
		func(f *field) bool { return f.kind == kindText && f.fixture != derived },
		func(f *field) bool { return f.kind == kindText && f.fixture == derived },
		func(f *field) bool { return f.kind == kindTags || f.kind == kindPhotos || f.kind == kindVideo },
	} {
		for i := range fields {
			if pass(&fields[i]) {
				out = append(out, &fields[i])
			}
		}
	}
	return out
}()

// goTypes are the Go types a field of kind k may have, in SeedReview
// (a pointer where nil says it was left out) or in ReviewFixture.
func goTypes(k kind) []reflect.Type {
	switch k {
	case kindText, kindTime:
		return []reflect.Type{reflect.TypeFor[string](), reflect.TypeFor[*string]()}
	case kindInt:
		return []reflect.Type{reflect.TypeFor[int](), reflect.TypeFor[*int](), reflect.TypeFor[int64](), reflect.TypeFor[*int64]()}
	case kindTags:
		return []reflect.Type{reflect.TypeFor[[]string]()}
	case kindPhotos:
		return []reflect.Type{reflect.TypeFor[[]media.Photo](), reflect.TypeFor[[]PhotoFixture]()}
	case kindVideo:
		return []reflect.Type{reflect.TypeFor[*media.Video](), reflect.TypeFor[*VideoFixture]()}
	}
	return nil
}

// lookup finds the row of name, or nil.
func lookup(name string) *field {
	for i := range fields {
		if fields[i].name == name {
			return &fields[i]
		}
	}
	return nil
}

// fieldNames lists the table's names, in order.
func fieldNames() []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// intProblem says what is wrong with n as f's value, "" for nothing.
// The wording of a bound below only ("a positive integer") is the one
// fixtures have always had.
func (f *field) intProblem(n int64) string {
	switch {
	case f.top != 0 && (n < f.min || n > f.top) && f.top == f.min+1:
		return fmt.Sprintf("must be %d or %d, got %d", f.min, f.top, n)
	case f.top != 0 && (n < f.min || n > f.top):
		return fmt.Sprintf("must be %d to %d, got %d", f.min, f.top, n)
	case f.top == 0 && n < f.min && f.fixture == required:
		return "required: a positive integer"
	case f.top == 0 && n < f.min:
		return "must be a positive integer"
	}
	return ""
}

// given is a field's value with whether it was given: false for a nil
// pointer.
func given(v reflect.Value) (reflect.Value, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return v, false
		}
		return v.Elem(), true
	}
	return v, true
}

// checkFields checks the fixture's text and integer fields against their
// rows (present when required, in their range): those a fixture may
// leave to be derived when derive is set, else the others.
func (r *ReviewFixture) checkFields(derive bool, bad func(field, format string, args ...any)) {
	rv := reflect.ValueOf(r).Elem()
	for i := range fields {
		f := &fields[i]
		if (f.fixture == derived) != derive {
			continue
		}
		v, ok := given(rv.FieldByIndex(f.fixtureIdx))
		switch {
		case !ok:
		case f.kind == kindText && f.fixture == required && v.String() == "":
			bad(f.name, "required")
		case f.kind == kindInt:
			if msg := f.intProblem(v.Int()); msg != "" {
				bad(f.name, "%s", msg)
			}
		}
	}
}

// textProblems checks the record's strings against the table's bounds,
// in checkOrder: clean text (no control characters but tab, line feed
// and carriage return; valid UTF-8) of at most max characters; lists of
// at most max entries, each at most maxListEntry characters.
func (r *ReviewFixture) textProblems() []wire.FieldProblem {
	var probs []wire.FieldProblem
	check := func(field, s string, max int) {
		if err := wire.CheckChars(s, field); err != nil {
			probs = append(probs, wire.FieldProblem{Field: field, Msg: err.(*wire.APIError).Message})
		} else if n := utf8.RuneCountInString(s); n > max {
			probs = append(probs, wire.FieldProblem{Field: field, Msg: fmt.Sprintf("must be at most %d characters, got %d", max, n)})
		}
	}
	rv := reflect.ValueOf(r).Elem()
	for _, f := range checkOrder {
		v, ok := given(rv.FieldByIndex(f.fixtureIdx))
		switch {
		case !ok:
		case f.kind == kindText:
			check(f.name, v.String(), f.max)
		case f.kind != kindVideo && v.Len() > f.max:
			probs = append(probs, wire.FieldProblem{Field: f.name, Msg: fmt.Sprintf("must list at most %d entries, got %d", f.max, v.Len())})
		case f.kind == kindTags:
			for i := range v.Len() {
				check(fmt.Sprintf("%s[%d]", f.name, i), v.Index(i).String(), maxListEntry)
			}
		case f.kind == kindPhotos:
			for i := range v.Len() {
				at := fmt.Sprintf("%s[%d].", f.name, i)
				for _, key := range photoShape.strs {
					check(at+key, photoShape.str(v.Index(i), key), maxListEntry)
				}
			}
		case f.kind == kindVideo:
			for _, key := range videoShape.strs {
				check(f.name+"."+key, videoShape.str(v, key), maxListEntry)
			}
		}
	}
	return probs
}

// fixture is the seed as a fixture writes it, field for field by the
// table, before what the seed leaves out is filled: a field left out is
// the fixture's zero value.
func (r *SeedReview) fixture() ReviewFixture {
	var out ReviewFixture
	src, dst := reflect.ValueOf(r).Elem(), reflect.ValueOf(&out).Elem()
	for _, f := range fields {
		v, ok := given(src.FieldByIndex(f.seedIdx))
		if !ok {
			continue
		}
		d := dst.FieldByIndex(f.fixtureIdx)
		switch {
		case f.kind == kindPhotos && v.Len() > 0:
			s := reflect.MakeSlice(d.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				s.Index(i).Set(v.Index(i).Convert(d.Type().Elem()))
			}
			d.Set(s)
		case f.kind == kindPhotos: // none: nil, as in a fixture without photos
		default:
			set(d, v) // a pointer to a copy of its own
		}
	}
	return out
}
