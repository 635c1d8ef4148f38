package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

func ptr[T any](v T) *T { return &v }

// base is a complete, valid Settings value with separate settings per
// rating, every value different from rating to rating, so that a copy
// from one element to another shows.
func base() Settings {
	var s Settings
	modes := []string{"semi_auto", "semi_auto", "auto", "auto", "disabled"}
	empty := []string{"skip", "skip", "template", "template", "generate"}
	for i := range s.Feedback {
		n := i + 1
		s.Feedback[i] = FeedbackSettings{
			Rating: n, ReplyMode: modes[i], Signature: fmt.Sprintf("Подпись %d", n), Tone: fmt.Sprintf("tone-%d", n),
			ExcludedWords: fmt.Sprintf("нельзя %d", n), RequiredWords: fmt.Sprintf("нужно %d", n), EmptyReviewMode: empty[i],
			ReplyFromDate: ptr(fmt.Sprintf("2026-0%d-01", n)), AIInstructions: fmt.Sprintf("Инструкция %d", n),
		}
	}
	s.Feedback[2].ReplyFromDate = nil
	s.Question = QuestionSettings{ReplyMode: "semi_auto", Signature: "Q", Tone: "friendly", ExcludedWords: "qx", RequiredWords: "qr", AIInstructions: "qa"}
	return s
}

