package fleet

import (
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
)

// The fleet's journal (journal.Shared) lives in these keys:
//
//   - j:s:ID: a stream per session, each entry under its sequence number
//     with its data (d) and, when the body is stored apart, its hash (h).
//   - j:b:H: a response body stored once for every entry with the same
//     bytes; j:bref counts the entries referring to each.
//   - j:z:ID: a list of "SEQ N [H]" for the session's entries, oldest
//     first; N is what each counts against the byte bound.
//   - j:order: a list of "SEQ N H ID" for every entry, oldest first. It
//     decides which entry goes first when a fleet bound is reached.
//   - j:meta: seq (the last sequence number), bytes (the total counted)
//     and lost (the newest entry any session lost to the bounds).
//   - j:lost: the newest entry each session lost to the bounds.
//   - j:sessions: the sessions with a stream.
//
// Each step is one script, so the bounds hold for the fleet at every
// moment. An entry counts its whole response even when the body is
// shared. A session's journal goes with a reset, a clear or the bounds,
// not with the session (no TTL).

// The journal's scripts; each file says what it does, with the keys
// above.
var (
	appendScript = rueidis.NewLuaScript(lua("journal_append.lua"))
	readScript   = rueidis.NewLuaScript(lua("journal_read.lua"))
	clearScript  = rueidis.NewLuaScript(lua("journal_clear.lua"))
	lostScript   = rueidis.NewLuaScript(lua("journal_lost.lua"))
)

// Journal is the fleet's journal, for journal.Journals.SetShared.
func (s *Store) Journal() journal.Shared { return sharedJournal{s} }

type sharedJournal struct{ s *Store }

// exec runs a journal script as Store.exec does. Its error is the 503 to
// answer, or ctx's.
func (sj sharedJournal) exec(ctx context.Context, sc *rueidis.Lua, keys, args []string) (rueidis.RedisResult, error) {
	res := sj.s.exec(ctx, sc, keys, args)
	err := res.Error()
	if err != nil && ctx.Err() == nil {
		err = unavailable(err)
	}
	return res, err
}

func (sj sharedJournal) key(part string) string { return sj.s.key("j:" + part) }

// Append stores an entry and returns its sequence number, once data and
// resp are the caller's again. Entries appended while a script runs are
// batched into the next, so a busy replica runs one script for many.
func (sj sharedJournal) Append(_ context.Context, sid string, data, resp []byte, kept int64, b journal.Bounds) (int64, error) {
	req := &appendReq{sid: sid, data: data, resp: resp, kept: kept, b: b, done: make(chan struct{})}
	req.hash, req.send = sj.s.bodies.hash(resp)
	if !sj.s.app.push(req) {
		sj.flush([]*appendReq{req}) // no step ran: this one runs at once
		if batch := sj.s.app.next(); batch != nil {
			go sj.drain(batch) // the entries that came meanwhile, while more come
		}
	}
	<-req.done
	return req.seq, req.err
}

// drain stores batch, then any entries that arrive meanwhile, until
// none waits.
func (sj sharedJournal) drain(batch []*appendReq) {
	for ; batch != nil; batch = sj.s.app.next() {
		sj.flush(batch)
	}
}

// flush stores batch in one script run. Entries whose body Redis no
// longer has are sent again, with the body.
func (sj sharedJournal) flush(batch []*appendReq) {
	b := batch[0].b
	args := make([]string, 0, 6+5*len(batch))
	args = append(args, strconv.Itoa(b.Size), strconv.FormatInt(b.Bytes, 10), strconv.Itoa(b.Entries),
		sj.key("s:"), sj.key("z:"), sj.key("b:"))
	var sending map[string]bool // the bodies this step sends, once each
	for _, r := range batch {
		body := ""
		if r.send && !sending[r.hash] {
			body = rueidis.BinaryString(r.resp)
			if sending == nil {
				sending = make(map[string]bool)
			}
			sending[r.hash] = true
		}
		data := r.data
		if r.hash == "" {
			data = append(data, r.resp...) // kept inline: the caller's buffer, which it lent
		}
		args = append(args, r.sid, rueidis.BinaryString(data), strconv.FormatInt(r.kept, 10), r.hash, body)
	}
	res, err := sj.exec(context.Background(), appendScript,
		[]string{sj.key("order"), sj.key("meta"), sj.key("lost"), sj.key("sessions"), sj.key("bref")}, args)
	var seqs []int64
	if err == nil {
		seqs, err = res.AsIntSlice()
	}
	var again []*appendReq
	for i, r := range batch {
		switch {
		case err == nil && i < len(seqs) && seqs[i] == 0 && !r.send:
			sj.s.bodies.gone(r.hash)
			r.send = true
			again = append(again, r)
			continue
		case err == nil && i < len(seqs) && seqs[i] > 0:
			r.seq = seqs[i]
			if r.send {
				sj.s.bodies.sent(r.hash)
			}
		default:
			r.err = err
			if r.err == nil {
				r.err = errUnavailable() // not the answer a step gives
			}
		}
		close(r.done)
	}
	if again != nil {
		sj.flush(again)
	}
}

