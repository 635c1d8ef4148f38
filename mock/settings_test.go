package mock_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

func getSettings(t testing.TB, h http.Handler) mock.Settings {
	t.Helper()
	var s mock.Settings
	decodeOK(t, "GET /settings/ai", do(t, h, http.MethodGet, "/api/v1/settings/ai", ""), &s)
	return s
}

func getSettingsAs(t testing.TB, h http.Handler, session string) mock.Settings {
	t.Helper()
	var s mock.Settings
	decodeOK(t, "GET /settings/ai", do(t, h, http.MethodGet, "/api/v1/settings/ai", "", "X-Mock-Session", session), &s)
	return s
}

func ptr[T any](v T) *T { return &v }

// objectKeys lists the keys of a JSON object in document order.
func objectKeys(t testing.TB, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not an object: %s", raw)
	}
	var keys []string
	for dec.More() {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestSettingsGetShape(t *testing.T) {
	h := newServer(t, mock.Options{})
	r := do(t, h, http.MethodGet, "/api/v1/settings/ai", "")
	var env struct {
		Success bool `json:"success"`
		Data    struct {
			Feedback []json.RawMessage `json:"feedback"`
			Question json.RawMessage   `json:"question"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || !env.Success {
		t.Fatalf("GET /settings/ai: %s: %v", r.body, err)
	}
	if len(env.Data.Feedback) != 5 {
		t.Fatalf("feedback has %d elements, want 5", len(env.Data.Feedback))
	}
	feedbackKeys := []string{"rating", "reply_mode", "signature", "tone", "excluded_words", "required_words", "empty_review_mode", "use_unified_settings", "reply_from_date", "ai_instructions"}
	for i, raw := range env.Data.Feedback {
		if keys := objectKeys(t, raw); !slices.Equal(keys, feedbackKeys) {
			t.Errorf("feedback[%d] keys %v, want %v", i, keys, feedbackKeys)
		}
		var el mock.FeedbackSettings
		json.Unmarshal(raw, &el)
		if el.Rating != i+1 {
			t.Errorf("feedback[%d].rating = %d, want %d", i, el.Rating, i+1)
		}
	}
	questionKeys := []string{"reply_mode", "signature", "tone", "excluded_words", "required_words", "reply_from_date", "ai_instructions"}
	if keys := objectKeys(t, env.Data.Question); !slices.Equal(keys, questionKeys) {
		t.Errorf("question keys %v, want %v", keys, questionKeys)
	}
	golden(t, "settings-default.json", r.body)
}

func TestSettingsPatch(t *testing.T) {
	orig := getSettings(t, newServer(t, mock.Options{}))
	if orig.Feedback[0].UseUnifiedSettings != 0 {
		t.Fatal("the default settings are expected to start with separate settings per rating")
	}
	// shared sets every shared field of every element from element src.
	shared := func(s *mock.Settings, src int) {
		f := s.Feedback[src]
		for i := range s.Feedback {
			e := &s.Feedback[i]
			e.Signature, e.ExcludedWords, e.RequiredWords = f.Signature, f.ExcludedWords, f.RequiredWords
			e.EmptyReviewMode, e.ReplyFromDate, e.AIInstructions = f.EmptyReviewMode, f.ReplyFromDate, f.AIInstructions
			e.UseUnifiedSettings = 1
		}
	}
	tests := []struct {
		name string
		body string
		ct   string
		want func(s *mock.Settings)
	}{
		{"empty object is a no-op", `{}`, "", func(*mock.Settings) {}},
		{"empty feedback list", `{"feedback":[]}`, "", func(*mock.Settings) {}},
		{"empty question", `{"question":{}}`, "", func(*mock.Settings) {}},
		{"whitespace around the object", " \n{ }\n ", "", func(*mock.Settings) {}},
		{"charset parameter", `{}`, "application/json; charset=utf-8", func(*mock.Settings) {}},
		{"media type in capitals", `{}`, "Application/JSON", func(*mock.Settings) {}},
		{"one field of one rating", `{"feedback":[{"rating":3,"reply_mode":"disabled"}]}`, "", func(s *mock.Settings) {
			s.Feedback[2].ReplyMode = "disabled"
		}},
		{"every field of one rating", `{"feedback":[{"rating":1,"reply_mode":"auto","signature":"Подпись","tone":"formal","excluded_words":"а,б","required_words":"в\nг","empty_review_mode":"generate","use_unified_settings":0,"reply_from_date":"2024-02-29","ai_instructions":"Кратко."}]}`, "", func(s *mock.Settings) {
			s.Feedback[0] = mock.FeedbackSettings{Rating: 1, ReplyMode: "auto", Signature: "Подпись", Tone: "formal", ExcludedWords: "а,б", RequiredWords: "в\nг",
				EmptyReviewMode: "generate", ReplyFromDate: ptr("2024-02-29"), AIInstructions: "Кратко."}
		}},
		{"reply_from_date null", `{"feedback":[{"rating":1,"reply_from_date":null}]}`, "", func(s *mock.Settings) {
			s.Feedback[0].ReplyFromDate = nil
		}},
		{"several ratings in any order", `{"feedback":[{"rating":5,"tone":"warm"},{"rating":2,"reply_mode":"auto"}]}`, "", func(s *mock.Settings) {
			s.Feedback[4].Tone = "warm"
			s.Feedback[1].ReplyMode = "auto"
		}},
		{"empty strings where allowed", `{"feedback":[{"rating":4,"signature":"","excluded_words":"","required_words":"","ai_instructions":""}]}`, "", func(s *mock.Settings) {
			e := &s.Feedback[3]
			e.Signature, e.ExcludedWords, e.RequiredWords, e.AIInstructions = "", "", "", ""
		}},
		{"limits exactly", `{"feedback":[{"rating":4,"signature":"` + strings.Repeat("я", 255) + `","tone":"` + strings.Repeat("t", 64) + `","ai_instructions":"` + strings.Repeat("ж", 2000) + `"}]}`, "", func(s *mock.Settings) {
			s.Feedback[3].Signature, s.Feedback[3].Tone, s.Feedback[3].AIInstructions = strings.Repeat("я", 255), strings.Repeat("t", 64), strings.Repeat("ж", 2000)
		}},
		{"question fields", `{"question":{"reply_mode":"auto","signature":"Q","tone":"calm","excluded_words":"x","required_words":"y","reply_from_date":"2026-03-01","ai_instructions":"z"}}`, "", func(s *mock.Settings) {
			s.Question = mock.QuestionSettings{ReplyMode: "auto", Signature: "Q", Tone: "calm", ExcludedWords: "x", RequiredWords: "y", ReplyFromDate: ptr("2026-03-01"), AIInstructions: "z"}
		}},
		{"feedback and question together", `{"question":{"tone":"calm"},"feedback":[{"rating":1,"tone":"calm"}]}`, "", func(s *mock.Settings) {
			s.Question.Tone, s.Feedback[0].Tone = "calm", "calm"
		}},
		{"switching unified on copies shared fields from the switching element", `{"feedback":[{"rating":4,"use_unified_settings":1}]}`, "", func(s *mock.Settings) {
			shared(s, 3)
		}},
		{"switching on with a new value in the same element", `{"feedback":[{"rating":2,"use_unified_settings":1,"signature":"S","tone":"calm"}]}`, "", func(s *mock.Settings) {
			s.Feedback[1].Signature = "S"
			s.Feedback[1].Tone = "calm"
			shared(s, 1)
		}},
		{"switching on while another element sets a shared field", `{"feedback":[{"rating":2,"use_unified_settings":1},{"rating":5,"excluded_words":"x","reply_mode":"disabled"}]}`, "", func(s *mock.Settings) {
			shared(s, 1)
			for i := range s.Feedback {
				s.Feedback[i].ExcludedWords = "x"
			}
			s.Feedback[4].ReplyMode = "disabled"
		}},
		{"the flag given the same way twice", `{"feedback":[{"rating":1,"use_unified_settings":1,"signature":"S"},{"rating":3,"use_unified_settings":1,"signature":"S"}]}`, "", func(s *mock.Settings) {
			s.Feedback[0].Signature = "S"
			shared(s, 0)
		}},
		{"separate settings stay separate", `{"feedback":[{"rating":1,"signature":"one"},{"rating":2,"signature":"two"}]}`, "", func(s *mock.Settings) {
			s.Feedback[0].Signature, s.Feedback[1].Signature = "one", "two"
		}},
	}
	// One server; each case has a session of its own, which starts from
	// the scenario's settings.
	h := newServer(t, mock.Options{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sid := fmt.Sprintf("patch-%d", i)
			ct := tc.ct
			if ct == "" {
				ct = "application/json"
			}
			r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", tc.body, "Content-Type", ct, "X-Mock-Session", sid)
			var got mock.Settings
			decodeOK(t, "PATCH "+tc.body, r, &got)
			want := orig
			tc.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PATCH %s:\n got %s\nwant %s", truncate([]byte(tc.body), 300), js(got), js(want))
			}
			if after := getSettingsAs(t, h, sid); !reflect.DeepEqual(after, got) {
				t.Errorf("GET after PATCH differs from the PATCH answer:\n got %s\nwant %s", js(after), js(got))
			}
		})
	}
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSettingsPatchErrors(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ы", n) }
	tests := []struct {
		name, body, field string
	}{
		{"empty body", ``, ""},
		{"whitespace body", "  \n", ""},
		{"malformed JSON", `{"feedback":`, "-"},
		{"not JSON", `hello`, "-"},
		{"array body", `[]`, ""},
		{"null body", `null`, ""},
		{"string body", `"x"`, ""},
		{"trailing data", `{} {}`, ""},
		{"trailing garbage", `{}x`, "-"},
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
	h := newServer(t, mock.Options{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sid := fmt.Sprintf("err-%d", i)
			// A change first, so that "nothing changed" is not just "still the scenario's".
			decodeOK(t, "setup", do(t, h, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":3,"signature":"before"}]}`,
				"Content-Type", "application/json", "X-Mock-Session", sid), new(mock.Settings))
			before := getSettingsAs(t, h, sid)
			r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", tc.body, "Content-Type", "application/json", "X-Mock-Session", sid)
			checkError(t, "PATCH "+string(truncate([]byte(tc.body), 100)), r, http.StatusBadRequest, mock.CodeInvalidBody, tc.field)
			if after := getSettingsAs(t, h, sid); !reflect.DeepEqual(before, after) {
				t.Errorf("a rejected PATCH changed the settings:\n got %s\nwant %s", js(after), js(before))
			}
		})
	}
}

