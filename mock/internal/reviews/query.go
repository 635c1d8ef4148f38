package reviews

import (
	"math"
	"time"

	"golang.org/x/text/cases"
)

// Query is a validated question to a Store: the list's filters and page.
type Query struct {
	Limit, Offset int64
	Answered      int8 // AnyAnswered, 0 without a reply, 1 with one
	Rating        int8 // 0 any
	NmID          int64
	DayFrom       int32 // inclusive, a DayNumber; math.MinInt32 for no bound
	DayTo         int32 // inclusive, a DayNumber; math.MaxInt32 for no bound
	Search        string
	CountsOnly    bool
}

// AnyAnswered is Query.Answered for "with a reply or without".
const AnyAnswered = -1

// All is the query every review matches, with an empty page: callers set
// Limit and the filters they want.
func All() Query {
	return Query{Answered: AnyAnswered, DayFrom: math.MinInt32, DayTo: math.MaxInt32}
}

// Result is what a query found: the page (positions in the Store, for
// Store.JSON) and the counts. Answered and Unanswered ignore the query's
// answered filter: they are the split of Total's reviews without it.
type Result struct {
	Page                 []int
	Total                int
	Answered, Unanswered int
}

// DayNumber is t's date as days since 1970-01-01, rounded down, so that
// times before 1970 fall on their own date too.
func DayNumber(t time.Time) int32 {
	u := t.Unix()
	d := u / 86400
	if u%86400 < 0 {
		d--
	}
	return int32(d)
}

// ParseDate parses a real calendar date written YYYY-MM-DD.
func ParseDate(s string) (time.Time, bool) {
	t, err := time.Parse(time.DateOnly, s)
	return t, err == nil
}

// Fold folds case for search. cases.Fold does full Unicode case folding,
// so "ЁЛКА" matches "ёлка" and "STRASSE" matches "straße".
func Fold(s string) string {
	return cases.Fold().String(s)
}
