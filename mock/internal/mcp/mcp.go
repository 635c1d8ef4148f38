// Package mcp serves replymock's Model Context Protocol server: the
// tools a coding agent calls to look at, change, break and check the mock.
//
// Each tool is a request to the admin API or the API, served in-process,
// so that their rules and errors are theirs alone.
package mcp

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Config is what the MCP server serves with.
type Config struct {
	Handler   http.Handler // the replymock server, called in-process
	Token     string       // the admin token, sent with every call; "" for none
	ReadOnly  bool         // only the tools that read are offered
	Version   string
	Log       *slog.Logger
	Resources []Resource
	Probe     Prober // runs the probe tool; nil leaves it out
	// MaxConnections bounds the MCP connections open at once; past it, a
	// new one over HTTP answers 503. 0 means DefaultMaxConnections.
	MaxConnections int
}

// DefaultMaxConnections is Config.MaxConnections's default.
const DefaultMaxConnections = 256

// Resource is a document the server offers as an MCP resource.
type Resource struct {
	URI, Name, MIME, About string
	Text                   []byte
}

// Instructions tells a client what the server is and how sessions work.
const Instructions = "replymock is an in-memory fake of a marketplace shop's auto-reply service: " +
	"GET/PATCH /api/v1/settings/ai and GET /api/v1/feedbacks (customer reviews). " +
	"Use the tools to look at its data, change it, inject faults and check what a client sent. " +
	"Every tool takes an optional session; without one, the call goes to a session of this " +
	"MCP connection's own, so two agents never collide. To see a client's requests, point " +
	"the client at the same session (header X-Mock-Session)."

// Server is an MCP server over one replymock server.
type Server struct {
	cfg      Config
	sdk      *sdk.Server
	mu       sync.Mutex
	sessions map[*sdk.ServerSession]string // each live connection's own session
}

// New is the MCP server of cfg, with its tools, resources and prompts.
func New(cfg Config) *Server {
	cfg.Log = cmp.Or(cfg.Log, slog.New(slog.DiscardHandler))
	if cfg.MaxConnections <= 0 {
		cfg.MaxConnections = DefaultMaxConnections
	}
	s := &Server{cfg: cfg, sessions: map[*sdk.ServerSession]string{}}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "replymock", Version: cfg.Version},
		&sdk.ServerOptions{Instructions: Instructions, Capabilities: &sdk.ServerCapabilities{}})
	for _, t := range tools {
		if t.reads || !cfg.ReadOnly {
			t.add(s, &sdk.Tool{Name: t.name, Description: t.about, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: t.reads}})
		}
	}
	for _, r := range cfg.Resources {
		text := string(r.Text)
		s.sdk.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, MIMEType: r.MIME, Description: r.About},
			func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: r.MIME, Text: text}}}, nil
			})
	}
	addPrompts(s.sdk)
	return s
}

// SDK is the SDK's server, to run over a transport.
func (s *Server) SDK() *sdk.Server { return s.sdk }

// HTTPHandler serves streamable HTTP. Idle connections close after
// SessionTimeout, and at most MaxConnections are open, so what the
// connections keep stays bounded.
func (s *Server) HTTPHandler() http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk },
		&sdk.StreamableHTTPOptions{SessionTimeout: SessionTimeout})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.connections() >= s.cfg.MaxConnections {
			wire.WriteError(w, r, s.cfg.Log, &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable,
				RetryAfter: time.Minute, Message: "too many MCP connections are open; close one, or wait for idle ones to time out"})
			return
		}
		h.ServeHTTP(w, r)
	})
}

// connections counts the open MCP connections over HTTP, those with a
// session id. A client's connecting may count for a moment twice, so a
// connection at the very bound may be refused: the bound is a budget,
// not a promise.
func (s *Server) connections() int {
	n := 0
	for ss := range s.sdk.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// SessionTimeout is how long an idle MCP connection over HTTP lives.
const SessionTimeout = 30 * time.Minute

// sessionOf is the replymock session a call goes to: the one given, or
// the connection's own, made on its first call and forgotten when it
// closes.
func (s *Server) sessionOf(ss *sdk.ServerSession, given string) string {
	if given != "" || ss == nil {
		return given
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if sid, ok := s.sessions[ss]; ok {
		return sid
	}
	b := make([]byte, 8)
	rand.Read(b)
	sid := "mcp-" + hex.EncodeToString(b)
	s.sessions[ss] = sid
	go func() {
		ss.Wait()
		s.mu.Lock()
		delete(s.sessions, ss)
		s.mu.Unlock()
	}()
	return sid
}

// MaxAnswerBytes bounds an in-process answer a tool reads.
const MaxAnswerBytes = 8 << 20

// call serves method path?query with body in-process as session sid, and
// returns the envelope's data, or its error as a tool error.
func (s *Server) call(ctx context.Context, sid, method, path, query string, body any) (any, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	target := path
	if query != "" {
		target += "?" + query
	}
	r := httptest.NewRequestWithContext(ctx, method, target, rd)
	r.Host = "localhost"
	r.RemoteAddr = "127.0.0.1:1"
	if body != nil {
		r.Header.Set("Content-Type", "application/json")
	}
	if sid != "" {
		r.Header.Set("X-Mock-Session", sid)
	}
	if s.cfg.Token != "" {
		r.Header.Set("X-Mock-Admin-Token", s.cfg.Token)
	}
	w := httptest.NewRecorder()
	s.cfg.Handler.ServeHTTP(w, r)
	var env struct {
		Data  any `json:"data"`
		Error *struct {
			Code, Message, Field string
		} `json:"error"`
	}
	raw := w.Body.Bytes()
	if len(raw) > MaxAnswerBytes {
		return nil, errors.New("the answer is too large for a tool; narrow the query")
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, errors.New(w.Result().Status + ": " + strings.TrimSpace(string(raw)))
	}
	if env.Error != nil {
		msg := env.Error.Code + ": " + env.Error.Message
		if env.Error.Field != "" {
			msg += " (field " + env.Error.Field + ")"
		}
		return nil, errors.New(msg)
	}
	return env.Data, nil
}
