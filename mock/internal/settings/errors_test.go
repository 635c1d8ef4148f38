package settings

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Every way a PATCH body is refused: the error is a 400 invalid_body
// naming the JSON path at fault, and the settings it was applied to come
// back unchanged.
func TestDecodePatchErrors(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ы", n) }
	tests := []struct {
		name, body, field string
	}{
		{"empty body", ``, ""},
		{"whitespace body", "  \n", ""},
		{"malformed JSON", `{"feedback":`, ""},
		{"not JSON", `hello`, ""},
		{"array body", `[]`, ""},
		{"null body", `null`, ""},
		{"string body", `"x"`, ""},
		{"trailing data", `{} {}`, ""},
		{"trailing garbage", `{}x`, ""},
		{"duplicate key", `{"question":{},"question":{}}`, "question"},
		{"unknown top-level field", `{"feedbacks":[]}`, "feedbacks"},
		{"feedback null", `{"feedback":null}`, "feedback"},
		{"feedback object", `{"feedback":{"rating":1}}`, "feedback"},
		{"element not an object", `{"feedback":[1]}`, "feedback[0]"},
		{"element null", `{"feedback":[null]}`, "feedback[0]"},
		{"rating missing", `{"feedback":[{"tone":"x"}]}`, "feedback[0].rating"},
		{"rating 0", `{"feedback":[{"rating":0}]}`, "feedback[0].rating"},
		{"rating 6", `{"feedback":[{"rating":6}]}`, "feedback[0].rating"},
		{"rating string", `{"feedback":[{"rating":"1"}]}`, "feedback[0].rating"},
		{"rating fraction", `{"feedback":[{"rating":1.0}]}`, "feedback[0].rating"},
		{"rating null", `{"feedback":[{"rating":null}]}`, "feedback[0].rating"},
		{"duplicate rating", `{"feedback":[{"rating":2},{"rating":2}]}`, "feedback[1].rating"},
		{"duplicate key in element", `{"feedback":[{"rating":2,"tone":"a","tone":"b"}]}`, "feedback[0].tone"},
		{"unknown element field", `{"feedback":[{"rating":2,"mode":"auto"}]}`, "feedback[0].mode"},
		{"reply_mode unknown", `{"feedback":[{"rating":2,"reply_mode":"manual"}]}`, "feedback[0].reply_mode"},
		{"reply_mode wrong case", `{"feedback":[{"rating":2,"reply_mode":"Auto"}]}`, "feedback[0].reply_mode"},
		{"reply_mode null", `{"feedback":[{"rating":2,"reply_mode":null}]}`, "feedback[0].reply_mode"},
		{"reply_mode number", `{"feedback":[{"rating":2,"reply_mode":1}]}`, "feedback[0].reply_mode"},
		{"empty_review_mode unknown", `{"feedback":[{"rating":2,"empty_review_mode":"ignore"}]}`, "feedback[0].empty_review_mode"},
		{"use_unified_settings 2", `{"feedback":[{"rating":2,"use_unified_settings":2}]}`, "feedback[0].use_unified_settings"},
		{"use_unified_settings boolean", `{"feedback":[{"rating":2,"use_unified_settings":true}]}`, "feedback[0].use_unified_settings"},
		{"reply_from_date impossible", `{"feedback":[{"rating":2,"reply_from_date":"2026-02-29"}]}`, "feedback[0].reply_from_date"},
		{"reply_from_date with time", `{"feedback":[{"rating":2,"reply_from_date":"2026-02-01 00:00:00"}]}`, "feedback[0].reply_from_date"},
		{"reply_from_date empty", `{"feedback":[{"rating":2,"reply_from_date":""}]}`, "feedback[0].reply_from_date"},
		{"reply_from_date number", `{"feedback":[{"rating":2,"reply_from_date":20260101}]}`, "feedback[0].reply_from_date"},
		{"tone empty", `{"feedback":[{"rating":2,"tone":""}]}`, "feedback[0].tone"},
		{"tone blank", `{"feedback":[{"rating":2,"tone":"   "}]}`, "feedback[0].tone"},
		{"tone too long", `{"feedback":[{"rating":2,"tone":"` + long(65) + `"}]}`, "feedback[0].tone"},
		{"signature too long", `{"feedback":[{"rating":2,"signature":"` + long(256) + `"}]}`, "feedback[0].signature"},
		{"signature null", `{"feedback":[{"rating":2,"signature":null}]}`, "feedback[0].signature"},
		{"tone null", `{"feedback":[{"rating":2,"tone":null}]}`, "feedback[0].tone"},
		{"excluded_words null", `{"feedback":[{"rating":2,"excluded_words":null}]}`, "feedback[0].excluded_words"},
		{"empty_review_mode null", `{"feedback":[{"rating":2,"empty_review_mode":null}]}`, "feedback[0].empty_review_mode"},
		{"use_unified_settings null", `{"feedback":[{"rating":2,"use_unified_settings":null}]}`, "feedback[0].use_unified_settings"},
		{"question ai_instructions null", `{"question":{"ai_instructions":null}}`, "question.ai_instructions"},
		// Text that encoding/json would turn into U+FFFD without a word,
		// and control characters: the field holding it is named.
		{"invalid UTF-8", "{\"question\":{\"tone\":\"a\xff\"}}", "question.tone"},
		{"invalid UTF-8: an encoded surrogate", "{\"feedback\":[{\"rating\":2,\"signature\":\"a\xed\xa0\x80\"}]}", "feedback[0].signature"},
		{"invalid UTF-8: overlong", "{\"feedback\":[{\"rating\":2,\"signature\":\"\xc0\xaf\"}]}", "feedback[0].signature"},
		{"invalid UTF-8: cut short", "{\"question\":{\"ai_instructions\":\"\xe2\x82\"}}", "question.ai_instructions"},
		{"invalid UTF-8 in a key", "{\"feedback\":[{\"rating\":2,\"to\xffne\":\"a\"}]}", "feedback[0].to\ufffdne"},
		{"lone high surrogate at the end", `{"feedback":[{"rating":2,"signature":"a\ud800"}]}`, "feedback[0].signature"},
		{"lone high surrogate before a letter", `{"feedback":[{"rating":2,"signature":"\ud800x"}]}`, "feedback[0].signature"},
		{"two high surrogates", `{"feedback":[{"rating":2,"signature":"\ud83d\ud83d"}]}`, "feedback[0].signature"},
		{"lone low surrogate", `{"question":{"signature":"\udc00"}}`, "question.signature"},
		{"surrogates in the wrong order", `{"question":{"signature":"\ude00\ud83d"}}`, "question.signature"},
		{"lone surrogate in a date", `{"feedback":[{"rating":2,"reply_from_date":"\ud800"}]}`, "feedback[0].reply_from_date"},
		{"lone surrogate in an enum", `{"feedback":[{"rating":2,"reply_mode":"auto\udfff"}]}`, "feedback[0].reply_mode"},
		{"NUL", `{"feedback":[{"rating":2,"signature":"a\u0000b"}]}`, "feedback[0].signature"},
		{"NUL in tone", `{"feedback":[{"rating":2,"tone":"\u0000"}]}`, "feedback[0].tone"},
		{"escape", `{"question":{"ai_instructions":"\u001b[31mred"}}`, "question.ai_instructions"},
		{"bell", `{"feedback":[{"rating":2,"excluded_words":"a\u0007"}]}`, "feedback[0].excluded_words"},
		{"vertical tab", `{"feedback":[{"rating":2,"required_words":"a\u000bb"}]}`, "feedback[0].required_words"},
		{"DEL", `{"feedback":[{"rating":2,"signature":"\u007f"}]}`, "feedback[0].signature"},
		{"C1 control", `{"feedback":[{"rating":2,"signature":"\u009b31m"}]}`, "feedback[0].signature"},
		{"C1 control, raw", "{\"feedback\":[{\"rating\":2,\"signature\":\"a\u0085b\"}]}", "feedback[0].signature"},
		{"truncated object", `{"question":{"tone":"a"}`, ""},
		{"excluded_words too long", `{"feedback":[{"rating":2,"excluded_words":"` + long(2001) + `"}]}`, "feedback[0].excluded_words"},
		{"required_words too long", `{"feedback":[{"rating":2,"required_words":"` + long(2001) + `"}]}`, "feedback[0].required_words"},
		{"ai_instructions too long", `{"feedback":[{"rating":2,"ai_instructions":"` + long(2001) + `"}]}`, "feedback[0].ai_instructions"},
		{"ai_instructions array", `{"feedback":[{"rating":2,"ai_instructions":["a"]}]}`, "feedback[0].ai_instructions"},
		{"later element bad, earlier good", `{"feedback":[{"rating":1,"tone":"calm"},{"rating":2,"reply_mode":"nope"}]}`, "feedback[1].reply_mode"},
		{"feedback good, question bad", `{"feedback":[{"rating":1,"tone":"calm"}],"question":{"tone":""}}`, "question.tone"},
		{"question null", `{"question":null}`, "question"},
		{"question array", `{"question":[]}`, "question"},
		{"question rating", `{"question":{"rating":1}}`, "question.rating"},
		{"question empty_review_mode", `{"question":{"empty_review_mode":"skip"}}`, "question.empty_review_mode"},
		{"question use_unified_settings", `{"question":{"use_unified_settings":1}}`, "question.use_unified_settings"},
		{"question reply_mode", `{"question":{"reply_mode":"sometimes"}}`, "question.reply_mode"},
		{"question reply_from_date", `{"question":{"reply_from_date":"2026-00-10"}}`, "question.reply_from_date"},
		{"question signature too long", `{"question":{"signature":"` + long(256) + `"}}`, "question.signature"},
		{"flags disagree", `{"feedback":[{"rating":1,"use_unified_settings":1},{"rating":2,"use_unified_settings":0}]}`, "feedback[1].use_unified_settings"},
		{"shared values disagree while switching on", `{"feedback":[{"rating":1,"use_unified_settings":1,"signature":"a"},{"rating":2,"signature":"b"}]}`, "feedback[1].signature"},
		{"dates disagree while switching on", `{"feedback":[{"rating":1,"use_unified_settings":1,"reply_from_date":null},{"rating":2,"reply_from_date":"2026-01-01"}]}`, "feedback[1].reply_from_date"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// A change first, so that "nothing changed" is not just "still base()".
			before, err := patch(`{"feedback":[{"rating":3,"signature":"before"}]}`, Rules{}, base())
			if err != nil {
				t.Fatal(err)
			}
			kept := before
			after, err := patch(tc.body, Rules{}, before)
			checkAPIError(t, fmt.Sprintf("PATCH %.100s", tc.body), err, tc.field)
			if !reflect.DeepEqual(after, kept) || !reflect.DeepEqual(before, kept) {
				t.Errorf("a rejected PATCH changed the settings:\n got %s\nwant %s", js(after), js(kept))
			}
		})
	}
}

