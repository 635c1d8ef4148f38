package settings

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Patch is a decoded PATCH body, each value checked on its own. Apply
// checks what needs the current settings.
type Patch struct {
	feedback []element
	question *element
}

// element is one decoded element of a PATCH's feedback array, or the
// question object (rating 0).
type element struct {
	path   string
	rating int
	values map[string]any
	order  []*field // the fields set, in document order
}

// PatchShape bounds a PATCH body before it is decoded: a feedback
// element per rating at most, a few fields in each.
var PatchShape = &wire.Shape{What: "a settings PATCH", Items: 1000, Array: 100, Members: 100,
	Arrays: []wire.Bound{{Path: "feedback", Max: 5, Msg: "at most %d elements, one for each rating, got %d"}}}

// DecodePatch decodes and checks a PATCH body, field by field.
func DecodePatch(body []byte, rules Rules) (*Patch, error) {
	switch {
	case len(strings.TrimSpace(string(body))) == 0:
		return nil, wire.InvalidBody("", "request body is empty; send a JSON object such as {}")
	case !json.Valid(body):
		var v any
		return nil, wire.InvalidBody("", "malformed JSON: %s", wire.JSONProblem(json.Unmarshal(body, &v)))
	}
	p := &Patch{}
	err := wire.EachMember(body, "", func(key string, raw json.RawMessage) error {
		switch key {
		case "feedback":
			return wire.EachElement(raw, "feedback", func(i int, raw json.RawMessage) error {
				e, err := decodeElement(raw, fmt.Sprintf("feedback[%d]", i), inFeedback, rules)
				if err != nil {
					return err
				}
				p.feedback = append(p.feedback, *e)
				return nil
			})
		case "question":
			e, err := decodeElement(raw, "question", inQuestion, rules)
			p.question = e
			return err
		default:
			return wire.InvalidBody(key, "unknown field; the body may hold feedback and question")
		}
	})
	if err != nil {
		return nil, err
	}
	return p, p.check()
}

func decodeElement(raw []byte, path string, in elements, rules Rules) (*element, error) {
	e := &element{path: path, values: make(map[string]any)}
	err := wire.EachMember(raw, path, func(key string, raw json.RawMessage) error {
		fp := path + "." + key
		f := lookup(key, in)
		if f == nil {
			return wire.InvalidBody(fp, "unknown field; allowed: %s", strings.Join(fieldNames(in), ", "))
		}
		v, err := f.decode(raw, fp, rules)
		if err != nil {
			return err
		}
		if f.key {
			e.rating = v.(int)
			return nil
		}
		e.values[key] = v
		e.order = append(e.order, f)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if in == inFeedback && e.rating == 0 {
		return nil, wire.InvalidBody(path+".rating", "required: each feedback element names its rating (1 to 5)")
	}
	return e, nil
}

// check finds conflicts between the elements of one PATCH: a rating named
// twice, and different use_unified_settings values.
func (p *Patch) check() error {
	byRating := make(map[int]string)
	var flagSetter *element
	for i := range p.feedback {
		e := &p.feedback[i]
		if prev, ok := byRating[e.rating]; ok {
			return wire.InvalidBody(e.path+".rating", "rating %d is already set by %s", e.rating, prev)
		}
		byRating[e.rating] = e.path
		if v, ok := e.values[unifiedName]; ok {
			if flagSetter == nil {
				flagSetter = e
			} else if flagSetter.values[unifiedName] != v {
				return wire.InvalidBody(e.path+"."+unifiedName, "conflicts with %s.%s: the flag is one for all ratings", flagSetter.path, unifiedName)
			}
		}
	}
	return nil
}

// Apply returns cur with the patch applied, or cur as it was with an
// error. While use_unified_settings is 1, the shared fields stay equal
// in all five elements.
func (p *Patch) Apply(cur Settings) (Settings, error) {
	wasUnified := cur.Feedback[0].UseUnifiedSettings == 1
	unified, switcher := wasUnified, (*element)(nil) // switcher: the first element that carries the flag
	for i := range p.feedback {
		if v, ok := p.feedback[i].values[unifiedName]; ok {
			unified = v == 1
			if switcher == nil {
				switcher = &p.feedback[i]
			}
		}
	}
	if unified {
		if err := p.sharedAgree(); err != nil {
			return cur, err
		}
	}
	next := cur
	for _, e := range p.feedback {
		el := &next.Feedback[e.rating-1]
		for _, f := range e.order {
			f.set(el, e.values[f.name])
		}
	}
	for i := range next.Feedback {
		next.Feedback[i].UseUnifiedSettings = 0
		if unified {
			next.Feedback[i].UseUnifiedSettings = 1
		}
	}
	if unified {
		src := -1
		if !wasUnified && switcher != nil {
			src = switcher.rating - 1
		}
		p.spreadShared(&next, src)
	}
	if q := p.question; q != nil {
		for _, f := range q.order {
			f.set(&next.Question, q.values[f.name])
		}
	}
	return next, nil
}

// sharedAgree reports a shared field the patch sets to different values
// in two elements: with unified settings there is one value per field.
func (p *Patch) sharedAgree() error {
	setBy := make(map[string]*element)
	for i := range p.feedback {
		e := &p.feedback[i]
		for i := range fields {
			f := &fields[i]
			v, ok := e.values[f.name]
			if !f.shared || !ok {
				continue
			}
			if prev, ok := setBy[f.name]; ok && !reflect.DeepEqual(prev.values[f.name], v) {
				return wire.InvalidBody(e.path+"."+f.name, "conflicts with %s.%s: with %s 1 the field is shared by all ratings", prev.path, f.name, unifiedName)
			}
			setBy[f.name] = e
		}
	}
	return nil
}

// spreadShared makes the shared fields of s equal in all five elements.
// A field the patch set is copied from the element that set it; when the
// patch switches unified settings on, the others come from the element
// that switched them (index src, else -1).
func (p *Patch) spreadShared(s *Settings, src int) {
	set := make(map[string]bool)
	for _, e := range p.feedback {
		for _, f := range e.order {
			if f.shared {
				copyShared(s, e.rating-1, f)
				set[f.name] = true
			}
		}
	}
	if src < 0 {
		return
	}
	for i := range fields {
		if f := &fields[i]; f.shared && !set[f.name] {
			copyShared(s, src, f)
		}
	}
}

func copyShared(s *Settings, src int, f *field) {
	v := f.get(&s.Feedback[src])
	for i := range s.Feedback {
		f.set(&s.Feedback[i], v)
	}
}
