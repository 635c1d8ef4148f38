package api

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/wire"
)

// HeaderWarning carries an API request's warnings in its answer, one
// value each: 299 replymock "TEXT", as the HTTP Warning header wrote
// them (RFC 7234), so that values a client joins with ", " stay apart.
const HeaderWarning = "X-Mock-Warning"

// Bounds of a request's warnings: past MaxWarnings, one more says how
// many were left out; a warning's text is cut to MaxWarningLength bytes.
const (
	MaxWarnings      = 10
	MaxWarningLength = 300
)

// maxShownName is how much of a parameter's name a warning quotes.
const maxShownName = 64

// warnKind says what a client got wrong; its name is the kind label of
// replymock_client_warnings_total, a fixed few whatever clients send.
type warnKind uint8

const (
	warnUnknown     warnKind = iota // a name no operation takes
	warnUpstream                    // the upstream service's name for a parameter
	warnNearMiss                    // a known name in another case or spelling
	warnEmpty                       // a known parameter given empty, where that is accepted
	warnWrongOp                     // another operation's parameter
	warnBodyOnGet                   // a body on GET or HEAD
	warnContentType                 // a Content-Type whose charset is not UTF-8
	numWarnKinds
)

var warnKindNames = [numWarnKinds]string{
	"unknown_parameter", "upstream_name", "near_miss", "empty_parameter",
	"wrong_operation", "body_on_get", "content_type",
}

// emptyAccepted are the known parameters an empty value is accepted for
// (as no filter); for the others, empty is a 400.
var emptyAccepted = []string{"search"}

// upstreamParam is a parameter name of the upstream service's list,
// which clients written against it send.
type upstreamParam struct {
	name string // the upstream's name
	ours string // this API's parameter for it; "" when there is none
	hint string // what ours takes, or why there is none
}

var upstreamParams = []upstreamParam{
	{"isAnswered", "answered", "`answered` takes 0 or 1, not true or false"},
	{"take", "limit", "`limit` takes 1 to 100"},
	{"skip", "offset", ""},
	{"nmId", "nm_id", ""},
	{"dateFrom", "date_from", "`date_from` takes a date YYYY-MM-DD, not a Unix time"},
	{"dateTo", "date_to", "`date_to` takes a date YYYY-MM-DD, not a Unix time"},
	{"order", "", "the list is always newest first, as with the upstream's dateDesc"},
}

// warning is one mistake of a client that the API let through.
type warning struct {
	kind  warnKind
	field string // the parameter or header at fault: the strict answer's field
	text  string
}

// clientWarnings lists what is questionable in a request the API
// accepts (not what it answers 400): at most MaxWarnings, and how many
// more. counts has every one by kind, for the metrics.
type clientWarnings struct {
	op     *operation
	method string
	list   []warning
	more   int
	counts [numWarnKinds]int
	seen   map[string]bool // names warned about, once each
}

func (c *clientWarnings) add(kind warnKind, field, format string, args ...any) {
	c.counts[kind]++
	if len(c.list) >= MaxWarnings {
		c.more++
		return
	}
	c.list = append(c.list, warning{kind: kind, field: clipField(field), text: clipWarning(fmt.Sprintf(format, args...))})
}

// detectWarnings looks for a client's mistakes in r's request line and
// headers; it reads no body.
func detectWarnings(r *http.Request) *clientWarnings {
	op := find(r.URL.EscapedPath(), r.Method)
	if op == nil {
		return nil // a 404 or 405: no operation to hold it to
	}
	c := clientWarnings{op: op, method: r.Method}
	for part := range strings.SplitSeq(r.URL.RawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		c.param(k, v)
	}
	switch {
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		if r.ContentLength > 0 {
			c.add(warnBodyOnGet, "body", "%s request has a body (%d bytes), which is ignored", r.Method, r.ContentLength)
		} else if r.ContentLength < 0 {
			c.add(warnBodyOnGet, "body", "%s request has a body, which is ignored", r.Method)
		}
	case r.Method == http.MethodPatch:
		if _, params, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil {
			if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
				c.add(warnContentType, "Content-Type", "Content-Type names charset %s, but the body is read as UTF-8", showName(cs))
			}
		}
	}
	if len(c.list) == 0 {
		return nil
	}
	out := c // c itself stays on the stack
	return &out
}