// patch decodes body and applies it to cur.
func patch(body string, rules Rules, cur Settings) (Settings, error) {
	p, err := DecodePatch([]byte(body), rules)
	if err != nil {
		return cur, err
	}
	return p.Apply(cur)
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// shared sets every shared field of every element from element src, and
// the flag to 1.
func shared(s *Settings, src int) {
	f := s.Feedback[src]
	for i := range s.Feedback {
		e := &s.Feedback[i]
		e.Signature, e.ExcludedWords, e.RequiredWords = f.Signature, f.ExcludedWords, f.RequiredWords
		e.EmptyReviewMode, e.ReplyFromDate, e.AIInstructions = f.EmptyReviewMode, f.ReplyFromDate, f.AIInstructions
		e.UseUnifiedSettings = 1
	}
}

func TestBaseIsValid(t *testing.T) {
	s := base()
	if probs := s.Validate(Rules{}); len(probs) > 0 {
		t.Fatalf("base() is not valid: %v", probs)
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name string
		body string
		want func(s *Settings)
	}{
		{"empty object is a no-op", `{}`, func(*Settings) {}},
		{"empty feedback list", `{"feedback":[]}`, func(*Settings) {}},
		{"empty question", `{"question":{}}`, func(*Settings) {}},
		{"whitespace around the object", " \n{ }\n ", func(*Settings) {}},
		{"one field of one rating", `{"feedback":[{"rating":3,"reply_mode":"disabled"}]}`, func(s *Settings) {
			s.Feedback[2].ReplyMode = "disabled"
		}},
		{"every field of one rating", `{"feedback":[{"rating":1,"reply_mode":"auto","signature":"Подпись","tone":"formal","excluded_words":"а,б","required_words":"в\nг","empty_review_mode":"generate","use_unified_settings":0,"reply_from_date":"2024-02-29","ai_instructions":"Кратко."}]}`, func(s *Settings) {
			s.Feedback[0] = FeedbackSettings{Rating: 1, ReplyMode: "auto", Signature: "Подпись", Tone: "formal", ExcludedWords: "а,б", RequiredWords: "в\nг",
				EmptyReviewMode: "generate", ReplyFromDate: ptr("2024-02-29"), AIInstructions: "Кратко."}
		}},
		{"reply_from_date null", `{"feedback":[{"rating":1,"reply_from_date":null}]}`, func(s *Settings) {
			s.Feedback[0].ReplyFromDate = nil
		}},
		{"several ratings in any order", `{"feedback":[{"rating":5,"tone":"warm"},{"rating":2,"reply_mode":"auto"}]}`, func(s *Settings) {
			s.Feedback[4].Tone = "warm"
			s.Feedback[1].ReplyMode = "auto"
		}},
		{"empty strings where allowed", `{"feedback":[{"rating":4,"signature":"","excluded_words":"","required_words":"","ai_instructions":""}]}`, func(s *Settings) {
			e := &s.Feedback[3]
			e.Signature, e.ExcludedWords, e.RequiredWords, e.AIInstructions = "", "", "", ""
		}},
		{"limits exactly", `{"feedback":[{"rating":4,"signature":"` + strings.Repeat("я", 255) + `","tone":"` + strings.Repeat("t", 64) + `","ai_instructions":"` + strings.Repeat("ж", 2000) + `"}]}`, func(s *Settings) {
			s.Feedback[3].Signature, s.Feedback[3].Tone, s.Feedback[3].AIInstructions = strings.Repeat("я", 255), strings.Repeat("t", 64), strings.Repeat("ж", 2000)
		}},
		{"question fields", `{"question":{"reply_mode":"auto","signature":"Q","tone":"calm","excluded_words":"x","required_words":"y","reply_from_date":"2026-03-01","ai_instructions":"z"}}`, func(s *Settings) {
			s.Question = QuestionSettings{ReplyMode: "auto", Signature: "Q", Tone: "calm", ExcludedWords: "x", RequiredWords: "y", ReplyFromDate: ptr("2026-03-01"), AIInstructions: "z"}
		}},
		{"feedback and question together", `{"question":{"tone":"calm"},"feedback":[{"rating":1,"tone":"calm"}]}`, func(s *Settings) {
			s.Question.Tone, s.Feedback[0].Tone = "calm", "calm"
		}},
		{"switching unified on copies shared fields from the switching element", `{"feedback":[{"rating":4,"use_unified_settings":1}]}`, func(s *Settings) {
			shared(s, 3)
		}},
		{"switching on with a new value in the same element", `{"feedback":[{"rating":2,"use_unified_settings":1,"signature":"S","tone":"calm"}]}`, func(s *Settings) {
			s.Feedback[1].Signature = "S"
			s.Feedback[1].Tone = "calm"
			shared(s, 1)
		}},
		{"switching on while another element sets a shared field", `{"feedback":[{"rating":2,"use_unified_settings":1},{"rating":5,"excluded_words":"x","reply_mode":"disabled"}]}`, func(s *Settings) {
			shared(s, 1)
			for i := range s.Feedback {
				s.Feedback[i].ExcludedWords = "x"
			}
			s.Feedback[4].ReplyMode = "disabled"
		}},
		{"the flag given the same way twice", `{"feedback":[{"rating":1,"use_unified_settings":1,"signature":"S"},{"rating":3,"use_unified_settings":1,"signature":"S"}]}`, func(s *Settings) {
			s.Feedback[0].Signature = "S"
			shared(s, 0)
		}},
		{"switching off with the flag 0 while it is 0", `{"feedback":[{"rating":3,"use_unified_settings":0}]}`, func(*Settings) {}},
		{"separate settings stay separate", `{"feedback":[{"rating":1,"signature":"one"},{"rating":2,"signature":"two"}]}`, func(s *Settings) {
			s.Feedback[0].Signature, s.Feedback[1].Signature = "one", "two"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cur := base()
			got, err := patch(tc.body, Rules{}, cur)
			if err != nil {
				t.Fatalf("PATCH %.300s: %v", tc.body, err)
			}
			want := base()
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PATCH %.300s:\n got %s\nwant %s", tc.body, js(got), js(want))
			}
			if !reflect.DeepEqual(cur, base()) {
				t.Errorf("PATCH %.300s changed the settings it was applied to", tc.body)
			}
			if probs := got.Validate(Rules{}); len(probs) > 0 {
				t.Errorf("PATCH %.300s left settings that are not valid: %v", tc.body, probs)
			}
		})
	}
}

