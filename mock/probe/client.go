package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

const (
	// maxAnswer bounds the bytes read of one answer: a page of 100
	// reviews is well under a megabyte.
	maxAnswer = 8 << 20
	// maxRetryWait bounds how long the probe waits on a 429 before it
	// gives the request up.
	maxRetryWait = 30 * time.Second
	// max429 is how many 429s in a row one request may meet.
	max429 = 3
	// max5xxWait bounds the wait before a GET that met a 502, 503 or 504
	// is sent again; asked to wait longer, the probe does not retry.
	max5xxWait = 5 * time.Second
)

// exchange is one request the probe sent and what came back: the
// evidence a differing rule shows.
type exchange struct {
	method string
	path   string // relative to the target, with the raw query: /feedbacks?limit=101
	body   []byte // the request's body, for PATCH
	status int
	header http.Header
	answer []byte
}

// request is the exchange's request as a person reads it: the query
// unescaped when it can be (search=ЁЛКА, not %D0%81...).
func (ex *exchange) request() string {
	p := ex.path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		if q, err := url.QueryUnescape(p[i+1:]); err == nil && utf8.ValidString(q) {
			p = p[:i+1] + q
		}
	}
	return ex.method + " " + p
}

// contentType is the answer's media type, lower-case, without parameters.
func (ex *exchange) contentType() string {
	mt, _, err := mime.ParseMediaType(ex.header.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ex.header.Get("Content-Type")))
	}
	return mt
}

// client sends the probe's requests: one at a time, spaced by the
// limiter, counted against the budget, each within its timeout. It
// follows no redirects (a redirect is evidence, not a detour) and waits
// out a 429 within bounds.
type client struct {
	base    string // the target, without a trailing slash
	auth    string // the Authorization header's value, or ""
	http    *http.Client
	timeout time.Duration
	limit   *limiter
	clock   clock

	max     int // the budget: at most this many requests in all
	reserve int // the part of the budget only restore may spend
	sent    int

	cache map[string]*exchange // GET answers by path, for rules that only read
}

// newClient is a client of base: at most rate requests a second and
// max in all, each within timeout, sent with hc (nil: a new one) but
// never following a redirect.
func newClient(base, token string, rate float64, max int, timeout time.Duration, hc *http.Client, clk clock) *client {
	own := &http.Client{}
	if hc != nil {
		*own = *hc
	}
	own.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &client{base: base, auth: authorization(token), http: own, timeout: timeout,
		limit: newLimiter(clk, rate), clock: clk, max: max, cache: make(map[string]*exchange)}
}

// Client is the probe's client for another command that reads the API
// (replymock record): it sends requests as the probe sends its own, one
// at a time within the rate, the budget and the timeout, following no
// redirect and waiting out a 429 within bounds, and reads answers as
// the probe reads them.
type Client struct{ c *client }

// NewClient is a client of base, a target as CheckTarget returns it: at
// most rate requests a second and max in all, retries included, each
// within timeout, sent with hc (nil: a new one) but never following a
// redirect. A token is sent as the probe's --token is.
func NewClient(base, token string, rate float64, max int, timeout time.Duration, hc *http.Client) *Client {
	return &Client{newClient(base, token, rate, max, timeout, hc, realClock{})}
}

// GetData GETs path (relative to the base, with its query) and returns
// the data of the success envelope it answers, JSON numbers as
// json.Number. Any other answer is an error that names the request and
// says what was wrong; a 401 is an *AuthError.
func (c *Client) GetData(ctx context.Context, path string) (any, error) {
	ex, err := c.c.get(ctx, path, false)
	if err != nil {
		return nil, err
	}
	return okData(ex)
}

// Sent is how many requests the client has sent, retries included.
func (c *Client) Sent() int { return c.c.sent }

// AuthError is returned by Run when the target refuses the probe's
// credentials (401): every further request would fail the same way, so
// the probe stops at the first.
type AuthError struct {
	Request  string // the request that was refused: "GET /settings/ai"
	HasToken bool   // whether the probe sent a token
}

func (e *AuthError) Error() string {
	if e.HasToken {
		return e.Request + ": 401 unauthorized: the target refused the token (check --token or REPLYMOCK_PROBE_TOKEN)"
	}
	return e.Request + ": 401 unauthorized: the target wants a token (give it with --token or REPLYMOCK_PROBE_TOKEN)"
}

// get sends a GET, or answers it from the cache when cached is true and
// the same GET was answered before.
func (c *client) get(ctx context.Context, path string, cached bool) (*exchange, error) {
	if cached {
		if ex, ok := c.cache[path]; ok {
			return ex, nil
		}
	}
	ex, err := c.do(ctx, http.MethodGet, path, nil, false)
	if err == nil && ex.status < 500 && ex.status != http.StatusTooManyRequests {
		c.cache[path] = ex
	}
	return ex, err
}

