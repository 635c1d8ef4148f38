package wire

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeStrict decodes a JSON body into v, a pointer to a zero value:
// unknown fields, trailing data and wrong types are invalid_body errors.
//
// A body that decodes and names no unknown field is decoded from where it
// is (json.Unmarshal copies nothing of it); any other goes again through
// encoding/json's Decoder, which copies the body into buffers of its own
// but words each refusal as this package always has.
func DecodeStrict(body []byte, v any) error {
	// json.Unmarshal refuses what is not one JSON value before it decodes;
	// then, like the Decoder, it returns the first value of a wrong type.
	// With no unknown field (which the Decoder would have named if first),
	// both say the same.
	err := json.Unmarshal(body, v)
	var ute *json.UnmarshalTypeError
	if (err == nil || errors.As(err, &ute)) && knownFields(body, reflect.TypeOf(v)) {
		return strictError(err)
	}
	reflect.ValueOf(v).Elem().SetZero() // as it was: the refusal is the Decoder's
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return strictError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return InvalidBody("", "unexpected data after the JSON value")
	}
	return nil
}

// strictError words a decoding error as an invalid_body one: a value of
// a wrong type by its field and the JSON it wants.
func strictError(err error) error {
	if err == nil {
		return nil
	}
	var ute *json.UnmarshalTypeError
	if errors.As(err, &ute) && ute.Field != "" {
		return InvalidBody(ute.Field, "must be %s, got %s", jsonWant(ute.Type), ute.Value)
	}
	return InvalidBody("", "%s", JSONProblem(err))
}

// knownFields reports whether every member of every object of body, a
// valid JSON document, names a field of the Go type it is decoded into,
// as encoding/json matches them (exactly or with bytes.EqualFold);
// false when it may not, so that the Decoder says which. The insides of
// values that decode themselves (json.Unmarshaler, encoding.TextUnmarshaler),
// of maps' keys and of interfaces are not looked at: the Decoder does
// not either.
func knownFields(body []byte, t reflect.Type) bool {
	dec, done := reader(body)
	defer done()
	return known(dec, t) && dec.PeekKind() == 0
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// known reads the next value of dec, decoded into a t, and reports
// whether its objects' members are all t's fields.
func known(dec *jsontext.Decoder, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	kind := dec.PeekKind()
	if kind != '{' && kind != '[' || reflect.PointerTo(t).Implements(unmarshalerType) ||
		reflect.PointerTo(t).Implements(textUnmarshalerType) || t.Kind() == reflect.Interface {
		return dec.SkipValue() == nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	var fields *structFields
	switch {
	case kind == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for dec.PeekKind() != ']' {
			if !known(dec, t.Elem()) {
				return false
			}
		}
	case kind == '{' && t.Kind() == reflect.Map:
		for dec.PeekKind() != '}' {
			if dec.SkipValue() != nil || !known(dec, t.Elem()) {
				return false
			}
		}
	case kind == '{' && t.Kind() == reflect.Struct:
		if fields = fieldsOf(t); fields.unsure {
			return false
		}
		for dec.PeekKind() != '}' {
			name, err := dec.ReadValue()
			if err != nil {
				return false
			}
			ft, ok := fields.find(name)
			if !ok || !known(dec, ft) {
				return false
			}
		}
	default:
		return false // the Decoder refuses it, or says more than this does
	}
	_, err := dec.ReadToken()
	return err == nil
}

// structFields are the JSON names of a struct type's fields and their
// types, as encoding/json sees them.
type structFields struct {
	names  []string
	types  []reflect.Type
	unsure bool // names this does not read as encoding/json does: let it decide
}

// find is the type of the field a member's name (a JSON string literal)
// names.
func (f *structFields) find(lit []byte) (reflect.Type, bool) {
	if !plainString(lit) {
		return nil, false // escapes: the Decoder decides
	}
	name := lit[1 : len(lit)-1]
	for i, n := range f.names {
		if string(name) == n {
			return f.types[i], true
		}
	}
	for i, n := range f.names {
		if bytes.EqualFold(name, []byte(n)) {
			return f.types[i], true
		}
	}
	return nil, false
}

var fieldCache sync.Map // reflect.Type → *structFields

// fieldsOf is t's fields: exported ones, by their tag's name or their
// own, those of embedded structs promoted; a name met twice makes it
// unsure.
func fieldsOf(t reflect.Type) *structFields {
	if f, ok := fieldCache.Load(t); ok {
		return f.(*structFields)
	}
	f := &structFields{}
	f.add(t, 0)
	seen := make(map[string]bool)
	for _, n := range f.names {
		if seen[strings.ToLower(n)] {
			f.unsure = true
		}
		seen[strings.ToLower(n)] = true
	}
	fieldCache.Store(t, f)
	return f
}

// add adds t's fields, embedded ones at depth+1.
func (f *structFields) add(t reflect.Type, depth int) {
	if depth > 4 {
		f.unsure = true
		return
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				f.unsure = true // set through a pointer: let the Decoder decide
				continue
			}
			if ft.Kind() == reflect.Struct {
				f.add(ft, depth+1)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.names = append(f.names, name)
		f.types = append(f.types, ft)
	}
}