// Text with any character but the control ones is taken and given back
// as sent: a surrogate pair is one character, and tab, line feed and
// carriage return are allowed.
func TestSettingsPatchText(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"an escaped surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"an upper-case escaped pair", `"\uD83D\uDE00!"`, "😀!"},
		{"emoji as UTF-8", `"😀👍🏽"`, "😀👍🏽"},
		{"tab, line feed, carriage return", `"a\tb\nc\r\n"`, "a\tb\nc\r\n"},
		{"a replacement character sent as such", `"\ufffd�"`, "\ufffd\ufffd"},
		{"the characters next to the refused ones", `"~\u00a0 "`, "~\u00a0 "},
		{"a line separator", `"a\u2028b"`, "a\u2028b"},
	}
	h := newServer(t, mock.Options{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sid := fmt.Sprintf("text-%d", i)
			body := `{"feedback":[{"rating":2,"signature":` + tc.json + `}],"question":{"ai_instructions":` + tc.json + `}}`
			r := do(t, h, http.MethodPatch, "/api/v1/settings/ai", body, "Content-Type", "application/json", "X-Mock-Session", sid)
			var patched mock.Settings
			decodeOK(t, "PATCH "+body, r, &patched)
			got := getSettingsAs(t, h, sid)
			for _, s := range []mock.Settings{patched, got} {
				if s.Feedback[1].Signature != tc.want || s.Question.AIInstructions != tc.want {
					t.Errorf("PATCH %s: signature %q, ai_instructions %q; want %q", body, s.Feedback[1].Signature, s.Question.AIInstructions, tc.want)
				}
			}
		})
	}
}

