package admin

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleSnapshotGet serves GET /__mock/snapshot: a session's snapshot,
// the document itself (not in the envelope).
func (a *Admin) handleSnapshotGet(w http.ResponseWriter, r *http.Request) {
	asYAML, sid, err := snapshotQuery(r)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	done, ok := a.Snapshots.Writing(r.Context())
	if !ok {
		return
	}
	defer done()
	snap, err := a.Snapshots.Take(sid)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	snap.RedactTokens()
	body, err := snapshot.Marshal(snap, asYAML)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	ctype, ext := wire.ContentTypeJSON, "json"
	if asYAML {
		ctype, ext = wire.ContentTypeYAML, "yaml"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="replymock-%s.%s"`, sid, ext))
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// snapshotQuery reads GET /__mock/snapshot's query: the session (one,
// not *) and the format: format=json|yaml, else the first JSON or YAML
// type in Accept, else YAML.
func snapshotQuery(r *http.Request) (asYAML bool, sid string, err error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, &wire.Params{Names: []string{"session", "format"}})
	if err == nil {
		sid, err = SessionParam(q, r, session.Default)
	}
	if err == nil {
		err = notAll(r, sid)
	}
	if err != nil {
		return false, "", err
	}
	switch f, given, err := q.Get("format"); {
	case err != nil:
		return false, "", err
	case !given:
	case f == "json":
		return false, sid, nil
	case f == "yaml":
		return true, sid, nil
	default:
		return false, "", wire.InvalidParameter("format", "must be json or yaml, got %q", wire.Clip(f))
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json":
			return false, sid, nil
		case "application/yaml", "application/x-yaml", "text/yaml":
			return true, sid, nil
		}
	}
	return true, sid, nil
}

// handleSnapshotPost serves POST /__mock/snapshot: a snapshot restored
// into session, by default the snapshot's own.
func (a *Admin) handleSnapshotPost(r *http.Request) (int, any, error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, &wire.Params{Names: []string{"session"}})
	if err != nil {
		return 0, nil, err
	}
	sid, err := SessionParam(q, r, "")
	if err == nil {
		err = notAll(r, sid)
	}
	if err != nil {
		return 0, nil, err
	}
	read, err := a.bodyTurn(r, snapshot.Body)
	if err != nil {
		return 0, nil, err
	}
	defer read()
	done := a.Snapshots.Restoring()
	defer done()
	body, err := wire.ReadDocument(r, snapshot.Body)
	if err != nil {
		return 0, nil, err
	}
	snap, err := snapshot.DecodeJSON(body)
	if err != nil {
		return 0, nil, err
	}
	res, err := a.Snapshots.Restore(sid, snap)
	if err != nil {
		return 0, nil, err
	}
	if len(res.Dropped) > 0 {
		a.Log.Warn("snapshot restored in part", "session", res.Session, "dropped", strings.Join(res.Dropped, "; "))
	}
	return http.StatusOK, res, nil
}
