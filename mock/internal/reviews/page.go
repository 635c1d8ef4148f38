package reviews

import "strconv"

// AppendPage writes the JSON of the list response's data object.
func (s *Stack) AppendPage(b []byte, res Result, q Query) []byte {
	b = append(b, `{"feedbacks":[`...)
	for n, i := range res.Page {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, s.JSON(i)...)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(res.Total), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, q.Limit, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, q.Offset, 10)
	return append(b, '}')
}

// PageSize is the length of the page's records' JSON, with a comma each.
func (s *Stack) PageSize(res Result) int {
	n := 0
	for _, i := range res.Page {
		n += len(s.JSON(i)) + 1
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