// param checks one query parameter, its name k and value v as sent.
func (c *clientWarnings) param(k, v string) {
	op := c.op
	name, err := url.QueryUnescape(k)
	if err == nil && slices.Contains(op.params, name) {
		// A known parameter: its value is the operation's to check.
		if slices.Contains(emptyAccepted, name) {
			if val, err := url.QueryUnescape(v); err == nil && strings.TrimSpace(val) == "" && c.once(name) {
				c.add(warnEmpty, name, "%s is empty, so it filters nothing; leave it out", name)
			}
		}
		return
	}
	if err != nil {
		name = k // not decodable: shown as sent
	}
	if !c.once(name) {
		return
	}
	shown := showName(name)
	if err != nil {
		c.add(warnUnknown, name, "%s is not a parameter (its percent-encoding is malformed) and is ignored", shown)
		return
	}
	for _, u := range upstreamParams {
		if u.name == name {
			c.upstream(shown, name, u, false)
			return
		}
	}
	for _, other := range operations {
		if other.path != op.path && slices.Contains(other.params, name) {
			c.add(warnWrongOp, name, "%s is not a parameter of %s and is ignored; %s %s%s takes it", shown, c.opName(), other.methods[0], Prefix, other.path)
			return
		}
	}
	norm := normalizeName(name)
	if len(norm) <= maxShownName {
		best, bestDist := "", 3
		for _, p := range op.params {
			np := normalizeName(p)
			limit := 1
			if len(np) > 5 {
				limit = 2
			}
			if d := wire.EditDistance(norm, np); d <= limit && d < bestDist {
				best, bestDist = p, d
			}
		}
		// One of ours alike but for case and spelling wins over the
		// upstream's alike, which wins over one of ours a few edits away.
		for _, u := range upstreamParams {
			if bestDist > 0 && normalizeName(u.name) == norm {
				c.upstream(shown, name, u, true)
				return
			}
		}
		if best != "" {
			c.add(warnNearMiss, name, "%s is not a parameter of %s: did you mean `%s`? It is ignored", shown, c.opName(), best)
			return
		}
	}
	if len(op.params) == 0 {
		c.add(warnUnknown, name, "%s is not a parameter of %s, which takes none, and is ignored", shown, c.opName())
		return
	}
	c.add(warnUnknown, name, "%s is not a parameter of %s and is ignored; it takes %s", shown, c.opName(), strings.Join(op.params, ", "))
}

// upstream warns about the upstream's name u, sent as name, or in
// another case or spelling (alike).
func (c *clientWarnings) upstream(shown, name string, u upstreamParam, alike bool) {
	what := shown + " is the upstream's name"
	if alike {
		what = shown + " looks like the upstream's " + u.name
	}
	hint := ""
	if u.hint != "" {
		hint = " (" + u.hint + ")"
	}
	switch {
	case u.ours == "":
		c.add(warnUpstream, name, "%s and has no equivalent here%s; it is ignored", what, hint)
	case slices.Contains(c.op.params, u.ours):
		c.add(warnUpstream, name, "%s: did you mean `%s`? It is ignored%s", what, u.ours, hint)
	default:
		c.add(warnUpstream, name, "%s for `%s`, which %s does not take; it is ignored", what, u.ours, c.opName())
	}
}

// opName names the request's operation as warnings do: "GET /api/v1/feedbacks".
func (c *clientWarnings) opName() string { return c.method + " " + Prefix + c.op.path }

// once reports whether name is not warned about yet, and notes it.
func (c *clientWarnings) once(name string) bool {
	if c.seen[name] {
		return false
	}
	if c.seen == nil {
		c.seen = make(map[string]bool)
	}
	c.seen[name] = true
	return true
}

// texts are the warnings as the journal and the header give them.
func (c *clientWarnings) texts() []string {
	out := make([]string, 0, len(c.list)+1)
	for _, w := range c.list {
		out = append(out, w.text)
	}
	if c.more > 0 {
		out = append(out, fmt.Sprintf("and %d more warnings", c.more))
	}
	return out
}

// setHeader puts the warnings in the answer's X-Mock-Warning header.
func (c *clientWarnings) setHeader(h http.Header) {
	for _, t := range c.texts() {
		h.Add(HeaderWarning, warningValue(t)) // after any the server set
	}
}

// warningValue is a warning's text as an X-Mock-Warning value.
func warningValue(text string) string {
	return `299 replymock "` + quotedText.Replace(text) + `"`
}

// quotedText escapes a warning's text for its quoted string (RFC 9110).
var quotedText = strings.NewReplacer(`\`, `\\`, `"`, `\"`)

// showName is a parameter name as a warning quotes it: as it is when
// plain, else quoted in ASCII; cut to maxShownName bytes.
func showName(name string) string {
	plain := name != "" && len(name) <= maxShownName
	for i := 0; plain && i < len(name); i++ {
		b := name[i]
		plain = b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("_-.[]", b) >= 0
	}
	if plain {
		return name
	}
	if len(name) <= maxShownName {
		return strconv.QuoteToASCII(name)
	}
	n := maxShownName
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return fmt.Sprintf("%s... (%d bytes)", strconv.QuoteToASCII(name[:n]), len(name))
}

// clipWarning makes a warning safe for a header: printable ASCII, at
// most MaxWarningLength bytes.
func clipWarning(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	if len(b) > MaxWarningLength {
		b = append(b[:MaxWarningLength-3], "..."...)
	}
	return string(b)
}

// clipField is a parameter name as a strict answer's field: valid
// UTF-8, at most 256 bytes.
func clipField(s string) string {
	if len(s) > 256 {
		n := 256
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// normalizeName folds a name for near misses: ASCII lower case, without
// '_', '-', '.' and spaces ("Date-From" and "datefrom" are date_from).
func normalizeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == ' ':
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
