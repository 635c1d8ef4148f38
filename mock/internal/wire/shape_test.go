package wire

import (
	"strings"
	"testing"
)

var testShape = &Shape{What: "a test body", Items: 40, Array: 5, Members: 6,
	Arrays: []Bound{{Path: "list", Max: 8}, {Path: "rows[].cells", Max: 3, Msg: "at most %d cells a row, got %d"}, {Path: "raw", Max: 10}},
	Raw:    []string{"raw[]"}}

// Bodies within the shape pass, however deep; so does what is not JSON,
// which the decoder refuses in its own words.
func TestShapeLetsThrough(t *testing.T) {
	for _, body := range []string{
		`{}`, `[]`, `"x"`, `12`, `null`, ``, `{"a":1}`, `[1,2,3,4,5]`,
		`{"list":[1,2,3,4,5,6,7,8]}`,
		`{"rows":[{"cells":[1,2,3]},{"cells":[]}]}`,
		`{"a":{"b":{"c":[]}}}`, `{"a":{"b":[1,{"x":[[]]}]}}`,
		`{"raw":[[1,2,3,4,5],{"a":[]}]}`,     // inside raw values: per-array bounds only, no items
		`{"a":1,"a":2}`,                      // duplicates: the decoder's to refuse or take
		`{"list":[1,2,3`, `{"a":[1,2,3,4,5]`, // cut short: not JSON
		`[1,2,3,4,5] [1,2,3,4,5,6,7,8,9,10]`,                                // trailing data: the decoder refuses it
		`{"a":"\xff"}`, `{"a":"\ud800"}`, `{"\u006cist":[1,2,3,4,5,6,7,8]}`, // escaped "list"
		strings.Repeat("[", 20) + strings.Repeat("]", 20),
	} {
		if err := testShape.Check([]byte(body)); err != nil {
			t.Errorf("Check(%.40s) = %v; want nil", body, err)
		}
	}
}

// Each bound refuses the body that passes it, naming where and what.
func TestShapeRefuses(t *testing.T) {
	for _, tc := range []struct {
		body       string
		status     int
		field, msg string
	}{
		{`[1,2,3,4,5,6]`, 400, "", "at most 5 elements, got 6: more than a test body ever holds"},
		{`{"a":[1,2,3,4,5,6,7]}`, 400, "a", "at most 5 elements, got 7: more than a test body ever holds"},
		{`{"list":[1,2,3,4,5,6,7,8,9]}`, 400, "list", "at most 8, got 9"},
		{`{"list":[1,2,3,4,5,6,7,8,9,`, 400, "list", "at most 8, got more"},
		{`{"rows":[{"cells":[]},{"cells":[1,2,3,4]}]}`, 400, "rows[1].cells", "at most 3 cells a row, got 4"},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}`, 400, "", "an object of more than 6 members"},
		{`{"x":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}}`, 400, "x", "an object of more than 6 members"},
		{`{"raw":[[1,2,3,4,5,6]]}`, 400, "raw[0]", "at most 5 elements, got 6"},
		{`[[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5]]`, 400, "", "at most 5 elements, got 6"},
		{`{"a":[[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5],[1,2,3,4,5]],"b":[[1,2,3,4],[1,2,3]]}`, 413, "", "the body holds more than 40 values"},
	} {
		err := testShape.Check([]byte(tc.body))
		e, ok := err.(*APIError)
		if !ok || e.Status != tc.status || e.Field != tc.field || !strings.HasPrefix(e.Message, tc.msg) {
			t.Errorf("Check(%s) = %#v; want %d %q: %s", tc.body, err, tc.status, tc.field, tc.msg)
		}
	}
}

// Raw values count as items, what is inside them does not.
func TestShapeRawItems(t *testing.T) {
	raw := `{"raw":[` + strings.Repeat(`[1,2,3,4,5],`, 9) + `[1,2,3,4,5]]}`
	if err := testShape.Check([]byte(raw)); err != nil {
		t.Errorf("10 raw values of 5 items each: %v", err)
	}
	notRaw := `{"list":[` + strings.Repeat(`[1,2,3,4,5],`, 7) + `[1,2,3,4,5]]}`
	if err := testShape.Check([]byte(notRaw)); err == nil {
		t.Error("8 values of 5 items each, not raw: passed")
	}
}

// The check allocates nothing per value: a body of a million values
// costs what a small one does.
func TestShapeAllocates(t *testing.T) {
	big := &Shape{What: "x", Items: 1 << 30, Array: 1 << 30, Members: 1 << 30, Arrays: []Bound{{Path: "a[].b", Max: 1 << 30}}}
	body := []byte(`{"a":[` + strings.Repeat(`{"b":[{},[],"x",1,true,null]},`, 100_000) + `{}]}`)
	small := []byte(`{"a":[{"b":[]}]}`)
	allocs := func(b []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			if err := big.Check(b); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, s := allocs(body), allocs(small); a > s+2 {
		t.Errorf("%d bytes: %.0f allocations; a small body: %.0f", len(body), a, s)
	}
}