// The wording of the errors the field table's rows produce.
func TestDecodePatchMessages(t *testing.T) {
	for _, tc := range []struct{ body, field, msg string }{
		{`{"feedback":[{"rating":6}]}`, "feedback[0].rating", "must be 1, 2, 3, 4 or 5, got 6"},
		{`{"feedback":[{"rating":2,"use_unified_settings":2}]}`, "feedback[0].use_unified_settings", "must be 0 or 1, got 2"},
		{`{"feedback":[{"rating":2,"mode":"auto"}]}`, "feedback[0].mode",
			"unknown field; allowed: rating, reply_mode, signature, tone, excluded_words, required_words, empty_review_mode, use_unified_settings, reply_from_date, ai_instructions"},
		{`{"question":{"rating":1}}`, "question.rating", "unknown field; allowed: reply_mode, signature, tone, excluded_words, required_words, reply_from_date, ai_instructions"},
		{`{"feedback":[{"rating":2,"reply_mode":"Auto"}]}`, "feedback[0].reply_mode", `must be one of disabled, auto, semi_auto, got "Auto"`},
		{`{"feedback":[{"rating":2,"empty_review_mode":"` + strings.Repeat("x", 130) + `"}]}`, "feedback[0].empty_review_mode",
			`must be one of skip, template, generate, got "` + strings.Repeat("x", 120) + `…"`},
		{`{"feedback":[{"rating":2,"tone":"   "}]}`, "feedback[0].tone", "must not be empty"},
		{`{"feedback":[{"rating":2,"signature":"` + strings.Repeat("я", 256) + `"}]}`, "feedback[0].signature", "must be at most 255 characters, got 256"},
		{`{"feedback":[{"rating":2,"reply_from_date":"2026-02-29"}]}`, "feedback[0].reply_from_date", `must be null or a real date YYYY-MM-DD, got "2026-02-29"`},
		{`{"feedback":[{"rating":2,"reply_from_date":20260101}]}`, "feedback[0].reply_from_date", "must be null or a date YYYY-MM-DD, got number"},
		{`{"feedback":[{"tone":"x"}]}`, "feedback[0].rating", "required: each feedback element names its rating (1 to 5)"},
		{`{"feedback":[{"rating":2},{"rating":2}]}`, "feedback[1].rating", "rating 2 is already set by feedback[0]"},
		{`{"feedback":[{"rating":1,"use_unified_settings":1},{"rating":2,"use_unified_settings":0}]}`, "feedback[1].use_unified_settings",
			"conflicts with feedback[0].use_unified_settings: the flag is one for all ratings"},
		{`{"feedback":[{"rating":1,"use_unified_settings":1,"signature":"a","excluded_words":"x"},{"rating":2,"excluded_words":"y","signature":"b"}]}`, "feedback[1].signature",
			"conflicts with feedback[0].signature: with use_unified_settings 1 the field is shared by all ratings"},
	} {
		_, err := patch(tc.body, Rules{}, base())
		checkAPIError(t, tc.body, err, tc.field)
		if ae, ok := err.(*wire.APIError); ok && ae.Message != tc.msg {
			t.Errorf("PATCH %.100s: message %q, want %q", tc.body, ae.Message, tc.msg)
		}
	}
}
