package mock_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
	"gopkg.in/yaml.v3"
)

// sharedSchemas are the API's schemas the admin document copies: the
// review record and the settings. The copies stay in the admin document
// because its served form (/__mock/admin/openapi.yaml) could not reach
// the API's by a relative $ref: from there, openapi.yaml is itself.
var sharedSchemas = []string{
	"Timestamp", "ReplyMode", "EmptyReviewMode", "FeedbackSettings", "QuestionSettings", "Settings",
	"Feedback", "Photo", "PhotoList", "ValuationTags", "ValuationTag", "Video",
}

// TestOpenAPIDocumentsShareSchemas: the admin document's copies of the
// API's schemas are the API's, word for word, and every schema they
// refer to is shared too.
func TestOpenAPIDocumentsShareSchemas(t *testing.T) {
	schemasOf := func(what string, doc []byte) map[string]any {
		var d struct {
			Components struct {
				Schemas map[string]any `yaml:"schemas"`
			} `yaml:"components"`
		}
		if err := yaml.Unmarshal(doc, &d); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return d.Components.Schemas
	}
	apiDoc := schemasOf("mock/openapi.yaml", mock.OpenAPIDocument())
	adminDoc := schemasOf("mock/admin-openapi.yaml", mock.AdminOpenAPIDocument())
	for _, name := range sharedSchemas {
		a, ok := apiDoc[name]
		if !ok {
			t.Errorf("mock/openapi.yaml has no schema %s", name)
			continue
		}
		b, ok := adminDoc[name]
		if !ok {
			t.Errorf("mock/admin-openapi.yaml has no copy of the API's schema %s", name)
			continue
		}
		if !reflect.DeepEqual(a, b) {
			ay, _ := yaml.Marshal(a)
			by, _ := yaml.Marshal(b)
			t.Errorf("mock/admin-openapi.yaml's %s is not mock/openapi.yaml's: copy it over\nthe API's:\n%s\nthe admin copy:\n%s", name, ay, by)
		}
		for _, ref := range refsOf(a) {
			if !slices.Contains(sharedSchemas, ref) {
				t.Errorf("the shared schema %s refers to %s, which is not shared", name, ref)
			}
		}
	}
}

// refsOf lists the schemas a schema refers to by $ref.
func refsOf(v any) []string {
	var refs []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				refs = append(refs, strings.TrimPrefix(s, "#/components/schemas/"))
			}
			refs = append(refs, refsOf(x)...)
		}
	case []any:
		for _, x := range v {
			refs = append(refs, refsOf(x)...)
		}
	}
	return refs
}
