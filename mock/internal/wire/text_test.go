package wire

import "testing"

func TestCheckChars(t *testing.T) {
	for _, ok := range []string{"", "plain", "tab\tline\ncr\r", "😀 ~\u00a0", "\u2028"} {
		if err := CheckChars(ok, "x"); err != nil {
			t.Errorf("CheckChars(%q): %v", ok, err)
		}
	}
	for in, want := range map[string]string{
		"a\xffb":   "must be valid UTF-8 text: byte 0xff (character 2) is not UTF-8",
		"ab\x00":   "must not contain control characters: U+0000 at character 3 (tab, line feed and carriage return are allowed)",
		"\x1b[31m": "must not contain control characters: U+001B at character 1 (tab, line feed and carriage return are allowed)",
		"я\x7f":    "must not contain control characters: U+007F at character 2 (tab, line feed and carriage return are allowed)",
		"\u0085":   "must not contain control characters: U+0085 at character 1 (tab, line feed and carriage return are allowed)",
	} {
		err := CheckChars(in, "x.y")
		if ae, ok := err.(*APIError); !ok || ae.Field != "x.y" || ae.Code != CodeInvalidBody || ae.Message != want {
			t.Errorf("CheckChars(%q) = %v, want invalid_body at x.y: %s", in, err, want)
		}
	}
}

func TestJoinWords(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{{nil, ""}, {[]string{"a"}, "a"}, {[]string{"a", "b"}, "a or b"}, {[]string{"a", "b", "c"}, "a, b or c"}} {
		if got := JoinWords(tc.words, "or"); got != tc.want {
			t.Errorf("JoinWords(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
}
