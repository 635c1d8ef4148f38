// Package fleet keeps a server's state in Redis (--store redis://...),
// one state for all replicas.
//
// Every replica started with the same store and scenarios shares it:
// whichever replica answers, the state is the same.
//
// Each replica keeps its sessions in memory, a copy of what Redis holds.
// A write takes its session's lock in Redis, reloads what changed, and
// is in Redis before it is answered (Serve), so any replica sees it
// after. Only what changes is stored: every replica generates the same
// data from the same seed and anchor. While Redis is out of reach, reads
// answer from the copy with a warning and writes answer 503.
package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/statedir"
)

// Config is what a Store is opened with.
type Config struct {
	URL string // redis://[user:password@]host:port/db or rediss://
	Log *slog.Logger
	// TTL is how long an unused session stays in Redis. The default
	// session never expires.
	TTL time.Duration
	// MaxSessions and MaxBytes (DefaultMaxBytes when 0, all documents
	// together) bound what Redis keeps; past them, the least recently
	// used sessions go. A write that would pass MaxBytes alone answers 413.
	MaxSessions int
	MaxBytes    int64
	// Prefix begins every key; "replymock:" when empty.
	Prefix string
}

// MaxSessionBytes bounds one session's document in Redis, as a snapshot
// is bounded: a write past it answers 413.
const MaxSessionBytes = snapshot.MaxBytes

// DefaultMaxBytes is the default Config.MaxBytes. It matches what one
// replica may keep of seeded reviews, which Redis keeps for the fleet.
const DefaultMaxBytes = 512 << 20

// opTimeout bounds one exchange with Redis, past which it is out of reach.
const opTimeout = 2 * time.Second

// Store is the shared state of a fleet, in Redis.
type Store struct {
	cfg    Config
	shown  string // the URL without its password, for logs and health
	client rueidis.Client
	k      *snapshot.Keeper
	st     *shared.State
	anchor time.Time

	up      atomic.Bool  // the last exchange with Redis went through
	lastErr atomic.Value // string: why the last one did not

	mu     sync.Mutex // one reload or keeping at a time; guards serverSum and the sums in known
	held   held       // the write locks this replica holds (lock.go)
	pins   pins       // the sessions requests are served from now (serve.go)
	app    appender   // the journal's entries waiting for their step (journal.go)
	bodies bodyCache  // the responses the journal keeps apart (bodies.go)

	vmu       sync.RWMutex // guards sv, known's versions, epoch and lostAt
	sv        int64        // the server's version this replica holds; -1 for none yet
	serverSum [32]byte
	known     map[string]*entry
	epoch     string    // the store's epoch this replica knows (epoch.go); "" before the first read
	lostAt    time.Time // when the store was last found to have lost its data
	initial   statedir.ServerState
}

// entry is what a replica knows of one session in Redis.
type entry struct {
	version int64    // the version of the local copy; -1: reload at the next request
	sum     [32]byte // the hash of the document last written or read (goneSum: none)
	touched time.Time
	key     journal.Key // the local copy the version is of
	// badVersion did not restore here (badWhy says why): for a second
	// after badAt, its requests fail at once instead of trying again.
	badVersion int64
	badAt      time.Time
	badWhy     string
}

// goneSum marks a session that Redis holds no document of.
var goneSum = [32]byte{1}

// urlForm is what a --store URL may be.
const urlForm = "must be memory, redis://[user:password@]host:port/db or rediss://host:port/db"

// ParseURL checks a --store URL: redis:// or rediss://, a host, and
// optionally a port and a database number. A query or fragment is
// refused, since rueidis would read it as options. The error never
// quotes the URL, which may hold a password.
func ParseURL(raw string) (rueidis.ClientOption, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") || u.Opaque != "" {
		return rueidis.ClientOption{}, errors.New(urlForm)
	}
	why := ""
	switch {
	case strings.ContainsAny(raw, "?#"):
		why = "no query (?) or fragment (#) is taken; percent-encode a password's /, ? and #"
	case u.Hostname() == "":
		why = "no host"
	case u.Port() != "" && !isNumber(u.Port(), 1, 65535):
		why = "the port must be a number from 1 to 65535"
	case u.Path != "" && !isNumber(strings.TrimPrefix(u.Path, "/"), 0, 1<<31-1):
		why = "the database must be a number >= 0, after a single /"
	}
	if why != "" {
		return rueidis.ClientOption{}, errors.New(urlForm + ": " + why)
	}
	opt, err := rueidis.ParseURL(raw)
	if err != nil { // not after the checks above; its error would quote the URL
		return rueidis.ClientOption{}, errors.New(urlForm)
	}
	return opt, nil
}

