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

// PATCH through the server: the answer is the full settings, and GET
// shows them after. Every decoding and applying case is in the settings
// package's TestApply; these are the ones that depend on the transport
// (the Content-Type, JSON text on the wire) or show the path end to end.
func TestSettingsPatch(t *testing.T) {
	orig := getSettings(t, newServer(t, mock.Options{}))
	if orig.Feedback[0].UseUnifiedSettings != 0 {
		t.Fatal("the default settings are expected to start with separate settings per rating")
	}
	tests := []struct {
		name string
		body string
		ct   string
		want func(s *mock.Settings)
	}{
		{"empty object is a no-op", `{}`, "", func(*mock.Settings) {}},
		{"whitespace around the object", " \n{ }\n ", "", func(*mock.Settings) {}},
		{"charset parameter", `{}`, "application/json; charset=utf-8", func(*mock.Settings) {}},
		{"media type in capitals", `{}`, "Application/JSON", func(*mock.Settings) {}},
		{"every field of one rating", `{"feedback":[{"rating":1,"reply_mode":"auto","signature":"Подпись","tone":"formal","excluded_words":"а,б","required_words":"в\nг","empty_review_mode":"generate","use_unified_settings":0,"reply_from_date":"2024-02-29","ai_instructions":"Кратко."}]}`, "", func(s *mock.Settings) {
			s.Feedback[0] = mock.FeedbackSettings{Rating: 1, ReplyMode: "auto", Signature: "Подпись", Tone: "formal", ExcludedWords: "а,б", RequiredWords: "в\nг",
				EmptyReviewMode: "generate", ReplyFromDate: ptr("2024-02-29"), AIInstructions: "Кратко."}
		}},
		{"question fields", `{"question":{"reply_mode":"auto","signature":"Q","tone":"calm","excluded_words":"x","required_words":"y","reply_from_date":"2026-03-01","ai_instructions":"z"}}`, "", func(s *mock.Settings) {
			s.Question = mock.QuestionSettings{ReplyMode: "auto", Signature: "Q", Tone: "calm", ExcludedWords: "x", RequiredWords: "y", ReplyFromDate: ptr("2026-03-01"), AIInstructions: "z"}
		}},
		{"switching unified on copies shared fields from the switching element", `{"feedback":[{"rating":4,"use_unified_settings":1}]}`, "", func(s *mock.Settings) {
			f := s.Feedback[3]
			for i := range s.Feedback {
				e := &s.Feedback[i]
				e.Signature, e.ExcludedWords, e.RequiredWords = f.Signature, f.ExcludedWords, f.RequiredWords
				e.EmptyReviewMode, e.ReplyFromDate, e.AIInstructions = f.EmptyReviewMode, f.ReplyFromDate, f.AIInstructions
				e.UseUnifiedSettings = 1
			}
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

// A refused PATCH is a 400 invalid_body in the error envelope, and
// changes nothing in the session. Every way a body is refused is in the
// settings package's TestDecodePatchErrors; here is one of each stage:
// the body, a field, the elements together, the current settings.
func TestSettingsPatchErrors(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"empty body", ``, ""},
		{"malformed JSON", `{"feedback":`, "-"},
		{"unknown top-level field", `{"feedbacks":[]}`, "feedbacks"},
		{"rating missing", `{"feedback":[{"tone":"x"}]}`, "feedback[0].rating"},
		{"reply_mode unknown", `{"feedback":[{"rating":2,"reply_mode":"manual"}]}`, "feedback[0].reply_mode"},
		{"invalid UTF-8", "{\"question\":{\"tone\":\"a\xff\"}}", "question.tone"},
		{"NUL", `{"feedback":[{"rating":2,"signature":"a\u0000b"}]}`, "feedback[0].signature"},
		{"later element bad, earlier good", `{"feedback":[{"rating":1,"tone":"calm"},{"rating":2,"reply_mode":"nope"}]}`, "feedback[1].reply_mode"},
		{"feedback good, question bad", `{"feedback":[{"rating":1,"tone":"calm"}],"question":{"tone":""}}`, "question.tone"},
		{"duplicate rating", `{"feedback":[{"rating":2},{"rating":2}]}`, "feedback[1].rating"},
		{"flags disagree", `{"feedback":[{"rating":1,"use_unified_settings":1},{"rating":2,"use_unified_settings":0}]}`, "feedback[1].use_unified_settings"},
		{"shared values disagree while switching on", `{"feedback":[{"rating":1,"use_unified_settings":1,"signature":"a"},{"rating":2,"signature":"b"}]}`, "feedback[1].signature"},
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
