package wire

import (
	"strings"
	"unicode/utf8"
)

// CheckChars refuses text that is not UTF-8 and control characters other
// than tab, line feed and carriage return: they would end up in the
// replies written from such text, and in the logs and terminals that
// show them.
func CheckChars(s, path string) error {
	for i, char := 0, 1; i < len(s); char++ {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			return InvalidBody(path, "must be valid UTF-8 text: byte 0x%02x (character %d) is not UTF-8", s[i], char)
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7f && r <= 0x9f:
			return InvalidBody(path, "must not contain control characters: U+%04X at character %d (tab, line feed and carriage return are allowed)", r, char)
		}
		i += n
	}
	return nil
}

// JoinWords writes words as a list ending with conj: "a, b and c".
func JoinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// Redacted stands for a secret wherever one is shown as having been.
const Redacted = "[redacted]"
