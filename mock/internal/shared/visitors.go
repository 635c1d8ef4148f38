package shared

import (
	"container/list"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
	"golang.org/x/time/rate"
)

// Visitors bounds what the clients of a public listener (the API's, when
// the admin API has a listener of its own) may start: each client's new
// sessions, and the scenarios X-Mock-Scenario may name. A session costs
// its state (a kilobyte or two while it only reads a living shop) and a
// journal; a scenario whose data is not built costs its build, which
// for big-shop is some 325 MB.
type Visitors struct {
	// NewSessions is how many sessions one client (a remote address, an
	// IPv6 one by its /64) may start a minute, as a burst or spread out;
	// 0 bounds none.
	NewSessions int
	// Scenarios are those X-Mock-Scenario may name; empty: those whose
	// data is built already (the active one, and those the admin API or
	// another listener used); "*" in it: any.
	Scenarios []string
}

// MaxVisitorClients bounds the clients whose new sessions are counted at
// once: past it, the one seen least recently is forgotten.
const MaxVisitorClients = 4096

// visitors counts each client's new sessions on a public listener.
type visitors struct {
	Visitors
	mu      sync.Mutex
	clients map[string]*list.Element // of seen
	seen    list.List                // *allowance, the most recently seen first
}

// allowance is a client's new sessions.
type allowance struct {
	client string
	limit  *rate.Limiter
}

// clientOf is the client a request's remote address names; "" for one
// that does not parse, which all such requests share.
func clientOf(remote string) string {
	c, ok := access.Client(remote)
	if !ok {
		return ""
	}
	return c
}

// admit counts a new session of client at now, or says when the client
// may start one.
func (v *visitors) admit(client string, now time.Time) error {
	n := v.NewSessions
	if n <= 0 {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	var a *allowance
	if e := v.clients[client]; e != nil {
		v.seen.MoveToFront(e)
		a = e.Value.(*allowance)
	} else {
		if v.clients == nil {
			v.clients = make(map[string]*list.Element)
		}
		if len(v.clients) >= MaxVisitorClients {
			delete(v.clients, v.seen.Remove(v.seen.Back()).(*allowance).client)
		}
		a = &allowance{client: client, limit: rate.NewLimiter(rate.Limit(float64(n)/60), n)}
		v.clients[client] = v.seen.PushFront(a)
	}
	if a.limit.AllowN(now, 1) {
		return nil
	}
	// Rounded up to whole seconds, as Retry-After says it.
	wait := time.Duration((1 - a.limit.TokensAt(now)) / float64(n) * float64(time.Minute))
	wait = (wait + time.Second - 1).Truncate(time.Second)
	e := wire.StatusError(http.StatusTooManyRequests)
	e.Field = HeaderSession
	e.Message = fmt.Sprintf("too many new sessions from your address: at most %d a minute here (the server's --max-new-sessions); send an %s you have used already (or none, for the default session), or start this one in %ds",
		n, HeaderSession, int(wait/time.Second))
	e.RetryAfter = wait
	return e
}

// mayName refuses a scenario a visitor may not name.
func (st *State) mayName(name string) error {
	sc, name, ok := st.registry.Get(name)
	if !ok {
		return nil // an unknown name: ScenarioOf says so
	}
	open := st.visitors.Scenarios
	if slices.Contains(open, "*") || slices.Contains(open, name) || len(open) == 0 && sc.Built() {
		return nil
	}
	why := "it is not among those listed"
	if len(open) == 0 {
		why = "its data is not built, which takes memory and time"
		for _, info := range st.registry.List("") {
			if sc, _, ok := st.registry.Get(info.Name); ok && sc.Built() {
				open = append(open, info.Name)
			}
		}
	}
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: HeaderScenario,
		Message: fmt.Sprintf("scenario %q is not open to this listener's clients (%s); here %s may name %s (the server's --public-scenarios opens more)",
			name, why, HeaderScenario, strings.Join(open, ", "))}
}

// ResolveVisitor is Resolve for a request that came on a public
// listener from the remote address remote: a scenario the visitor may
// not name is refused, and so is a new session past its client's limit.
func (st *State) ResolveVisitor(sid, name, remote string) (*session.Session, *scenario.Scenario, error) {
	if name != "" {
		if err := st.mayName(name); err != nil {
			return nil, nil, err
		}
	}
	var ss *session.Session
	err := st.sessions.Update(func(tx session.Tx) error {
		if _, ok := tx.Find(sid); !ok && sid != session.Default {
			if err := st.visitors.admit(clientOf(remote), st.now()); err != nil {
				return err
			}
		}
		ss = tx.Open(sid)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sc, err := st.ScenarioOf(ss, name)
	if err != nil {
		return nil, nil, err
	}
	return ss, sc, nil
}
