package record

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

// tagNames are t's fields by their names in the tag key, in order.
func tagNames(t reflect.Type, key string) []string {
	var names []string
	for _, sf := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(sf.Tag.Get(key), ",")
		names = append(names, name)
	}
	return names
}

// The fixtures a recording writes have every field of the API's record
// but id (which the server assigns), in its order, and its media in the
// upstream's shapes (YAML keys as in JSON): a field added to the record
// is written too.
func TestFixtureHasEveryRecordField(t *testing.T) {
	record := tagNames(reflect.TypeFor[apiRecord](), "json")
	if got, want := tagNames(reflect.TypeFor[fixtureReview](), "yaml"), slices.DeleteFunc(record, func(s string) bool { return s == "id" }); !slices.Equal(got, want) {
		t.Errorf("fixtureReview writes\n  %v\nthe API's record has (but id)\n  %v", got, want)
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[mock.Photo](), reflect.TypeFor[mock.Video]()} {
		if got, want := tagNames(typ, "yaml"), tagNames(typ, "json"); !slices.Equal(got, want) {
			t.Errorf("%s writes %v in YAML; the upstream's has %v", typ.Name(), got, want)
		}
	}
}
