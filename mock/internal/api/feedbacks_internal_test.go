package api

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The list's parameter table is the one source of its query rules: the
// API's OpenAPI document names the same parameters, in the same order,
// each with the same type and bounds.
func TestListParamsMatchTheDocument(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromFile("../../openapi.yaml") // the document mock embeds and serves
	if err != nil {
		t.Fatal(err)
	}
	item := doc.Paths.Find("/feedbacks")
	if item == nil {
		t.Fatal("openapi.yaml has no /feedbacks")
	}
	var documented []string
	for _, ref := range item.Parameters {
		p := ref.Value
		if p.In != "query" {
			continue
		}
		documented = append(documented, p.Name)
		i := slices.IndexFunc(listParams, func(lp listParam) bool { return lp.name == p.Name })
		if i < 0 {
			continue // reported below, with the lists
		}
		lp, sc := listParams[i], p.Schema.Value
		var got string
		switch {
		case sc.Type.Is("integer"):
			lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
			if sc.Min != nil {
				lo = int64(*sc.Min)
			}
			if sc.Max != nil {
				hi = int64(*sc.Max)
			}
			if len(sc.Enum) > 0 {
				lo, hi = toInt(sc.Enum[0]), toInt(sc.Enum[len(sc.Enum)-1])
			}
			got = fmt.Sprintf("integer %d..%d", lo, hi)
		case sc.Type.Is("string") && sc.Format == "date":
			got = "date"
		case sc.Type.Is("string"):
			got = fmt.Sprintf("text ..%d", int64(*sc.MaxLength))
		}
		want := map[string]string{
			"integer": fmt.Sprintf("integer %d..%d", lp.lo, lp.hi),
			"date":    "date",
			"text":    fmt.Sprintf("text ..%d", lp.hi),
		}[lp.kind]
		if got != want {
			t.Errorf("%s: openapi.yaml says %s, the parameter table %s", p.Name, got, want)
		}
	}
	var table []string
	for _, lp := range listParams {
		table = append(table, lp.name)
	}
	if !slices.Equal(documented, table) {
		t.Errorf("openapi.yaml's /feedbacks parameters %v, the parameter table's %v", documented, table)
	}
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	}
	return math.MinInt64
}
