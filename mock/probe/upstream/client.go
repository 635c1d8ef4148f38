package upstream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"golang.org/x/time/rate"
)

const (
	// maxAnswer bounds the bytes read of one answer, unless Limits say
	// otherwise. A page of 100 reviews is well under a megabyte.
	maxAnswer = 8 << 20
	// maxRetryWait bounds how long the client waits on a 429 before it
	// gives the request up.
	maxRetryWait = 30 * time.Second
	// max429 is how many 429s in a row one request may meet.
	max429 = 3
	// max5xxWait bounds the wait before a GET that met a 502, 503 or 504
	// is sent again. Asked to wait longer, the client does not retry.
	max5xxWait = 5 * time.Second
)

// Client sends requests to a server that claims to be the API: one at
// a time, within a rate, a budget and a timeout. It follows no
// redirects (a redirect is evidence, not a detour) and waits out a 429
// within bounds. It is not safe for concurrent use.
type Client struct {
	base    string // the target, without a trailing slash
	auth    string // the Authorization header's value, or ""
	http    *http.Client
	timeout time.Duration
	// limit spaces requests 1/rate apart. Its burst is 1, where the
	// upstream's is 6: the client leaves a shared account's burst alone.
	limit *rate.Limiter
	clock Clock

	max     int // the budget: at most this many requests in all
	reserve int // the part of the budget kept until Release
	sent    int

	limits Limits // the most read of answers
	read   int64  // bytes read of answers, limits.Before included

	cache map[string]*Exchange // GET answers by path, for Get's cached
}

// NewClient returns a client of base, as CheckTarget returns it, that
// sends at most perSecond requests a second and max in all, each within
// timeout, with hc (nil means a new one).
func NewClient(base, token string, perSecond float64, max int, timeout time.Duration, hc *http.Client) *Client {
	own := &http.Client{}
	if hc != nil {
		*own = *hc
	}
	own.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &Client{base: base, auth: authorization(token), http: own, timeout: timeout,
		limit: rate.NewLimiter(rate.Limit(perSecond), 1), clock: realClock{}, max: max, cache: make(map[string]*Exchange)}
}

// Limits bound what a client reads of answers. AnswerFlag and TotalFlag
// name the flags that set them, for the errors past them.
type Limits struct {
	Answer int64 // the most of one answer; 0 means 8 MiB
	Total  int64 // the most of all answers, Before included; 0 means no bound
	Before int64 // bytes read by an earlier run that this one goes on from

	AnswerFlag, TotalFlag string
}

// SetLimits bounds what the client reads from its first request on.
func (c *Client) SetLimits(l Limits) {
	c.limits, c.read = l, l.Before
}

// SetClock makes the client tell the time and wait on clk, for tests.
func (c *Client) SetClock(clk Clock) {
	c.clock = clk
}

// Reserve keeps the last n requests of the budget until Release, to put
// back what was changed when the rest is spent.
func (c *Client) Reserve(n int) { c.reserve = n }

// Release gives the reserve back to the requests that follow.
func (c *Client) Release() { c.reserve = 0 }

// Sent is how many requests the client has sent, retries included.
func (c *Client) Sent() int { return c.sent }

// Max is the budget: the most requests the client sends in all.
func (c *Client) Max() int { return c.max }

// Left is how many requests the client may still send: the budget less
// what was sent and the reserve.
func (c *Client) Left() int { return c.max - c.reserve - c.sent }

// Timeout bounds each request, its answer included.
func (c *Client) Timeout() time.Duration { return c.timeout }

// Now is the time on the client's clock.
func (c *Client) Now() time.Time { return c.clock.Now() }

// AuthError is a 401: the target refuses the credentials. Every further
// request would fail the same way, so a command stops at the first.
type AuthError struct {
	Request  string // the request that was refused: "GET /settings/ai"
	HasToken bool   // whether a token was sent
}

func (e *AuthError) Error() string {
	if e.HasToken {
		return e.Request + ": 401 unauthorized: the target refused the token (check --token or REPLYMOCK_PROBE_TOKEN)"
	}
	return e.Request + ": 401 unauthorized: the target wants a token (give it with --token or REPLYMOCK_PROBE_TOKEN)"
}

// RequestError is an outcome that tells nothing of the API: the request
// was not sent, not answered in whole, or answered with a server error.
// The probe reports it as a rule it could not check.
type RequestError struct {
	Reason      string // one line, naming the request
	Interrupted bool   // the caller's context ended it
}

func (e *RequestError) Error() string { return e.Reason }

func failed(format string, args ...any) error {
	return &RequestError{Reason: fmt.Sprintf(format, args...)}
}

// interrupted is the error of a request the caller gave up on.
func interrupted(method, path string) error {
	return &RequestError{Reason: "interrupted before " + method + " " + path + " was answered", Interrupted: true}
}

// GetData GETs path, relative to the base, and returns the data of the
// success envelope it answers. Numbers are json.Number. It never uses
// Get's cache, which would keep every page of a recording.
func (c *Client) GetData(ctx context.Context, path string) (any, error) {
	ex, err := c.Do(ctx, http.MethodGet, path, nil)
	if err != nil {
		return nil, err
	}
	return Data(ex)
}

