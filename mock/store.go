package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/cases"
)

// Timestamp layout of created_date and created_at.
const timestampLayout = time.DateTime // "2006-01-02 15:04:05"

// Feedback is one review record, field for field as in the spec (2.3),
// in the spec's order.
type Feedback struct {
	ID               int64           `json:"id"`
	FeedbackID       string          `json:"feedback_id"`
	NmID             int64           `json:"nm_id"`
	ImtID            int64           `json:"imt_id"`
	Text             string          `json:"text"`
	Pros             string          `json:"pros"`
	Cons             string          `json:"cons"`
	ProductValuation int             `json:"product_valuation"`
	ValuationTags    string          `json:"valuation_tags"`
	CreatedDate      string          `json:"created_date"`
	AnswerText       string          `json:"answer_text"`
	AnswerState      string          `json:"answer_state"`
	ProductName      string          `json:"product_name"`
	SupplierArticle  string          `json:"supplier_article"`
	BrandName        string          `json:"brand_name"`
	Photos           string          `json:"photos"`
	Video            json.RawMessage `json:"video"`
	UserName         string          `json:"user_name"`
	WasViewed        int             `json:"was_viewed"`
	State            string          `json:"state"`
	CreatedAt        string          `json:"created_at"`
}

// record is a Feedback prepared for queries: the fields filters read, the
// case-folded search text, and the record's JSON, encoded once.
type record struct {
	created  int64 // created_date as Unix seconds (the timestamp is zone-less; read as UTC)
	day      int32 // created_date's date as days since 1970-01-01
	id       int64
	nmID     int64
	rating   int8
	answered bool
	search   string // folded text, pros, cons, supplier_article and nm_id, \x00-separated
	json     []byte
}

// store holds a scenario's reviews, immutable once built, sorted by
// created_date descending, then id descending: the order of the list.
type store struct {
	records []record
}

// foldString folds case for search. cases.Fold does full Unicode case folding,
// so "ЁЛКА" matches "ёлка" and "STRASSE" matches "straße".
func foldString(s string) string {
	return cases.Fold().String(s)
}

// newStore prepares fbs, which have unique ids.
func newStore(fbs []Feedback) (*store, error) {
	st := &store{records: make([]record, len(fbs))}
	for i := range fbs {
		f := &fbs[i]
		t, _ := time.Parse(timestampLayout, f.CreatedDate) // checked when loaded or generated
		js, _ := marshalJSON(f)                            // plain strings and numbers always encode
		st.records[i] = record{
			created:  t.Unix(),
			day:      dayNumber(t),
			id:       f.ID,
			nmID:     f.NmID,
			rating:   int8(f.ProductValuation),
			answered: f.AnswerText != "",
			search:   searchText(f),
			json:     js,
		}
	}
	sort.Slice(st.records, func(i, j int) bool {
		a, b := &st.records[i], &st.records[j]
		if a.created != b.created {
			return a.created > b.created
		}
		return a.id > b.id
	})
	return st, nil
}

// dayNumber is t's date as days since 1970-01-01, rounded down, so that
// times before 1970 fall on their own date too.
func dayNumber(t time.Time) int32 {
	u := t.Unix()
	d := u / 86400
	if u%86400 < 0 {
		d--
	}
	return int32(d)
}

// searchText is what the search filter matches against. The separator keeps
// a query from matching across the end of one field and the start of the next.
func searchText(f *Feedback) string {
	return foldString(strings.Join([]string{f.Text, f.Pros, f.Cons, f.SupplierArticle, strconv.FormatInt(f.NmID, 10)}, "\x00"))
}

// query is a validated GET /feedbacks request.
type query struct {
	limit, offset int64
	answered      int8 // -1 any, 0 without reply, 1 with reply
	rating        int8 // 0 any
	nmID          int64
	dayFrom       int32 // inclusive; math.MinInt32 when absent
	dayTo         int32 // inclusive; math.MaxInt32 when absent
	search        string
	countsOnly    bool
}

// result is what a query found: the page (indices into records) and counts.
// answeredCount and unansweredCount ignore the answered filter.
type result struct {
	page                           []int
	total                          int
	answeredCount, unansweredCount int
}

// find runs q over the records. Records are sorted by date, so the date
// range is a contiguous window found by binary search; the other filters
// are checked record by record within it.
func (st *store) find(q query) result {
	recs := st.records
	// Sorted descending: days run from newest to oldest.
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].day <= q.dayTo })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].day < q.dayFrom })
	var res result
	var needle string
	if q.search != "" {
		needle = foldString(q.search)
	}
	for i := lo; i < hi; i++ {
		r := &recs[i]
		if q.rating != 0 && r.rating != q.rating ||
			q.nmID != 0 && r.nmID != q.nmID ||
			needle != "" && !strings.Contains(r.search, needle) {
			continue
		}
		if r.answered {
			res.answeredCount++
		} else {
			res.unansweredCount++
		}
		if q.answered >= 0 && r.answered != (q.answered == 1) {
			continue
		}
		if int64(res.total) >= q.offset && int64(len(res.page)) < q.limit && !q.countsOnly {
			res.page = append(res.page, i)
		}
		res.total++
	}
	return res
}

// appendPage writes the JSON of the list response's data object.
func (st *store) appendPage(buf *bytes.Buffer, res result, q query) {
	buf.WriteString(`{"feedbacks":[`)
	for n, i := range res.page {
		if n > 0 {
			buf.WriteByte(',')
		}
		buf.Write(st.records[i].json)
	}
	fmt.Fprintf(buf, `],"total":%d,"limit":%d,"offset":%d}`, res.total, q.limit, q.offset)
}
