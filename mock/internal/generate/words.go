package generate

import (
	"slices"
	"strings"
	"unicode"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// SplitWords splits a word list written with commas or line breaks.
func SplitWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ';' }) {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// ContainsWord reports whether s holds one of words as a whole word (or
// phrase), ignoring case.
func ContainsWord(s string, words []string) bool {
	if len(words) == 0 {
		return false
	}
	fs := []rune(reviews.Fold(s))
	return slices.ContainsFunc(words, func(w string) bool { return holdsWord(fs, w) })
}

// holdsWord reports whether fs, case-folded text, holds w as a whole
// word or phrase.
func holdsWord(fs []rune, w string) bool {
	fw := []rune(reviews.Fold(w))
	if len(fw) == 0 {
		return false
	}
	for i := 0; i+len(fw) <= len(fs); i++ {
		if fs[i] != fw[0] || !slices.Equal(fs[i:i+len(fw)], fw) {
			continue
		}
		before := i == 0 || !isWordRune(fs[i-1])
		after := i+len(fw) == len(fs) || !isWordRune(fs[i+len(fw)])
		if before && after {
			return true
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func upperFirst(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