// do sends one request (and its retries after a 429 or a 502, 503 or
// 504 to a GET), each counted against the budget. Errors are
// *uncheckedError (the budget is spent, no answer, interrupted) or
// *AuthError; any answer, whatever its status, is an exchange.
func (c *client) do(ctx context.Context, method, path string, body []byte, restoring bool) (*exchange, error) {
	limited, retried5xx := 0, false
	for {
		avail := c.max - c.sent
		if !restoring {
			avail -= c.reserve
		}
		if avail <= 0 {
			return nil, unchecked("the request budget is spent (--max-requests %d)", c.max)
		}
		if err := c.limit.wait(ctx); err != nil {
			return nil, interrupted(method, path)
		}
		c.sent++
		ex, err := c.send(ctx, method, path, body)
		if err != nil {
			return nil, err
		}
		switch ex.status {
		case http.StatusUnauthorized:
			return ex, &AuthError{Request: ex.request(), HasToken: c.auth != ""}
		case http.StatusTooManyRequests:
			limited++
			if limited >= max429 {
				return nil, unchecked("%s: rate limited (429) %d times in a row; try a lower --rate", ex.request(), limited)
			}
			wait := retryAfter(ex.header, c.clock.Now(), time.Duration(limited)*time.Second)
			if wait > maxRetryWait {
				return nil, unchecked("%s: rate limited (429); the target asks to wait %s, more than the %s the probe waits", ex.request(), wait, maxRetryWait)
			}
			c.limit.pause(c.clock.Now().Add(wait))
			continue
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// Once, for a GET, when the target asks for a short wait at
			// most: a service that is down says so with a long one.
			wait := retryAfter(ex.header, c.clock.Now(), time.Second)
			if method == http.MethodGet && !retried5xx && wait <= max5xxWait {
				retried5xx = true
				c.limit.pause(c.clock.Now().Add(wait))
				continue
			}
		}
		return ex, nil
	}
}

// send is one round trip within the per-request timeout.
func (c *client) send(ctx context.Context, method, path string, body []byte) (*exchange, error) {
	ex := &exchange{method: method, path: path, body: body}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, c.base+path, rd)
	if err != nil {
		return nil, unchecked("%s: %v", ex.request(), err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "replymock-probe/1")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.auth != "" {
		req.Header.Set("Authorization", c.auth)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, rctx, ex, err)
	}
	defer resp.Body.Close()
	ex.status = resp.StatusCode
	ex.header = resp.Header
	ex.answer, err = io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return nil, c.transportError(ctx, rctx, ex, err)
	}
	if len(ex.answer) > maxAnswer {
		return nil, unchecked("%s: the answer is over %d MiB", ex.request(), maxAnswer>>20)
	}
	return ex, nil
}

// transportError says in one line why no (whole) answer came.
func (c *client) transportError(ctx, rctx context.Context, ex *exchange, err error) error {
	switch {
	case ctx.Err() != nil:
		return interrupted(ex.method, ex.path)
	case rctx.Err() != nil:
		if ex.status != 0 {
			return unchecked("%s: the answer (%d) did not finish within %s", ex.request(), ex.status, c.timeout)
		}
		return unchecked("%s: no answer within %s (--timeout)", ex.request(), c.timeout)
	case ex.status != 0:
		return unchecked("%s: the answer (%d) was cut short: %v", ex.request(), ex.status, rootCause(err))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return unchecked("%s: the connection closed with no answer", ex.request())
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return unchecked("%s: cannot connect: %v", ex.request(), rootCause(err))
	}
	return unchecked("%s: %v", ex.request(), rootCause(err))
}

// rootCause drops the url.Error wrapping, which repeats the whole URL.
func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter reads how long a 429 (or 503) asks to wait: Retry-After in
// seconds or as an HTTP date, or the upstream's X-Ratelimit-Retry in
// seconds; def when neither is given or readable.
func retryAfter(h http.Header, now time.Time, def time.Duration) time.Duration {
	for _, name := range []string{"Retry-After", "X-Ratelimit-Retry"} {
		v := strings.TrimSpace(h.Get(name))
		if v == "" {
			continue
		}
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s < 1e6 {
			return time.Duration(s * float64(time.Second))
		}
		if t, err := http.ParseTime(v); err == nil {
			if d := t.Sub(now); d > 0 {
				return d
			}
			return 0
		}
	}
	return def
}

// interrupted is the error of a request the caller gave up on.
func interrupted(method, path string) error {
	return &uncheckedError{reason: "interrupted before " + method + " " + path + " was answered", interrupted: true}
}

// trimAnswer is an answer as evidence: at most n bytes (on a rune
// boundary), line breaks and tabs shown as spaces.
func trimAnswer(b []byte, n int) string {
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(b))
}