// appendReq is one entry waiting for its step.
type appendReq struct {
	sid  string
	data []byte
	resp []byte
	hash string // resp's, when kept apart (bodyCache); "" for inline
	send bool   // resp goes with the entry: Redis may not have it
	kept int64
	b    journal.Bounds
	seq  int64
	err  error
	done chan struct{}
}

// appender batches the entries appended while a script runs.
type appender struct {
	mu      sync.Mutex
	queue   []*appendReq
	running bool
}

// maxBatch bounds the entries of one step.
const maxBatch = 64

// push queues req and reports whether a batch is already running and
// will store it. If not, the caller must store it and drain the queue.
func (a *appender) push(req *appendReq) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running {
		a.queue = append(a.queue, req)
		return true
	}
	a.running = true
	return false
}

// next takes up to maxBatch waiting entries. With none waiting, it
// returns nil and marks the appender idle.
func (a *appender) next() []*appendReq {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) == 0 {
		a.running = false
		return nil
	}
	n := min(len(a.queue), maxBatch)
	batch := slices.Clone(a.queue[:n])
	a.queue = slices.Delete(a.queue, 0, n)
	return batch
}

func (sj sharedJournal) Read(ctx context.Context, scope string, since int64) ([]journal.Stored, error) {
	res, err := sj.exec(ctx, readScript, []string{sj.key("sessions")},
		[]string{scope, strconv.FormatInt(since+1, 10) + "-0", sj.key("s:"), sj.key("b:")})
	if err != nil {
		return nil, err
	}
	parts, err := res.ToArray()
	if err != nil || len(parts) != 2 {
		return nil, errUnavailable() // not the answer a step gives
	}
	arr, err1 := parts[0].AsStrSlice()
	pairs, err2 := parts[1].AsStrSlice()
	if err1 != nil || err2 != nil {
		return nil, errUnavailable()
	}
	bodies := make(map[string]string, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		bodies[pairs[i]] = pairs[i+1]
	}
	out := make([]journal.Stored, 0, len(arr)/3)
	for i := 0; i+2 < len(arr); i += 3 {
		if seq, err := strconv.ParseInt(arr[i], 10, 64); err == nil {
			out = append(out, journal.Stored{Seq: seq, Data: []byte(arr[i+1] + bodies[arr[i+2]])})
		}
	}
	return out, nil
}

func (sj sharedJournal) Lost(ctx context.Context, scope string) (int64, error) {
	res, err := sj.exec(ctx, lostScript, []string{sj.key("lost"), sj.key("meta")}, []string{scope})
	if err != nil {
		return 0, err
	}
	return res.AsInt64()
}

func (sj sharedJournal) Clear(ctx context.Context, scope string) error {
	_, err := sj.exec(ctx, clearScript,
		[]string{sj.key("sessions"), sj.key("meta"), sj.key("lost"), sj.key("order"), sj.key("bref")},
		[]string{scope, sj.key("s:"), sj.key("z:"), sj.key("b:")})
	return err
}

func (sj sharedJournal) Seq(ctx context.Context) (int64, error) {
	n, err := sj.s.do(ctx, sj.s.client.B().Hget().Key(sj.key("meta")).Field("seq").Build()).AsInt64()
	if rueidis.IsRedisNil(err) {
		err = nil // no entry yet
	}
	if err != nil && ctx.Err() == nil {
		err = unavailable(err)
	}
	return n, err
}
