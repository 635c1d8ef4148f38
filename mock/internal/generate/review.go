package generate

import (
	"math/rand"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// review writes one review of p with the given rating, unanswered.
func (g *generator) review(p Product, rating int, created time.Time) reviews.Feedback {
	f := g.f
	sb := g.sentiment(rating)
	id := FeedbackID(g.f.Rand)
	user := g.bank.Anonymous
	if g.chance(0.9) {
		user = f.RandomString(g.bank.Names)
	}
	var text, pros, cons string
	// Upstream, only 4- and 5-star reviews may be rating-only.
	ratingOnly := rating >= 4 && g.chance(*g.spec.RatingOnly)
	if !ratingOnly {
		text = g.text(sb)
		pros, cons = g.prosCons(rating)
	}
	// Upstream, only 4- and 5-star reviews were seen with buyer tags.
	tags := []string{}
	if rating >= 4 && g.chance(tagShare) {
		tags = g.some(p.Tags, 1, 3)
	}
	var photos []media.Photo
	if !ratingOnly && g.chance(*g.spec.Photos) {
		for n := range f.Number(1, 4) {
			photos = append(photos, media.Photo{FullSize: g.media.Photo(id, n+1, media.SizeFull), MiniSize: g.media.Photo(id, n+1, media.SizeMini)})
		}
	}
	video := []byte("null")
	if !ratingOnly && g.chance(*g.spec.Videos) {
		key := f.UUID()
		secs := f.Number(5, 90)
		video = media.VideoJSON(media.Video{PreviewImage: g.media.Preview(key), Link: g.media.Playlist(key, secs), DurationSec: secs})
	}
	wasViewed := 1
	if g.chance(0.3) {
		wasViewed = 0 // not opened yet; an answer marks it viewed
	}
	return reviews.Feedback{
		FeedbackID: id, NmID: p.NmID, ImtID: p.ImtID,
		Text: text, Pros: pros, Cons: cons,
		ProductValuation: rating,
		ValuationTags:    string(reviews.AppendJSONList(nil, tags)),
		CreatedDate:      created.Format(reviews.TimestampLayout),
		ProductName:      p.Name, SupplierArticle: p.Article, BrandName: p.Brand,
		Photos: media.PhotosJSON(photos), Video: video,
		UserName:  user,
		WasViewed: wasViewed,
		State:     "new",
		CreatedAt: created.Add(time.Duration(f.Number(20, 3*3600)) * time.Second).Format(reviews.TimestampLayout),
	}
}

// text writes a review's text: from a word or three to paragraphs, as
// buyers write them, some with a typo, an emoji or no capital letter.
func (g *generator) text(sb SentimentBank) string {
	var t string
	switch x := g.f.Rand.Float64(); {
	case x < 0.15 && len(sb.Short) > 0:
		t = g.f.RandomString(sb.Short)
	case x < 0.60:
		t = strings.Join(g.some(sb.Sentences, 1, 2), " ")
	case x < 0.88:
		t = strings.Join(g.shuffled(g.some(sb.Sentences, 3, 5)), " ")
	case x < 0.97:
		t = g.paragraphs(g.some(sb.Sentences, 4, 7), 2)
	default:
		t = g.paragraphs(g.some(sb.Sentences, 8, 14), 3) // a story
	}
	if g.chance(0.1) {
		t = g.typo(t)
	}
	if g.chance(0.04) {
		t = lowerFirst(t)
	}
	if len(sb.Emoji) > 0 && g.chance(0.12) {
		t += " " + g.f.RandomString(sb.Emoji)
	}
	return t
}

// paragraphs writes ss, shuffled, as least or least+1 paragraphs.
func (g *generator) paragraphs(ss []string, least int) string {
	g.shuffled(ss)
	n := min(least+g.f.Rand.Intn(2), len(ss))
	paras := make([]string, 0, n)
	for i := range n {
		from, to := i*len(ss)/n, (i+1)*len(ss)/n
		paras = append(paras, strings.Join(ss[from:to], " "))
	}
	sep := "\n\n"
	if g.chance(0.4) {
		sep = "\n"
	}
	return strings.Join(paras, sep)
}

func (g *generator) shuffled(list []string) []string {
	g.f.ShuffleAnySlice(list)
	return list
}

// typo makes one slip of the fingers in a word of four letters or more:
// two letters swapped, one doubled or one left out.
func (g *generator) typo(t string) string {
	words := strings.Split(t, " ")
	start := g.f.Rand.Intn(len(words))
	for i := range words {
		w := []rune(words[(start+i)%len(words)])
		if len(w) < 4 || !unicode.IsLetter(w[1]) || !unicode.IsLetter(w[2]) {
			continue
		}
		switch g.f.Rand.Intn(3) {
		case 0:
			w[1], w[2] = w[2], w[1]
		case 1:
			w = slices.Insert(w, 2, w[2])
		default:
			w = slices.Delete(w, 2, 3)
		}
		words[(start+i)%len(words)] = string(w)
		break
	}
	return strings.Join(words, " ")
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// prosCons writes a review's pros and cons for its rating. A happy
// buyer's cons are often "нет" or nothing; so are an unhappy one's pros.
func (g *generator) prosCons(rating int) (pros, cons string) {
	b := &g.bank.Reviews
	list := func(from []string, least, most int) string {
		items := g.some(from, least, most)
		if len(items) > 1 && g.chance(0.35) {
			for i := range items {
				items[i] = upperFirst(items[i])
			}
			return strings.Join(items, "\n")
		}
		return strings.Join(items, ", ")
	}
	nothing := func() string {
		if len(g.bank.Nothing) == 0 {
			return ""
		}
		return g.f.RandomString(g.bank.Nothing)
	}
	switch {
	case rating >= 4:
		if g.chance(0.75) {
			pros = list(b.Positive.Pros, 1, 3)
		}
		switch x := g.f.Rand.Float64(); {
		case x < 0.35:
			cons = nothing()
		case x < 0.6:
			cons = list(b.Positive.Cons, 1, 1)
		}
	case rating == 3:
		if g.chance(0.7) {
			pros = list(b.Neutral.Pros, 1, 2)
		}
		if g.chance(0.75) {
			cons = list(b.Neutral.Cons, 1, 3)
		}
	default:
		switch x := g.f.Rand.Float64(); {
		case x < 0.35:
			pros = nothing()
		case x < 0.55:
			pros = list(b.Negative.Pros, 1, 1)
		}
		if g.chance(0.8) {
			cons = list(b.Negative.Cons, 1, 3)
		}
	}
	return pros, cons
}

// tagShare is the share of 4- and 5-star reviews with buyer tags.
const tagShare = 0.4

// sentiment is the review phrases of a rating.
func (g *generator) sentiment(rating int) SentimentBank {
	r := &g.bank.Reviews
	switch {
	case rating >= 4:
		return r.Positive
	case rating == 3:
		return r.Neutral
	default:
		return r.Negative
	}
}

// some picks least to most distinct entries of list, in list order.
func (g *generator) some(list []string, least, most int) []string {
	n := min(g.f.Number(least, most), len(list))
	var picked [16]int // n is at most a few; rejection is cheaper than a permutation
	k := 0
	for k < n && k < len(picked) {
		j := g.f.Rand.Intn(len(list))
		if !slices.Contains(picked[:k], j) {
			picked[k] = j
			k++
		}
	}
	idx := picked[:k]
	slices.Sort(idx)
	out := make([]string, k)
	for i, j := range idx {
		out[i] = list[j]
	}
	return out
}

// idAlphabet is the upstream's: letters, digits, "_" and "-".
const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

// FeedbackID makes a review id as the marketplace writes them
// (G7Y9Y1kBAtKOitoBT_lV).
func FeedbackID(r *rand.Rand) string {
	var b [20]byte
	for i := range b {
		b[i] = idAlphabet[r.Intn(len(idAlphabet))]
	}
	return string(b[:])
}

// LongText is the length in characters from which a text reads as the
// buyer's own words: a reader who meets one twice sees a machine.
const LongText = 60

type longTexts map[string]bool

func (seen longTexts) fresh(s string) bool { return utf8.RuneCountInString(s) < LongText || !seen[s] }

func (seen longTexts) keep(s string) {
	if utf8.RuneCountInString(s) >= LongText {
		seen[s] = true
	}
}

// redraws is how often distinct draws a repeated text again.
const redraws = 8

// distinct rewrites each long text, pros or cons that an earlier review
// has, from g's draws alone. A text is drawn again, then grows by a
// sentence until new; pros and cons fall back to the shortest entry.
func (g *generator) distinct(fbs []reviews.Feedback) {
	seen := longTexts{}
	for i := range fbs {
		f := &fbs[i]
		sb := g.sentiment(f.ProductValuation)
		for n := 0; n < redraws && !seen.fresh(f.Text); n++ {
			f.Text = g.text(sb)
		}
		for !seen.fresh(f.Text) {
			f.Text += " " + g.f.RandomString(sb.Sentences)
		}
		seen.keep(f.Text)
		f.Pros = g.distinctHalf(seen, f.Pros, sb.Pros, f.ProductValuation, 0)
		f.Cons = g.distinctHalf(seen, f.Cons, sb.Cons, f.ProductValuation, 1)
	}
}

// distinctHalf is s, a review's pros (half 0) or cons (half 1), or if s
// is a repeat one drawn again for rating, else the shortest of list.
func (g *generator) distinctHalf(seen longTexts, s string, list []string, rating, half int) string {
	for n := 0; n < redraws && !seen.fresh(s); n++ {
		pros, cons := g.prosCons(rating)
		if d := [2]string{pros, cons}[half]; d != "" {
			s = d
		}
	}
	if !seen.fresh(s) {
		s = shortest(list)
	}
	seen.keep(s)
	return s
}

// shortest is the first shortest entry of list.
func shortest(list []string) string {
	best := ""
	for _, s := range list {
		if best == "" || utf8.RuneCountInString(s) < utf8.RuneCountInString(best) {
			best = s
		}
	}
	return best
}