// While unified settings are on, shared fields move together and a
// conflict is rejected; mode and tone stay per rating; switching off
// leaves the values where they were.
func TestSettingsUnifiedSequence(t *testing.T) {
	h := newServer(t, mock.Options{})
	orig := getSettings(t, h)
	decodeOK(t, "switch on", patch(t, h, `{"feedback":[{"rating":5,"use_unified_settings":1}]}`), new(mock.Settings))

	var s mock.Settings
	decodeOK(t, "set signature", patch(t, h, `{"feedback":[{"rating":3,"signature":"Z","tone":"formal","reply_mode":"disabled"}]}`), &s)
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
	decodeOK(t, "agree", patch(t, h, `{"feedback":[{"rating":1,"required_words":"w"},{"rating":2,"required_words":"w"}]}`), &s)
	checkError(t, "disagree", patch(t, h, `{"feedback":[{"rating":1,"required_words":"a"},{"rating":2,"required_words":"b"}]}`),
		http.StatusBadRequest, mock.CodeInvalidBody, "feedback[1].required_words")
	if got := getSettings(t, h); got.Feedback[3].RequiredWords != "w" {
		t.Errorf("after the conflict, required_words = %q, want w", got.Feedback[3].RequiredWords)
	}

	decodeOK(t, "switch off", patch(t, h, `{"feedback":[{"rating":1,"use_unified_settings":0,"signature":"only one"}]}`), &s)
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

func TestSettingsPatchTransport(t *testing.T) {
	big := `{"question":{"ai_instructions":"` + strings.Repeat("x", mock.MaxBodyBytes) + `"}}`
	tests := []struct {
		name, body, ct string
		status         int
		code           string
	}{
		{"no Content-Type", `{}`, "", http.StatusUnsupportedMediaType, mock.CodeUnsupportedMediaType},
		{"text/plain", `{}`, "text/plain", http.StatusUnsupportedMediaType, mock.CodeUnsupportedMediaType},
		{"form", `{}`, "application/x-www-form-urlencoded", http.StatusUnsupportedMediaType, mock.CodeUnsupportedMediaType},
		{"json-like", `{}`, "application/jsonx", http.StatusUnsupportedMediaType, mock.CodeUnsupportedMediaType},
		{"malformed media type", `{}`, "application/json; =", http.StatusUnsupportedMediaType, mock.CodeUnsupportedMediaType},
		{"over 1 MiB", big, "application/json", http.StatusRequestEntityTooLarge, mock.CodePayloadTooLarge},
	}
	h := newServer(t, mock.Options{})
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sid := fmt.Sprintf("transport-%d", i)
			before := getSettingsAs(t, h, sid)
			hdr := []string{"X-Mock-Session", sid}
			if tc.ct != "" {
				hdr = append(hdr, "Content-Type", tc.ct)
			}
			checkError(t, "PATCH "+tc.name, do(t, h, http.MethodPatch, "/api/v1/settings/ai", tc.body, hdr...), tc.status, tc.code, "")
			if after := getSettingsAs(t, h, sid); !reflect.DeepEqual(before, after) {
				t.Error("a rejected PATCH changed the settings")
			}
		})
	}
}

// A scenario may restrict tones to a list; PATCH then rejects others.
func TestSettingsScenarioTones(t *testing.T) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"toned.yaml": {Data: append(def, "tones: [friendly, empathetic, formal]\n"...)}}
	h := newServer(t, mock.Options{Scenarios: fsys, Scenario: "toned"})
	checkError(t, "tone pirate", patch(t, h, `{"feedback":[{"rating":1,"tone":"pirate"}]}`), http.StatusBadRequest, mock.CodeInvalidBody, "feedback[0].tone")
	checkError(t, "question tone pirate", patch(t, h, `{"question":{"tone":"pirate"}}`), http.StatusBadRequest, mock.CodeInvalidBody, "question.tone")
	var s mock.Settings
	decodeOK(t, "tone formal", patch(t, h, `{"feedback":[{"rating":1,"tone":"formal"}]}`), &s)
	if s.Feedback[0].Tone != "formal" {
		t.Errorf("tone = %q, want formal", s.Feedback[0].Tone)
	}
}