// While unified settings are on, shared fields move together and a
// conflict is rejected; mode and tone stay per rating; switching off
// leaves the values where they were.
func TestApplyUnifiedSequence(t *testing.T) {
	orig := base()
	step := func(what, body string, cur Settings) Settings {
		t.Helper()
		next, err := patch(body, Rules{}, cur)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return next
	}
	s := step("switch on", `{"feedback":[{"rating":5,"use_unified_settings":1}]}`, orig)
	s = step("set signature", `{"feedback":[{"rating":3,"signature":"Z","tone":"formal","reply_mode":"disabled"}]}`, s)
	for i, e := range s.Feedback {
		if e.Signature != "Z" || e.UseUnifiedSettings != 1 {
			t.Errorf("feedback[%d]: signature %q, unified %d; want Z, 1", i, e.Signature, e.UseUnifiedSettings)
		}
		if e.AIInstructions != orig.Feedback[4].AIInstructions {
			t.Errorf("feedback[%d].ai_instructions not copied from rating 5", i)
		}
		wantTone, wantMode := orig.Feedback[i].Tone, orig.Feedback[i].ReplyMode
		if i == 2 {
			wantTone, wantMode = "formal", "disabled"
		}
		if e.Tone != wantTone || e.ReplyMode != wantMode {
			t.Errorf("feedback[%d]: tone %q mode %q; want %q %q (per rating)", i, e.Tone, e.ReplyMode, wantTone, wantMode)
		}
	}
	// Same value from two elements is fine; different values are not.
	s = step("agree", `{"feedback":[{"rating":1,"required_words":"w"},{"rating":2,"required_words":"w"}]}`, s)
	after, err := patch(`{"feedback":[{"rating":1,"required_words":"a"},{"rating":2,"required_words":"b"}]}`, Rules{}, s)
	checkAPIError(t, "disagree", err, "feedback[1].required_words")
	if !reflect.DeepEqual(after, s) || after.Feedback[3].RequiredWords != "w" {
		t.Errorf("after the conflict, required_words = %q, want w, and nothing else changed", after.Feedback[3].RequiredWords)
	}

	s = step("switch off", `{"feedback":[{"rating":1,"use_unified_settings":0,"signature":"only one"}]}`, s)
	for i, e := range s.Feedback {
		want := "Z"
		if i == 0 {
			want = "only one"
		}
		if e.Signature != want || e.UseUnifiedSettings != 0 {
			t.Errorf("after switching off, feedback[%d]: signature %q unified %d; want %q 0", i, e.Signature, e.UseUnifiedSettings, want)
		}
	}
}

// checkAPIError asserts err is the API's 400 invalid_body naming field.
func checkAPIError(t *testing.T, what string, err error, field string) {
	t.Helper()
	ae, ok := err.(*wire.APIError)
	switch {
	case !ok:
		t.Fatalf("%s: error %v (%T), want an *wire.APIError", what, err, err)
	case ae.Status != 400 || ae.Code != wire.CodeInvalidBody:
		t.Errorf("%s: %d %s, want 400 %s", what, ae.Status, ae.Code, wire.CodeInvalidBody)
	case ae.Message == "":
		t.Errorf("%s: the message is empty", what)
	case ae.Field != field:
		t.Errorf("%s: field = %q, want %q (message %q)", what, ae.Field, field, ae.Message)
	}
}

// A scenario may restrict tones to a list: decoding then refuses others,
// in feedback elements and the question alike, and so does Validate.
func TestRulesTones(t *testing.T) {
	rules := Rules{Tones: []string{"friendly", "empathetic", "formal"}}
	for body, field := range map[string]string{
		`{"feedback":[{"rating":1,"tone":"pirate"}]}`: "feedback[0].tone",
		`{"question":{"tone":"pirate"}}`:              "question.tone",
	} {
		_, err := DecodePatch([]byte(body), rules)
		checkAPIError(t, body, err, field)
	}
	s, err := patch(`{"feedback":[{"rating":1,"tone":"formal"}]}`, rules, base())
	if err != nil || s.Feedback[0].Tone != "formal" {
		t.Errorf("tone formal: %v, tone %q", err, s.Feedback[0].Tone)
	}
	b := base()
	probs := b.Validate(rules)
	if len(probs) != 5 || probs[0].Field != "feedback[0].tone" || probs[0].Message != `must be one of friendly, empathetic, formal, got "tone-1"` {
		t.Errorf("Validate with tones: %v, want the five tones of base()'s ratings refused", probs)
	}
}
