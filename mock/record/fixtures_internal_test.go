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

// A rejected answer keeps its text, and its review counts as unanswered
// in the calibration, as the list counts it.
func TestCalibrateCountsRejectedAsUnanswered(t *testing.T) {
	recs := []apiRecord{
		{ProductValuation: 5, AnswerText: "Спасибо!", AnswerState: "sent", CreatedDate: "2026-11-01 10:00:00"},
		{ProductValuation: 1, AnswerText: "Жаль", AnswerState: "rejected", CreatedDate: "2026-11-01 11:00:00"},
		{ProductValuation: 2, CreatedDate: "2026-11-01 12:00:00"},
		{ProductValuation: 4, AnswerText: "Рады", AnswerState: "sent", CreatedDate: "2026-11-01 13:00:00"},
	}
	if got := calibrate(recs).AnsweredShare; got != 0.5 {
		t.Errorf("answered share %v, want 0.5: 2 of 4, the rejected answer not counted", got)
	}
}
