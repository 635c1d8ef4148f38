package reviews

import (
	"bytes"
	"encoding/json"
	"testing"
)

// AppendJSON writes exactly what encoding/json writes.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	tricky := []string{"", "plain", `"quoted" \back\slash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
		"<b>&amp;</b>", "ёЁ 🐈‍⬛ emoji", "bad \xff\xfe utf8", "line\u2028sep\u2029par", "\u00e9\u0301",
		"end\u2028", "\u2029", "lone \xe2", "cut \xe2\x80", "\xe2\x80\xa8 valid", "\xe2\x82\xac euro", "\xed\xa0\x80 surrogate"}
	fbs := []Feedback{{ID: 1, Video: json.RawMessage(`null`)}}
	for i, s := range tricky {
		fbs = append(fbs, Feedback{ID: int64(i), FeedbackID: s, NmID: -5, ImtID: 1 << 62, Text: s, Pros: s, Cons: s,
			ProductValuation: i % 6, ValuationTags: s, CreatedDate: s, AnswerText: s, AnswerState: s, ProductName: s,
			SupplierArticle: s, BrandName: s, Photos: s, Video: json.RawMessage(`{"a":1,"b":"x"}`), UserName: s, WasViewed: i % 2, State: s, CreatedAt: s})
	}
	for _, f := range fbs {
		want := marshal(t, &f)
		if got := AppendJSON(nil, &f); !bytes.Equal(got, want) {
			t.Errorf("AppendJSON\n got %s\nwant %s", got, want)
		}
	}
}

func TestAppendJSONListMatchesEncodingJSON(t *testing.T) {
	for _, items := range [][]string{nil, {}, {"a"}, {"ё", "<b>", "\u2028", "bad\xff", `q"`}} {
		want := marshal(t, items)
		if items == nil {
			want = []byte("[]")
		}
		if got := AppendJSONList(nil, items); !bytes.Equal(got, want) {
			t.Errorf("AppendJSONList(%q) = %s, want %s", items, got, want)
		}
	}
}
