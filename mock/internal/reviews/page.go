package reviews

// AppendPage writes the JSON of the list response's data object.
func (s *Stack) AppendPage(b []byte, res Result, q Query) []byte {
	b = append(b, `{"feedbacks":[`...)
	for n, i := range res.Page {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, s.JSON(i)...)
	}
	b = appendInt(b, `],"total":`, int64(res.Total))
	b = appendInt(b, `,"limit":`, q.Limit)
	b = appendInt(b, `,"offset":`, q.Offset)
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
	b = appendInt(b, `{"total":`, int64(res.Answered+res.Unanswered))
	b = appendInt(b, `,"unanswered":`, int64(res.Unanswered))
	b = appendInt(b, `,"answered":`, int64(res.Answered))
	return append(b, '}')
}
