package reviews

import "strconv"

// AppendPage writes the JSON of the list response's data object.
func (st *Store) AppendPage(b []byte, res Result, q Query) []byte {
	return appendPage(b, res, q, st.JSON)
}

// PageSize is the length of the page's records' JSON.
func (st *Store) PageSize(res Result) int { return pageLen(res, st.JSON) }

func appendPage(b []byte, res Result, q Query, json func(int) []byte) []byte {
	b = append(b, `{"feedbacks":[`...)
	for n, i := range res.Page {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, json(i)...)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(res.Total), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, q.Limit, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, q.Offset, 10)
	return append(b, '}')
}

// pageLen is the length of the page's records' JSON, with a comma each.
func pageLen(res Result, json func(int) []byte) int {
	n := 0
	for _, i := range res.Page {
		n += len(json(i)) + 1
	}
	return n
}

// AppendCounts writes the JSON of the counts_only response's data object.
func AppendCounts(b []byte, res Result) []byte {
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(res.Answered+res.Unanswered), 10)
	b = append(b, `,"unanswered":`...)
	b = strconv.AppendInt(b, int64(res.Unanswered), 10)
	b = append(b, `,"answered":`...)
	b = strconv.AppendInt(b, int64(res.Answered), 10)
	return append(b, '}')
}