// isNumber reports whether s is digits only, of a number from lo to hi.
func isNumber(s string, lo, hi uint64) bool {
	n, err := strconv.ParseUint(s, 10, 64) // no sign, no 0x, no _
	return err == nil && n >= lo && n <= hi
}

// RedactedURL is a --store URL with its password replaced by xxxxx, as
// logs, health and errors show it.
func RedactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not a URL)"
	}
	return u.Redacted()
}

// redact is msg with the store's password, if any, replaced by xxxxx.
func (s *Store) redact(msg string) string {
	u, _ := url.Parse(s.cfg.URL)
	if p, ok := u.User.Password(); ok && p != "" {
		msg = strings.ReplaceAll(msg, p, "xxxxx")
	}
	return msg
}

// Open connects to the store cfg names, trying again (and saying so)
// until it answers or ctx ends.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	opt, err := ParseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Prefix == "" {
		cfg.Prefix = "replymock:"
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	opt.ForceSingleClient = true // one Redis, or a managed one behind one address
	opt.DisableCache = true      // the versions are read on every request: no tracking needed
	opt.DisableRetry = true      // a request while Redis is down answers at once, from the state last known
	opt.Dialer.Timeout = opTimeout
	opt.ConnWriteTimeout = opTimeout
	s := &Store{cfg: cfg, shown: RedactedURL(cfg.URL), sv: -1, known: make(map[string]*entry)}
	wait := 100 * time.Millisecond
	for {
		c, err := rueidis.NewClient(opt)
		if err == nil {
			err = c.Do(ctx, c.B().Ping().Build()).Error()
			if err == nil {
				s.client = c
				break
			}
			c.Close()
		}
		cfg.Log.Warn("store: unreachable; trying again", "store", s.shown, "err", s.redact(err.Error()), "in", wait.String())
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("store %s: unreachable: %w", s.shown, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
	s.up.Store(true)
	cfg.Log.Info("store: connected", "store", s.shown)
	return s, nil
}

// Close closes the connection, waiting at most closeWait: the Redis
// client's Close was seen to hang once, and a shutdown must not.
func (s *Store) Close() {
	done := make(chan struct{})
	go func() {
		s.client.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(closeWait):
	}
}

// closeWait bounds how long Close waits for the Redis client to close.
const closeWait = 5 * time.Second

// key is the key name of part.
func (s *Store) key(part string) string { return s.cfg.Prefix + part }

// anchorLayout is how the anchor is kept: UTC, to the second, so that
// the order of two anchors is the order of their strings.
const anchorLayout = "2006-01-02T15:04:05Z"

// anchorSkew is how far the replicas' clocks may be apart. A replica
// whose clock is behind keeps the anchor one ahead of it set.
const anchorSkew = time.Minute

// anchorScript (anchor.lua) gives replicas starting together one anchor.
var anchorScript = rueidis.NewLuaScript(lua("anchor.lua"))

// Anchor is the time every replica's generated data is anchored to: the
// one Redis keeps if recent enough (shop.MaxGap), else now.
func (s *Store) Anchor(ctx context.Context, now time.Time) (time.Time, error) {
	now = now.UTC().Truncate(time.Second)
	got, err := anchorScript.Exec(ctx, s.client, []string{s.key("anchor")},
		[]string{now.Add(-shop.MaxGap).Format(anchorLayout), now.Format(anchorLayout), now.Add(anchorSkew).Format(anchorLayout)}).ToString()
	if err != nil {
		return time.Time{}, err
	}
	return time.Parse(anchorLayout, got)
}

// Attach makes s the place k's state keeps its changes, and loads the
// server's state from Redis. Call it once, before serving.
func (s *Store) Attach(ctx context.Context, k *snapshot.Keeper, anchor time.Time) {
	s.k, s.st, s.anchor = k, k.State(), anchor
	s.initial = statedir.TakeServer(s.st, anchor) // what a Redis that lost its data means
	s.st.SetKeeper(s.keep)
	s.st.SetCounts(s)
	s.st.SetPinned(s.pins.has)
	s.refresh(ctx, "", false)
}

// Health is the store's part of GET /__mock/health.
type Health struct {
	Kind  string `json:"kind"`          // memory or redis
	URL   string `json:"url,omitempty"` // without its password
	State string `json:"state"`         // ok, unreachable, or full
	// LostAt is when this replica found that Redis had lost its data
	// (RFC 3339), within the last minute.
	LostAt string `json:"lost_at,omitempty"`
	Error  string `json:"error,omitempty"` // why, when not ok
}

// Health says whether the last exchange with Redis went through, or,
// when it did not, whether Redis answers a PING now.
func (s *Store) Health() Health {
	h := Health{Kind: "redis", URL: s.shown, State: "ok"}
	if !s.up.Load() {
		// Asked again: the last exchange may have been a late one on a
		// connection Redis closed (restarted), the rest going through.
		s.do(context.Background(), s.client.B().Ping().Build())
	}
	if !s.up.Load() {
		h.State = "unreachable"
		h.Error, _ = s.lastErr.Load().(string)
	} else if full := s.fullness(); full != "" {
		h.State, h.Error = "full", full
	}
	if at, ok := s.lostLately(); ok {
		h.LostAt = at.UTC().Format(time.RFC3339)
	}
	return h
}

// fullness says, when Redis is at its maxmemory, how full it is: it
// then refuses writes (or, with an eviction policy, drops keys). It is
// "" when Redis has room or does not say.
func (s *Store) fullness() string {
	info, err := s.do(context.Background(), s.client.B().Info().Section("memory").Build()).ToString()
	if err != nil {
		return ""
	}
	used, limit := infoInt(info, "used_memory"), infoInt(info, "maxmemory")
	if limit == 0 || used < limit {
		return ""
	}
	return fmt.Sprintf("Redis uses %d bytes, at its maxmemory of %d: writes are refused until it has room", used, limit)
}

// infoInt reads the number a line "name:N" of Redis's INFO gives, or 0.
func infoInt(info, name string) int64 {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// downTimeout bounds an exchange with Redis while it is known to be out
// of reach. Requests still try, so they notice at once when it is back.
const downTimeout = 100 * time.Millisecond

// exchange runs f with the store's timeout and notes whether Redis
// answered. A nil reply is not an error.
func (s *Store) exchange(parent context.Context, f func(ctx context.Context) error) error {
	timeout := opTimeout
	if !s.up.Load() {
		timeout = downTimeout
	}
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	err := f(ctx)
	if rueidis.IsRedisNil(err) {
		err = nil
	}
	if _, answered := refusal(err); err != nil && !answered {
		if parent.Err() != nil {
			return parent.Err() // the caller went: no word on Redis
		}
		s.failed(err)
		return err
	}
	s.reached() // an error Redis answered (OOM, say) is the caller's, not Redis out of reach
	return err
}

// do runs cmd as one exchange (see exchange). A nil reply is still
// one, for the caller to read as such.
func (s *Store) do(ctx context.Context, cmd rueidis.Completed) rueidis.RedisResult {
	return s.result(ctx, func(ctx context.Context) rueidis.RedisResult { return s.client.Do(ctx, cmd) })
}

// exec runs script sc as one exchange, as do does.
func (s *Store) exec(ctx context.Context, sc *rueidis.Lua, keys, args []string) rueidis.RedisResult {
	return s.result(ctx, func(ctx context.Context) rueidis.RedisResult { return sc.Exec(ctx, s.client, keys, args) })
}

// result runs f as one exchange and returns its reply, or the
// exchange's error in its place.
func (s *Store) result(ctx context.Context, f func(context.Context) rueidis.RedisResult) rueidis.RedisResult {
	var res rueidis.RedisResult
	if err := s.exchange(ctx, func(ctx context.Context) error {
		res = f(ctx)
		return res.Error()
	}); err != nil {
		return rueidis.NewErrorResult(err)
	}
	return res
}

// refusal reports whether err is a working Redis refusing a command,
// such as OOM or an error in a script. Errors of a Redis that cannot
// serve now (LOADING, READONLY, NOAUTH, ...) count as out of reach,
// like a dropped connection.
func refusal(err error) (*rueidis.RedisError, bool) {
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return nil, false
	}
	code, _, _ := strings.Cut(re.Error(), " ")
	switch code {
	case "LOADING", "BUSY", "MASTERDOWN", "TRYAGAIN", "READONLY", "CLUSTERDOWN", "NOAUTH", "WRONGPASS", "NOPERM", "MOVED", "ASK":
		return nil, false
	}
	return re, true
}

// failed notes that Redis did not answer.
func (s *Store) failed(err error) {
	msg := s.redact(err.Error())
	s.lastErr.Store(msg)
	if s.up.Swap(false) {
		s.cfg.Log.Warn("store: unreachable; reads answer from the state last known, writes are refused", "store", s.shown, "err", msg)
	}
}

// reached notes that Redis answered.
func (s *Store) reached() {
	if !s.up.Load() && s.up.CompareAndSwap(false, true) {
		s.cfg.Log.Info("store: reachable again", "store", s.shown)
	}
}
