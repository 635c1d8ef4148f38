package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/replymock/replymock/mock"
)

// badValues are values a parameter's schema refuses, each with why.
func badValues(s *openapi3.Schema) map[string]string {
	bad := map[string]string{}
	switch {
	case s.Type.Is("integer"):
		bad["x"] = "not an integer"
		if s.Min != nil {
			bad[fmt.Sprint(int64(*s.Min)-1)] = "below its minimum"
		}
		if s.Max != nil {
			bad[fmt.Sprint(int64(*s.Max)+1)] = "above its maximum"
		}
	case s.Type.Is("boolean"):
		bad["maybe"] = "not a boolean"
	case s.Type.Is("string"):
		if len(s.Enum) > 0 {
			bad["no-such-value"] = "not in its enum"
		}
		if s.MinLength > 0 {
			bad[""] = "shorter than its minLength"
		}
		if s.MaxLength != nil {
			bad[strings.Repeat("a", int(*s.MaxLength)+1)] = "longer than its maxLength"
		}
		if s.Pattern != "" {
			re := regexp.MustCompile(s.Pattern)
			for _, v := range []string{"", "a b", "Bad!", "é", strings.Repeat("a", 129)} {
				if !re.MatchString(v) {
					bad[v] = "not matching its pattern"
				}
			}
		}
	}
	return bad
}

// TestEveryParameterRefusesWhatItsDocumentRefuses: every query, header
// and path parameter of both OpenAPI documents, sent a value its schema
// refuses, is answered 400 naming it (or 404 for a path parameter), and
// the request changes nothing. The documents are the list: a parameter
// added to one is tested here without a line more.
func TestEveryParameterRefusesWhatItsDocumentRefuses(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)} // snapshots say when they were taken
	h := newServer(t, mock.Options{Now: clock.now})
	patch(t, h, `{"feedback":[{"rating":2,"signature":"kept"}]}`)
	admin(t, h, "POST", "/__mock/faults?session=keep", `{"times":1000,"path":"/feedbacks","error":{"status":503}}`)
	state := func() string {
		var b strings.Builder
		for _, target := range []string{"/__mock/snapshot?session=default&format=json", "/__mock/snapshot?session=keep&format=json", "/__mock/faults?session=*", "/__mock/overrides"} {
			b.Write(admin(t, h, "GET", target, "").body)
		}
		return b.String()
	}
	before := state()
	bodies := map[string]string{
		"/__mock/scenario":    `{"name":"en-shop"}`,
		"/__mock/faults":      `{"error":{"status":500}}`,
		"/__mock/overrides":   `{}`,
		"/__mock/data":        `{"mode":"append","reviews":[]}`,
		"/__mock/clock":       `{"advance":"1h"}`,
		"/__mock/verify":      `{"method":"GET","path":"/api/v1/feedbacks"}`,
		"/api/v1/settings/ai": `{"feedback":[{"rating":1,"tone":"warm"}]}`,
	}
	tested := 0
	for _, doc := range []struct {
		name string
		data []byte
	}{{"openapi.yaml", mock.OpenAPIDocument()}, {"admin-openapi.yaml", mock.AdminOpenAPIDocument()}} {
		d, err := openapi3.NewLoader().LoadFromData(doc.data)
		if err != nil {
			t.Fatal(err)
		}
		prefix := ""
		if doc.name == "openapi.yaml" {
			prefix = "/api/v1"
		}
		for path, item := range d.Paths.Map() {
			for method, op := range item.Operations() {
				if method == http.MethodHead {
					continue
				}
				params := append(slices.Clone(item.Parameters), op.Parameters...)
				for _, pr := range params {
					p := pr.Value
					if p.Schema == nil || p.In == "cookie" {
						continue
					}
					for value, why := range badValues(p.Schema.Value) {
						target, header := prefix+path, http.Header{}
						query := url.Values{}
						switch p.In {
						case "query":
							query.Set(p.Name, value)
						case "header":
							header.Set(p.Name, value)
						case "path":
							target = strings.ReplaceAll(target, "{"+p.Name+"}", url.PathEscape(value))
						}
						for _, other := range params { // the other path parameters, valid
							if other.Value.In == "path" && other.Value.Name != p.Name {
								target = strings.ReplaceAll(target, "{"+other.Value.Name+"}", "f1")
							}
						}
						if len(query) > 0 {
							target += "?" + query.Encode()
						}
						var hv []string
						for k, vs := range header {
							hv = append(hv, k, vs[0])
						}
						r := do(t, h, method, target, bodies[strings.TrimSuffix(prefix+path, "/{id}")], append(hv, "Content-Type", "application/json")...)
						tested++
						var env struct {
							Error struct{ Field, Message string }
						}
						json.Unmarshal(r.body, &env)
						what := fmt.Sprintf("%s %s: %s %s=%q (%s)", doc.name, method, path, p.In, value, why)
						switch {
						case p.In == "path" && r.status == http.StatusNotFound:
						case r.status != http.StatusBadRequest:
							t.Errorf("%s: %d %.200s; want 400", what, r.status, r.body)
						case !strings.EqualFold(env.Error.Field, p.Name):
							t.Errorf("%s: field %q (%s); want %q", what, env.Error.Field, env.Error.Message, p.Name)
						}
						if after := state(); after != before {
							i := 0
							for i < min(len(after), len(before)) && after[i] == before[i] {
								i++
							}
							t.Fatalf("%s changed the state at byte %d: %.300s\nwas %.300s", what, i, after[max(i-100, 0):], before[max(i-100, 0):])
						}
					}
				}
			}
		}
	}
	if tested < 50 {
		t.Errorf("only %d bad values were sent: the documents' parameters were not read", tested)
	}
	t.Logf("%d bad values sent", tested)
}