// Get sends a GET, or when cached is true, answers it from the GETs
// answered before.
func (c *Client) Get(ctx context.Context, path string, cached bool) (*Exchange, error) {
	if cached {
		if ex, ok := c.cache[path]; ok {
			return ex, nil
		}
	}
	ex, err := c.Do(ctx, http.MethodGet, path, nil)
	if err == nil && ex.Status < 500 && ex.Status != http.StatusTooManyRequests {
		c.cache[path] = ex
	}
	return ex, err
}

// Do sends one request, and retries it after a 429 (or a 502, 503 or
// 504 to a GET). Any answer but a 401 is an exchange, whatever its
// status.
func (c *Client) Do(ctx context.Context, method, path string, body []byte) (*Exchange, error) {
	limited, retried5xx := 0, false
	for {
		if c.Left() <= 0 {
			return nil, failed("the request budget is spent (--max-requests %d)", c.max)
		}
		if err := c.wait(ctx); err != nil {
			return nil, interrupted(method, path)
		}
		c.sent++
		ex, err := c.send(ctx, method, path, body)
		if err != nil {
			return nil, err
		}
		var wait time.Duration
		switch ex.Status {
		case http.StatusUnauthorized:
			return ex, &AuthError{Request: ex.Request(), HasToken: c.auth != ""}
		case http.StatusTooManyRequests:
			limited++
			if limited >= max429 {
				return nil, failed("%s: rate limited (429) %d times in a row; try a lower --rate", ex.Request(), limited)
			}
			wait = retryAfter(ex.Header, c.clock.Now(), time.Duration(limited)*time.Second)
			if wait > maxRetryWait {
				return nil, failed("%s: rate limited (429); the target asks to wait %s, more than the %s the probe waits", ex.Request(), wait, maxRetryWait)
			}
		case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
			// Once, for a GET, when the target asks for a short wait at
			// most: a service that is down says so with a long one.
			wait = retryAfter(ex.Header, c.clock.Now(), time.Second)
			if method != http.MethodGet || retried5xx || wait > max5xxWait {
				return ex, nil
			}
			retried5xx = true
		default:
			return ex, nil
		}
		if err := c.clock.Sleep(ctx, wait); err != nil {
			return nil, interrupted(method, path)
		}
	}
}

// wait blocks until the rate lets the next request start.
func (c *Client) wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	now := c.clock.Now()
	if d := c.limit.ReserveN(now, 1).DelayFrom(now); d > 0 {
		return c.clock.Sleep(ctx, d)
	}
	return nil
}

// send is one round trip within the per-request timeout.
func (c *Client) send(ctx context.Context, method, path string, body []byte) (*Exchange, error) {
	ex := &Exchange{Method: method, Path: path, Body: body}
	rctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(rctx, method, c.base+path, rd)
	if err != nil {
		return nil, failed("%s: %v", ex.Request(), err)
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
	ex.Status = resp.StatusCode
	ex.Header = resp.Header
	most, whole := c.limits.Answer, false // whole: the bound is what is left of Total
	if most <= 0 {
		most = maxAnswer
	}
	if t := c.limits.Total; t > 0 && t-c.read < most {
		most, whole = max(t-c.read, 0), true
	}
	if resp.ContentLength > most { // refused unread
		return nil, c.tooLong(ex, most, whole)
	}
	ex.Answer, err = io.ReadAll(io.LimitReader(resp.Body, most+1))
	c.read += int64(len(ex.Answer))
	if err != nil {
		return nil, c.transportError(ctx, rctx, ex, err)
	}
	if int64(len(ex.Answer)) > most {
		return nil, c.tooLong(ex, most, whole)
	}
	return ex, nil
}

// tooLong is the error of an answer past most bytes. whole means most
// is what Limits.Total leaves.
func (c *Client) tooLong(ex *Exchange, most int64, whole bool) error {
	if whole {
		return failed("%s: the answers together are over %s, the most read in all%s", ex.Request(), Size(c.limits.Total), named(c.limits.TotalFlag))
	}
	return failed("%s: the answer is over %s%s", ex.Request(), Size(most), named(c.limits.AnswerFlag))
}

// named is " (--flag)" for a flag's name, "" for none.
func named(flag string) string {
	if flag == "" {
		return ""
	}
	return " (--" + flag + ")"
}

// Size says n bytes in the largest unit that holds it whole: "8 MiB",
// "1536 KiB", "100 bytes".
func Size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// transportError says in one line why no (whole) answer came.
func (c *Client) transportError(ctx, rctx context.Context, ex *Exchange, err error) error {
	switch {
	case ctx.Err() != nil:
		return interrupted(ex.Method, ex.Path)
	case rctx.Err() != nil:
		if ex.Status != 0 {
			return failed("%s: the answer (%d) did not finish within %s", ex.Request(), ex.Status, c.timeout)
		}
		return failed("%s: no answer within %s (--timeout)", ex.Request(), c.timeout)
	case ex.Status != 0:
		return failed("%s: the answer (%d) was cut short: %v", ex.Request(), ex.Status, rootCause(err))
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return failed("%s: the connection closed with no answer", ex.Request())
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return failed("%s: cannot connect: %v", ex.Request(), rootCause(err))
	}
	return failed("%s: %v", ex.Request(), rootCause(err))
}

// rootCause drops the url.Error wrapping, which repeats the whole URL.
func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// retryAfter reads how long a 429 (or 503) asks to wait, from
// Retry-After or the upstream's X-Ratelimit-Retry; def when neither is
// readable.
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
