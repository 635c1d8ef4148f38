package settings

// ElementSchema is the JSON Schema of one element of a PATCH body, made
// from the field table: a feedback element, whose rating is required,
// or, with question, the question object. The MCP server's
// patch_settings tool offers it to agents.
func ElementSchema(question bool) map[string]any {
	in := inFeedback
	if question {
		in = inQuestion
	}
	props := map[string]any{}
	var required []string
	for _, f := range fields {
		if f.in&in == 0 {
			continue
		}
		var s map[string]any
		switch f.kind {
		case kindEnum:
			s = map[string]any{"type": "string", "enum": f.values}
		case kindText:
			s = map[string]any{"type": "string", "maxLength": f.max}
			if f.nonBlank {
				s["minLength"] = 1
			}
		case kindDate:
			s = map[string]any{"type": []string{"string", "null"}, "format": "date"}
		case kindBool:
			s = map[string]any{"type": "integer", "enum": []int{0, 1}}
		case kindInt:
			s = map[string]any{"type": "integer", "minimum": f.min, "maximum": f.max}
		}
		props[f.name] = s
		if f.key {
			required = append(required, f.name)
		}
	}
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if required != nil {
		out["required"] = required
	}
	return out
}
