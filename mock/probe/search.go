package probe

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/probe/upstream"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// searchParts check the contract's search paragraph a part each, in
// this order. Each returns a note for the rule's line, or "".
var searchParts = []func(ctx context.Context, s *searchCheck) (string, error){
	searchFolds, searchYo, searchNmID, searchTrims, searchBlank, searchFieldParts, searchLength, searchFoundAll,
}

// searchCheck is a run of the search rule.
type searchCheck struct {
	*run
	term  string         // a word from the first page
	pages []searchedPage // what the searches found
}

// searchedPage is a search's value and the first 100 records it found.
type searchedPage struct {
	value string
	p     *page
}

func checkSearch(ctx context.Context, r *run) (string, error) {
	term, cyrillic := searchTerm(r.first.records)
	if term == "" {
		return "", unchecked("the first page's texts have no word of 4 letters or more to search for")
	}
	var notes []string
	sc := &searchCheck{run: r, term: term}
	for i, part := range searchParts {
		note, err := part(ctx, sc)
		if err != nil {
			return "", err
		}
		if note != "" {
			notes = append(notes, note)
		}
		if i == 0 && !cyrillic {
			notes = append(notes, "no Cyrillic word on the first page: checked with Latin")
		}
	}
	return strings.Join(notes, "; "), nil
}

// searchPage asks for the first 100 records that search=v finds. Each
// must contain v.
func (s *searchCheck) searchPage(ctx context.Context, v string) (*page, error) {
	p, err := s.filtered(ctx, searchFilter(v), "none of text, pros, cons, supplier_article, nm_id contains it, case folded")
	if err != nil {
		return nil, err
	}
	s.pages = append(s.pages, searchedPage{v, p})
	return p, nil
}

// searchFoundAll checks that every search found the records of the
// first page that hold its term. Both are the newest first.
func searchFoundAll(ctx context.Context, s *searchCheck) (string, error) {
	for _, sp := range s.pages {
		keys := sp.p.keys()
		for _, rec := range s.first.records {
			if in := searchHit(rec, sp.value); in != "" && !slices.Contains(keys, rec.key()) {
				return "", s.confirm(ctx, differs("search=%q: %s, whose %s has it, is not among the %d records found (total %d)", sp.value, rec, in, len(sp.p.records), sp.p.total).On(sp.p.ex, s.first.ex))
			}
		}
	}
	return fmt.Sprintf("each of the %d searches found the first page's records that have its term", len(s.pages)), nil
}

// sameTotals checks that the variants of a term find as many records.
func (s *searchCheck) sameTotals(ctx context.Context, variants []string) (int64, error) {
	var first *page
	for _, v := range variants {
		p, err := s.searchPage(ctx, v)
		if err != nil {
			return 0, err
		}
		if first == nil {
			first = p
			continue
		}
		if p.total != first.total {
			return 0, s.confirm(ctx, differs("search=%s gives %d records, search=%s %d: case is not folded", variants[0], first.total, v, p.total).On(first.ex, p.ex))
		}
	}
	return first.total, nil
}

// searchFolds checks that a word finds the same in any case.
func searchFolds(ctx context.Context, s *searchCheck) (string, error) {
	term := s.term
	variants := []string{term, strings.ToUpper(term), cases.Title(language.Und).String(term)}
	n, err := s.sameTotals(ctx, variants)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", differs("search=%s gives nothing, though the first page has it in a text", term).On(s.first.ex)
	}
	return fmt.Sprintf("«%s», «%s», «%s»: %d each", variants[0], variants[1], variants[2], n), nil
}

// searchYo checks ё and Ё, which naive folding forgets: the letter
// alone, then a word that has it with its case turned around.
func searchYo(ctx context.Context, s *searchCheck) (string, error) {
	yo, err := s.sameTotals(ctx, []string{"ё", "Ё"})
	if err != nil {
		return "", err
	}
	if yo == 0 {
		return "no record has ё: ё/Ё not checked", nil
	}
	p, err := s.list(ctx, and(q("search", "ё"), "limit=100"))
	if err != nil {
		return "", err
	}
	word := yoWord(p.records)
	if word == "" {
		return fmt.Sprintf("ё/Ё: %d each", yo), nil
	}
	if _, err := s.sameTotals(ctx, []string{word, swapCase(word)}); err != nil {
		return "", err
	}
	return fmt.Sprintf("ё/Ё: %d each; «%s» = «%s»", yo, word, swapCase(word)), nil
}

// searchNmID checks that a product's number finds its records.
func searchNmID(ctx context.Context, s *searchCheck) (string, error) {
	rec := s.sample()
	nm := fmt.Sprint(rec.nmID)
	byID, err := s.list(ctx, and(nmFilter(rec.nmID).query, "limit=100"))
	if err != nil {
		return "", err
	}
	bySearch, err := s.list(ctx, and(q("search", nm), "limit=1"))
	if err != nil {
		return "", err
	}
	if bySearch.total < byID.total {
		return "", s.confirm(ctx, differs("search=%s gives %d records, fewer than nm_id=%[1]s's %d: nm_id is not searched", nm, bySearch.total, byID.total).On(bySearch.ex, byID.ex))
	}
	return fmt.Sprintf("search=%s finds the product's %d", nm, byID.total), nil
}

