package wire

import (
	"errors"
	"io"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// DecodeStrict decodes a JSON body into v, a pointer to a zero value.
// Unknown fields, duplicate names, text that is not UTF-8, trailing data
// and wrong types are errors naming the field. Names match exactly.
func DecodeStrict(body []byte, v any) error {
	err := jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	var serr *jsonv2.SemanticError
	var syn *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return InvalidBody("", "malformed JSON: unexpected end of input")
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		return InvalidBody(fieldPath(syn.JSONPointer), "duplicate key")
	case errors.As(err, &syn):
		return InvalidBody("", "malformed JSON: %s (at byte %d)", problem(syn.Err), syn.ByteOffset) // its path may be 10,000 arrays deep
	case !errors.As(err, &serr):
		return InvalidBody("", "%s", problem(err))
	case errors.Is(serr.Err, jsonv2.ErrUnknownName):
		return InvalidBody(fieldPath(serr.JSONPointer), "unknown field")
	case serr.GoType != nil && (serr.Err == nil || errors.Is(serr.Err, strconv.ErrSyntax) || errors.Is(serr.Err, strconv.ErrRange)):
		got := JSONKind([]byte{byte(serr.JSONKind)}) // a kind is its value's first byte, or '0' for a number
		if serr.JSONKind == '0' && len(serr.JSONValue) > 0 {
			got = string(serr.JSONValue)
		}
		return InvalidBody(fieldPath(serr.JSONPointer), "must be %s, got %s", jsonWant(serr.GoType), got)
	case serr.Err != nil:
		return InvalidBody(fieldPath(serr.JSONPointer), "%s", problem(serr.Err))
	}
	return InvalidBody(fieldPath(serr.JSONPointer), "%s", problem(err))
}

func problem(err error) string {
	msg := strings.TrimPrefix(err.Error(), "jsontext: ")
	return strings.TrimPrefix(msg, "json: ")
}

// fieldPath names the value at a JSON pointer as problems name fields:
// "/items/0/name" is "items[0].name". A name of digits only is taken for
// an array's index.
func fieldPath(p jsontext.Pointer) string {
	return pathOf(p, -1, func(_ int, tok string) bool { return tok != "" && strings.Trim(tok, "0123456789") == "" })
}

// pathOf names the first n tokens of p (all for n < 0) as problems name
// fields, writing "[tok]" for those isIndex tells (given each one's
// place, from 1).
func pathOf(p jsontext.Pointer, n int, isIndex func(i int, tok string) bool) string {
	var b strings.Builder
	i := 0
	for tok := range p.Tokens() {
		if i++; n >= 0 && i > n {
			break
		}
		if isIndex(i, tok) {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}
