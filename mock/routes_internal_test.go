package mock

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gorilla/mux"
)

// The OpenAPI documents list every route the router has, with each of
// its methods, and nothing it does not: the API's operations in
// openapi.yaml (its paths below /api/v1), the rest in admin-openapi.yaml.
func TestOpenAPIDocumentsListEveryRoute(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]*openapi3.T{}
	for name, data := range map[string][]byte{"openapi.yaml": openAPIYAML, "admin-openapi.yaml": adminOpenAPIYAML} {
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		docs[name] = doc
	}
	// docOps lists a document's operations as "METHOD /full/path".
	docOps := func(name, base string) []string {
		var ops []string
		for path, item := range docs[name].Paths.Map() {
			for method := range item.Operations() {
				ops = append(ops, method+" "+base+path)
			}
		}
		slices.Sort(ops)
		return ops
	}
	apiOps, adminOps := docOps("openapi.yaml", APIPrefix), docOps("admin-openapi.yaml", "")

	// Router to documents: a route's template is a documented path; a
	// prefix route has at least one documented path below it.
	routes := 0
	err = s.router.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		tpl, err := route.GetPathTemplate()
		if err != nil {
			return err
		}
		re, err := route.GetPathRegexp()
		if err != nil {
			return err
		}
		methods, err := route.GetMethods()
		if err != nil {
			return err
		}
		prefix := !strings.HasSuffix(re, "$")
		ops, doc := adminOps, "admin-openapi.yaml"
		if strings.HasPrefix(tpl, APIPrefix+"/") {
			ops, doc = apiOps, "openapi.yaml"
		}
		for _, m := range methods {
			if m == http.MethodHead && doc == "admin-openapi.yaml" {
				continue // GET's answer without the body; the API's document lists its HEADs
			}
			routes++
			found := slices.ContainsFunc(ops, func(op string) bool {
				if prefix {
					return strings.HasPrefix(op, m+" "+tpl)
				}
				return op == m+" "+tpl
			})
			if !found {
				t.Errorf("the router has %s %s (prefix %v), %s does not", m, tpl, prefix, doc)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if routes < 25 {
		t.Fatalf("walked %d routes: the walk misses some", routes)
	}

	// Documents to router: each documented operation, its path parameters
	// filled with their examples, is a route of the router.
	for name, base := range map[string]string{"openapi.yaml": APIPrefix, "admin-openapi.yaml": ""} {
		for path, item := range docs[name].Paths.Map() {
			for method, op := range item.Operations() {
				target := base + fillPath(t, path, append(item.Parameters, op.Parameters...))
				req := httptest.NewRequest(method, target, nil)
				var match mux.RouteMatch
				if !s.router.Match(req, &match) || match.MatchErr != nil {
					t.Errorf("%s lists %s %s; the router has no such route (%s: %v)", name, method, base+path, target, match.MatchErr)
				}
			}
		}
	}
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// fillPath puts each path parameter's example (or first enum value) in
// its place.
func fillPath(t *testing.T, path string, params openapi3.Parameters) string {
	return pathParam.ReplaceAllStringFunc(path, func(m string) string {
		name := m[1 : len(m)-1]
		for _, p := range params {
			if p.Value == nil || p.Value.In != openapi3.ParameterInPath || p.Value.Name != name {
				continue
			}
			switch {
			case p.Value.Example != nil:
				return fmt.Sprint(p.Value.Example)
			case p.Value.Schema != nil && p.Value.Schema.Value != nil && len(p.Value.Schema.Value.Enum) > 0:
				return fmt.Sprint(p.Value.Schema.Value.Enum[0])
			case p.Value.Schema != nil && p.Value.Schema.Value != nil && p.Value.Schema.Value.Example != nil:
				return fmt.Sprint(p.Value.Schema.Value.Example)
			}
			t.Errorf("%s: path parameter %s has no example", path, name)
			return "x"
		}
		t.Errorf("%s: path parameter %s is not declared", path, name)
		return "x"
	})
}
