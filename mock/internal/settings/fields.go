package settings

import (
	"reflect"
	"slices"
)

// kind is what values a field takes.
type kind int

const (
	kindEnum kind = iota + 1 // a string, one of field.values
	kindText                 // a string of at most field.max characters
	kindDate                 // null or a real date YYYY-MM-DD
	kindBool                 // a yes or no, written as the integer 0 or 1
	kindInt                  // an integer from field.min to field.max
)

// elements says which elements of the settings have a field.
type elements int

const (
	inFeedback elements = 1 << iota // the five per-rating elements of data.feedback
	inQuestion                      // data.question
	inBoth     = inFeedback | inQuestion
)

// field is one settings field: a row of the table.
type field struct {
	name     string   // its JSON and YAML name
	kind     kind     // what values it takes
	values   []string // kindEnum: the allowed values, in the order messages list them
	min, max int      // kindText: max characters; kindInt: the range
	nonBlank bool     // kindText: must hold more than spaces
	toned    bool     // kindText: a scenario's tones, when it lists some, are the allowed values
	key      bool     // names its element (the rating): required in a PATCH element, never changed
	in       elements // the elements that have it
	shared   bool     // equal in all five per-rating elements while use_unified_settings is 1
	panel    string   // the control panel's i18n key for where it shows the field; "" where it does not
}

// unifiedName is the flag that makes the shared fields one for all ratings.
const unifiedName = "use_unified_settings"

// fields is the table of settings fields, in the order the API writes
// them and the Go types list them.
var fields = []field{
	{name: "rating", kind: kindInt, min: 1, max: 5, key: true, in: inFeedback, panel: "col-for"},
	{name: "reply_mode", kind: kindEnum, values: []string{"disabled", "auto", "semi_auto"}, in: inBoth, panel: "col-mode"},
	{name: "signature", kind: kindText, max: MaxSignature, in: inBoth, shared: true, panel: "col-signature"},
	{name: "tone", kind: kindText, max: MaxTone, nonBlank: true, toned: true, in: inBoth, panel: "col-tone"},
	{name: "excluded_words", kind: kindText, max: MaxLongText, in: inBoth, shared: true},
	{name: "required_words", kind: kindText, max: MaxLongText, in: inBoth, shared: true},
	{name: "empty_review_mode", kind: kindEnum, values: []string{"skip", "template", "generate"}, in: inFeedback, shared: true, panel: "col-empty"},
	{name: unifiedName, kind: kindBool, in: inFeedback, panel: "unified"},
	{name: "reply_from_date", kind: kindDate, in: inBoth, shared: true, panel: "col-from"},
	{name: "ai_instructions", kind: kindText, max: MaxLongText, in: inBoth, shared: true},
}

func lookup(name string, in elements) *field {
	for i := range fields {
		if f := &fields[i]; f.name == name && f.in&in != 0 {
			return f
		}
	}
	return nil
}

func fieldNames(in elements) []string { return names(func(f *field) bool { return f.in&in != 0 }) }

func sharedNames() []string { return names(func(f *field) bool { return f.shared }) }

// names lists the fields keep keeps, in the table's order.
func names(keep func(*field) bool) []string {
	var out []string
	for i := range fields {
		if keep(&fields[i]) {
			out = append(out, fields[i].name)
		}
	}
	return out
}

// of is f's Go field in el, a *FeedbackSettings or *QuestionSettings.
// Its value is a string (kindEnum, kindText), a *string (kindDate) or an
// int (kindBool, kindInt).
func (f *field) of(el any) reflect.Value {
	in := inFeedback
	if _, ok := el.(*QuestionSettings); ok {
		in = inQuestion
	}
	return reflect.ValueOf(el).Elem().Field(slices.Index(fieldNames(in), f.name))
}

func (f *field) get(el any) any { return f.of(el).Interface() }

func (f *field) set(el any, v any) { f.of(el).Set(reflect.ValueOf(v)) }

// FeedbackFields and QuestionFields name the fields of a per-rating
// element and of the question element, in the order the API writes them.
func FeedbackFields() []string { return fieldNames(inFeedback) }

func QuestionFields() []string { return fieldNames(inQuestion) }
