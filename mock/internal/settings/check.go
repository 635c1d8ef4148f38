package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// decode reads f's value, of its Go type (see field.of), from a PATCH
// element and checks it on its own.
func (f *field) decode(raw json.RawMessage, path string, rules Rules) (any, error) {
	var v any
	switch k := wire.JSONKind(raw); {
	case f.kind == kindInt || f.kind == kindBool:
		n, err := wire.DecodeInt(raw, path)
		if err != nil {
			return nil, err
		}
		v = int(n)
	case f.kind == kindDate && k == "null":
		return (*string)(nil), nil
	case f.kind == kindDate && k != "string":
		return nil, wire.InvalidBody(path, "must be null or a date YYYY-MM-DD, got %s", k)
	default:
		s, err := wire.DecodeString(raw, path)
		if err != nil {
			return nil, err
		}
		v = s
		if f.kind == kindDate {
			v = &s
		}
	}
	return v, f.check(v, path, rules)
}

// choices lists the integers lo to hi: "0 or 1", "1, 2, 3, 4 or 5".
func choices(lo, hi int) string {
	var s []string
	for n := lo; n <= hi; n++ {
		s = append(s, strconv.Itoa(n))
	}
	return wire.JoinWords(s, "or")
}

func checkEnum(s string, allowed []string, path string) error {
	if slices.Contains(allowed, s) {
		return nil
	}
	return wire.InvalidBody(path, "must be one of %s, got %q", strings.Join(allowed, ", "), wire.Clip(s))
}

// check checks a value of f on its own.
func (f *field) check(v any, path string, rules Rules) error {
	switch f.kind {
	case kindDate:
		if d := v.(*string); d != nil {
			if _, ok := reviews.ParseDate(*d); !ok {
				return wire.InvalidBody(path, "must be null or a real date YYYY-MM-DD, got %q", *d)
			}
		}
		return nil
	case kindInt, kindBool:
		lo, hi := f.min, f.max
		if f.kind == kindBool {
			lo, hi = 0, 1
		}
		if v.(int) < lo || v.(int) > hi {
			return wire.InvalidBody(path, "must be %s, got %d", choices(lo, hi), v)
		}
		return nil
	}
	s := v.(string)
	if err := wire.CheckChars(s, path); err != nil {
		return err
	}
	if f.kind == kindEnum {
		return checkEnum(s, f.values, path)
	}
	if f.nonBlank && strings.TrimSpace(s) == "" {
		return wire.InvalidBody(path, "must not be empty")
	}
	if f.toned && len(rules.Tones) > 0 {
		if err := checkEnum(s, rules.Tones, path); err != nil {
			return err
		}
	}
	if n := utf8.RuneCountInString(s); n > f.max {
		return wire.InvalidBody(path, "must be at most %d characters, got %d", f.max, n)
	}
	return nil
}

// checkOrder lists the fields in the order Validate reports their
// problems: the strings, then the dates, then the numbers.
func checkOrder() []*field {
	rank := map[kind]int{kindEnum: 0, kindText: 0, kindDate: 1, kindBool: 2, kindInt: 2}
	var out []*field
	for i := range fields {
		out = append(out, &fields[i])
	}
	slices.SortStableFunc(out, func(a, b *field) int { return rank[a.kind] - rank[b.kind] })
	return out
}

// Validate checks a complete Settings value, such as a settings fixture
// or a restored snapshot's. Problems name JSON paths.
func (s *Settings) Validate(rules Rules) []*wire.APIError {
	var errs []*wire.APIError
	add := func(err error) {
		if err != nil {
			errs = append(errs, err.(*wire.APIError))
		}
	}
	order := checkOrder()
	first := &s.Feedback[0]
	for i := range s.Feedback {
		el := &s.Feedback[i]
		p := fmt.Sprintf("feedback[%d]", i)
		if el.Rating != i+1 {
			add(wire.InvalidBody(p+".rating", "must be %d: elements are ordered by rating 1 to 5", i+1))
		}
		sameShared := true
		for _, f := range order {
			if f.in&inFeedback == 0 || f.key {
				continue
			}
			err := f.check(f.get(el), p+"."+f.name, rules)
			if err == nil && f.name == unifiedName && el.UseUnifiedSettings != first.UseUnifiedSettings {
				err = wire.InvalidBody(p+"."+f.name, "must equal feedback[0].%s: the flag is one for all ratings", unifiedName)
			}
			add(err)
			if f.shared && !reflect.DeepEqual(f.get(el), f.get(first)) {
				sameShared = false
			}
		}
		if first.UseUnifiedSettings == 1 && i > 0 && !sameShared {
			add(wire.InvalidBody(p, "with %s 1, %s must equal those of feedback[0]", unifiedName, strings.Join(sharedNames(), ", ")))
		}
	}
	for _, f := range order {
		if f.in&inQuestion != 0 {
			add(f.check(f.get(&s.Question), "question."+f.name, rules))
		}
	}
	return errs
}
