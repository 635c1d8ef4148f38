package settings

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

// The Go types list the table's fields in its order, by the same names
// in JSON and YAML, each of the Go type its kind has.
func TestTableIsTheTypes(t *testing.T) {
	for _, el := range []struct {
		in  elements
		typ reflect.Type
	}{{inFeedback, reflect.TypeFor[FeedbackSettings]()}, {inQuestion, reflect.TypeFor[QuestionSettings]()}} {
		var names []string
		for _, sf := range reflect.VisibleFields(el.typ) {
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			names = append(names, name)
			if y := sf.Tag.Get("yaml"); y != name {
				t.Errorf("%s.%s is %s in JSON but %s in YAML (fixtures)", el.typ.Name(), sf.Name, name, y)
			}
			if f := lookup(name, el.in); f != nil && sf.Type != goType(f.kind) {
				t.Errorf("%s.%s is a %s; the table's kind wants a %s", el.typ.Name(), sf.Name, sf.Type, goType(f.kind))
			}
		}
		if want := fieldNames(el.in); !slices.Equal(names, want) {
			t.Errorf("%s has the fields %v; the table lists %v", el.typ.Name(), names, want)
		}
	}
}

func goType(k kind) reflect.Type {
	switch k {
	case kindDate:
		return reflect.TypeFor[*string]()
	case kindBool, kindInt:
		return reflect.TypeFor[int]()
	}
	return reflect.TypeFor[string]()
}

// The table's rows are whole: what each kind needs is there, and the
// fields the code treats apart (the rating, the unified flag) are where
// it looks for them.
func TestTableRows(t *testing.T) {
	seen := map[string]bool{}
	var keys []string
	for _, f := range fields {
		if seen[f.name] {
			t.Errorf("%s: listed twice", f.name)
		}
		seen[f.name] = true
		switch {
		case f.in&inBoth == 0:
			t.Errorf("%s: in no element", f.name)
		case f.kind == kindEnum && len(f.values) == 0:
			t.Errorf("%s: an enum without values", f.name)
		case f.kind == kindText && f.max <= 0:
			t.Errorf("%s: text without a length limit", f.name)
		case f.kind == kindInt && f.min > f.max:
			t.Errorf("%s: an empty range", f.name)
		case f.shared && (f.in&inFeedback == 0 || f.key || f.name == unifiedName):
			t.Errorf("%s: shared, but not a value of the per-rating elements", f.name)
		case (f.nonBlank || f.toned) && f.kind != kindText:
			t.Errorf("%s: nonBlank or toned on a field that is not text", f.name)
		}
		if f.key {
			keys = append(keys, f.name)
			if f.kind != kindInt || f.in != inFeedback || f.min != 1 || f.max != len(Settings{}.Feedback) {
				t.Errorf("%s: the key must be the per-rating elements' integer 1 to %d", f.name, len(Settings{}.Feedback))
			}
		}
	}
	if !slices.Equal(keys, []string{"rating"}) {
		t.Errorf("the keys are %v, want rating alone", keys)
	}
	if f := lookup(unifiedName, inFeedback); f == nil || f.kind != kindBool || f.in != inFeedback {
		t.Errorf("%s must be a yes-or-no field of the per-rating elements alone", unifiedName)
	}
}

func TestChoices(t *testing.T) {
	for _, tc := range []struct {
		lo, hi int
		want   string
	}{{0, 1, "0 or 1"}, {1, 5, "1, 2, 3, 4 or 5"}, {7, 7, "7"}} {
		if got := choices(tc.lo, tc.hi); got != tc.want {
			t.Errorf("choices(%d, %d) = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// Validate reports every problem of a complete value, in the order it
// always has: per element the rating, the strings, the dates, the flag,
// then the shared values; the question last.
func TestValidate(t *testing.T) {
	s := base()
	s.Feedback[1].Rating = 3
	s.Feedback[1].UseUnifiedSettings = 2
	s.Feedback[1].ReplyFromDate = ptr("2026-02-30")
	s.Feedback[1].AIInstructions = "a\x00"
	s.Feedback[1].ReplyMode = "manual"
	s.Feedback[2].Tone = strings.Repeat("t", MaxTone+1)
	s.Question.ReplyFromDate = ptr("1.1.2026")
	s.Question.Tone = " "
	want := []string{
		`feedback[1].rating: must be 2: elements are ordered by rating 1 to 5`,
		`feedback[1].reply_mode: must be one of disabled, auto, semi_auto, got "manual"`,
		`feedback[1].ai_instructions: must not contain control characters: U+0000 at character 2 (tab, line feed and carriage return are allowed)`,
		`feedback[1].reply_from_date: must be null or a real date YYYY-MM-DD, got "2026-02-30"`,
		`feedback[1].use_unified_settings: must be 0 or 1, got 2`,
		`feedback[2].tone: must be at most 64 characters, got 65`,
		`question.tone: must not be empty`,
		`question.reply_from_date: must be null or a real date YYYY-MM-DD, got "1.1.2026"`,
	}
	checkProblems(t, "broken values", s.Validate(Rules{}), want)

	// Unified settings: one flag, and the shared values equal to rating 1's.
	u := base()
	shared(&u, 0)
	if probs := u.Validate(Rules{}); len(probs) > 0 {
		t.Fatalf("unified settings: %v", probs)
	}
	u.Feedback[3].Signature = "other"
	u.Feedback[4].UseUnifiedSettings = 0
	u.Feedback[4].ReplyMode, u.Feedback[4].Tone = "auto", "calm" // per rating: no problem
	checkProblems(t, "unified", u.Validate(Rules{}), []string{
		`feedback[3]: with use_unified_settings 1, signature, excluded_words, required_words, empty_review_mode, reply_from_date, ai_instructions must equal those of feedback[0]`,
		`feedback[4].use_unified_settings: must equal feedback[0].use_unified_settings: the flag is one for all ratings`,
	})
}

func checkProblems(t *testing.T, what string, probs []*wire.APIError, want []string) {
	t.Helper()
	var got []string
	for _, p := range probs {
		got = append(got, p.Field+": "+p.Message)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: Validate found\n  %s\nwant\n  %s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