// searchTrims checks that spaces around the term change nothing.
func searchTrims(ctx context.Context, s *searchCheck) (string, error) {
	term := s.term
	plain, err := s.searchPage(ctx, term)
	if err != nil {
		return "", err
	}
	padded := "  " + term + "  "
	p, err := s.searchPage(ctx, padded)
	if err != nil {
		return "", err
	}
	if p.total != plain.total {
		return "", s.confirm(ctx, differs("search=%q gives %d records, search=%q %d: the term is not trimmed", padded, p.total, term, plain.total).On(p.ex, plain.ex))
	}
	return fmt.Sprintf("%q: %d too (trimmed)", padded, p.total), nil
}

// searchBlank checks that a search of nothing or of spaces is no filter.
func searchBlank(ctx context.Context, s *searchCheck) (string, error) {
	for _, v := range []string{"", "   "} {
		p, err := s.list(ctx, and(q("search", v), "limit=1"))
		if err != nil {
			return "", err
		}
		if p.total != s.first.total {
			return "", s.confirm(ctx, differs("search=%q gives %d records, want all %d: an empty search is no filter", v, p.total, s.first.total).On(p.ex, s.first.ex))
		}
	}
	return fmt.Sprintf("search= and search=%q: all %d", "   ", s.first.total), nil
}

// searchFieldParts checks that a part of a word finds its record, in
// each field search looks in. A server that skips the field, or matches
// whole words or their starts only, misses it.
func searchFieldParts(ctx context.Context, s *searchCheck) (string, error) {
	var found, missing []string
	for _, name := range []string{"text", "pros", "cons", "supplier_article", "nm_id"} {
		rec, word, part, ok := fieldPart(s.first.records, name)
		if !ok {
			missing = append(missing, name)
			continue
		}
		p, err := s.searchPage(ctx, part)
		if err != nil {
			return "", err
		}
		if !slices.Contains(p.keys(), rec.key()) {
			return "", s.confirm(ctx, differs("search=%s, a part of «%s» in the %s of %s: that record is not among the %d found (total %d), so %[3]s is not searched, or not for a part of a word",
				part, word, name, rec, len(p.records), p.total).On(p.ex, s.first.ex))
		}
		found = append(found, fmt.Sprintf("%s «%s»", name, part))
	}
	note := "parts found in " + strings.Join(found, ", ")
	if len(missing) > 0 {
		note += "; the first page has no " + strings.Join(missing, ", ") + " to search a part of"
	}
	return note, nil
}

// fieldPart finds a record whose field name holds a word with a part
// that only that field holds, and that starts no word. The part is the
// word without its first and last letters.
func fieldPart(recs []record, name string) (rec record, word, part string, ok bool) {
	for _, rec := range recs {
		for _, f := range searched(rec) {
			if f.name != name {
				continue
			}
			candidates := []string{f.value}
			if name == "text" || name == "pros" || name == "cons" {
				candidates = words(f.value)
			}
			for _, w := range candidates {
				rs := []rune(strings.TrimSpace(w))
				if len(rs) < 6 {
					continue
				}
				p := string(rs[1 : len(rs)-1])
				if onlyInside(rec, name, p) {
					return rec, w, p, true
				}
			}
		}
	}
	return record{}, "", "", false
}

// onlyInside reports whether part (case folded) is in rec's field name
// and in no other field of rec, and starts none of rec's words.
func onlyInside(rec record, name, part string) bool {
	t := fold(part)
	for _, f := range searched(rec) {
		v := fold(f.value)
		if strings.Contains(v, t) != (f.name == name) {
			return false
		}
		for _, w := range strings.FieldsFunc(v, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) }) {
			if strings.HasPrefix(w, t) {
				return false
			}
		}
	}
	return true
}

// searchLength checks that 200 characters are accepted, counted after
// trimming and as characters, not bytes.
func searchLength(ctx context.Context, s *searchCheck) (string, error) {
	long := strings.Repeat("я", maxSearch)
	for _, c := range []struct{ value, what string }{
		{long, fmt.Sprintf("a search of %d Cyrillic letters (%d bytes)", maxSearch, len(long))},
		{"   " + long + "   ", fmt.Sprintf("a search of %d letters with 3 spaces each side", maxSearch)},
	} {
		_, err := s.list(ctx, and(q("search", c.value), "limit=1"))
		var de *upstream.AnswerError
		if errors.As(err, &de) && len(de.Evidence) > 0 {
			ex := de.Evidence[0]
			return "", differs("%s: answered %d, want 200: search takes up to %d characters, counted after trimming", c.what, ex.Status, maxSearch).On(ex)
		}
		if err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%d letters accepted, with spaces around too", maxSearch), nil
}

// maxSearch is the most characters a search may have, after trimming.
const maxSearch = 200

// yoWord is a word with ё or Ё from the records' texts, pros or cons.
func yoWord(recs []record) string {
	for _, rec := range recs {
		for _, w := range words(rec.text + " " + rec.pros + " " + rec.cons) {
			if strings.ContainsAny(w, "ёЁ") && utf8.RuneCountInString(w) >= 3 {
				return w
			}
		}
	}
	return ""
}
