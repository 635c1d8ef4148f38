package record

import (
	"fmt"
	"hash/fnv"
	"math"
	"regexp"
	"strconv"
)

// anonymizer replaces what identifies people (and, asked, products)
// consistently: the same name gives the same fake name everywhere.
type anonymizer struct {
	cfg      Config
	counts   map[string]int
	names    map[string]string
	used     map[string]bool
	ids      map[[2]int64]int64 // (kind, id) -> new id
	takenIDs map[[2]int64]bool
	strs     map[[2]string]string
}

func newAnonymizer(cfg Config, counts map[string]int) *anonymizer {
	return &anonymizer{cfg: cfg, counts: counts, names: map[string]string{}, used: map[string]bool{},
		ids: map[[2]int64]int64{}, takenIDs: map[[2]int64]bool{}, strs: map[[2]string]string{}}
}

// Patterns of what is cut out of texts: e-mail addresses, URLs, phone
// numbers, and numbers of 6 digits or more (orders, cards, tracking).
var (
	emailRE = regexp.MustCompile(`[\p{L}0-9._%+-]+@[\p{L}0-9.-]+\.\p{L}{2,}`)
	urlRE   = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"]+|\b[a-z0-9-]+\.(?:ru|com|рф|net|org|su)(?:/[^\s<>"]*)?`)
	phoneRE = regexp.MustCompile(`(?:\+7|\b8)[\s(-]*\d{3}[\s)-]*\d{3}[\s-]*\d{2}[\s-]*\d{2}\b`)
	digitRE = regexp.MustCompile(`\d(?:[\s-]?\d){5,}`)
)

// hidden replaces what a text must not keep.
const hidden = "***"

func (a *anonymizer) text(s string) string {
	if s == "" {
		return s
	}
	for _, p := range []struct {
		what string
		re   *regexp.Regexp
	}{{"emails", emailRE}, {"urls", urlRE}, {"phones", phoneRE}, {"numbers", digitRE}} {
		if p.re.MatchString(s) { // else s stays as it is, not a copy of it
			s = p.re.ReplaceAllStringFunc(s, func(string) string { a.counts[p.what]++; return hidden })
		}
	}
	return s
}

// Fake names: Russian first names and an initial, as the upstream shows
// reviewers.
var (
	fakeFirst   = []string{"Анна", "Мария", "Елена", "Ольга", "Наталья", "Ирина", "Татьяна", "Светлана", "Екатерина", "Юлия", "Алексей", "Дмитрий", "Сергей", "Андрей", "Иван", "Михаил", "Павел", "Николай", "Кирилл", "Полина", "Дарья", "Ксения", "Виктория", "Артём"}
	fakeInitial = []rune("АБВГДЕЖЗИКЛМНОПРСТУФХЧШЭЮЯ")
)

// hash is a deterministic hash of the recording's seed and parts.
func (a *anonymizer) hash(parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, a.cfg.Seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

func (a *anonymizer) name(s string) string {
	if s == "" {
		return s
	}
	if n, ok := a.names[s]; ok {
		return n
	}
	for try := 0; ; try++ {
		h := a.hash("name", s, strconv.Itoa(try))
		n := fakeFirst[h%uint64(len(fakeFirst))]
		if try > 0 || h>>32%3 == 0 {
			n += " " + string(fakeInitial[(h>>40)%uint64(len(fakeInitial))]) + "."
		}
		if !a.used[n] || try > 50 {
			a.used[n] = true
			a.names[s] = n
			a.counts["user_names"]++
			return n
		}
	}
}

// id remaps a product id of kind k (0 nm_id, 1 imt_id), keeping its
// number of digits.
func (a *anonymizer) id(k int64, v int64) int64 {
	if v <= 0 {
		return v
	}
	key := [2]int64{k, v}
	if n, ok := a.ids[key]; ok {
		return n
	}
	digits := len(strconv.FormatInt(v, 10))
	lo := int64(math.Pow10(digits - 1))
	for try := 0; ; try++ {
		n := lo + int64(a.hash("id", strconv.FormatInt(k, 10), strconv.FormatInt(v, 10), strconv.Itoa(try))%uint64(9*lo))
		if !a.takenIDs[[2]int64{k, n}] {
			a.takenIDs[[2]int64{k, n}] = true
			a.ids[key] = n
			return n
		}
	}
}

// str remaps a product string of kind k to prefix and a number, the
// same for the same string.
func (a *anonymizer) str(k, v, prefix string) string {
	if v == "" {
		return v
	}
	key := [2]string{k, v}
	if s, ok := a.strs[key]; ok {
		return s
	}
	s := fmt.Sprintf("%s %d", prefix, len(a.strs)+1)
	a.strs[key] = s
	return s
}

// record anonymizes one record in place.
func (a *anonymizer) record(r *apiRecord) {
	if !a.cfg.Raw {
		r.UserName = a.name(r.UserName)
		r.Text, r.Pros, r.Cons, r.AnswerText = a.text(r.Text), a.text(r.Pros), a.text(r.Cons), a.text(r.AnswerText)
	}
	if a.cfg.AnonymizeProducts {
		r.NmID, r.ImtID = a.id(0, r.NmID), a.id(1, r.ImtID)
		r.ProductName = a.str("product", r.ProductName, "Товар")
		r.BrandName = a.str("brand", r.BrandName, "Бренд")
		if r.SupplierArticle != "" {
			r.SupplierArticle = fmt.Sprintf("ART-%06d", a.hash("article", r.SupplierArticle)%1_000_000)
		}
		a.counts["product_ids"] = len(a.ids)
	}
}
