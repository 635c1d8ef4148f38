package mock

import (
	"bytes"
	"cmp"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"sync"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// The OpenAPI 3.0 documents of the API as replymock serves it and of the
// admin API.
var (
	//go:embed openapi.yaml
	openAPIYAML []byte
	//go:embed admin-openapi.yaml
	adminOpenAPIYAML []byte
)

// OpenAPIDocument returns the OpenAPI 3.0 document (YAML) of the API as
// replymock serves it; the caller may change the copy it gets.
func OpenAPIDocument() []byte { return bytes.Clone(openAPIYAML) }

// AdminOpenAPIDocument returns the OpenAPI 3.0 document (YAML) of the
// admin API under /__mock/; the caller may change the copy it gets.
func AdminOpenAPIDocument() []byte { return bytes.Clone(adminOpenAPIYAML) }

// The documents as JSON, and the API's with absolute paths, made once.
var (
	openAPIJSON         = sync.OnceValues(func() ([]byte, error) { return yamlDocToJSON(openAPIYAML) })
	adminOpenAPIJSON    = sync.OnceValues(func() ([]byte, error) { return yamlDocToJSON(adminOpenAPIYAML) })
	openAPIAbsolute     = sync.OnceValues(func() ([]byte, error) { return absolutePaths(openAPIYAML) })
	openAPIAbsoluteJSON = sync.OnceValues(func() ([]byte, error) {
		doc, err := openAPIAbsolute()
		if err != nil {
			return nil, err
		}
		return yamlDocToJSON(doc)
	})
)

// absolutePaths moves the servers' base (APIPrefix) into the document's
// paths, for tools that ignore servers (Prism's validation proxy, some
// gateways).
func absolutePaths(doc []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	if len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("openapi: not a mapping")
	}
	top := root.Content[0]
	for i := 0; i+1 < len(top.Content); i += 2 {
		switch key, val := top.Content[i].Value, top.Content[i+1]; key {
		case "servers":
			for _, srv := range val.Content {
				for j := 0; j+1 < len(srv.Content); j += 2 {
					if srv.Content[j].Value == "url" {
						srv.Content[j+1].Value = "/"
					}
				}
			}
		case "paths":
			for j := 0; j < len(val.Content); j += 2 {
				val.Content[j].Value = APIPrefix + val.Content[j].Value
			}
		}
	}
	return yaml.Marshal(&root)
}

func yamlDocToJSON(doc []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(doc, &v); err != nil {
		return nil, err
	}
	return json.MarshalIndent(v, "", "  ")
}

// openAPIParams are what the OpenAPI documents' routes take.
var openAPIParams = &wire.Params{Names: []string{"paths"}, IgnoreUnknown: true}

// handleOpenAPI serves the OpenAPI document doc makes; absolute makes it
// for ?paths=absolute (nil: its paths are absolute already).
func (s *Server) handleOpenAPI(ctype string, doc, absolute func() ([]byte, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		build := doc
		q, err := wire.ReadQuery(r.URL.RawQuery, openAPIParams)
		v, given, verr := q.Get("paths")
		switch {
		case err != nil || verr != nil:
			s.writeError(w, r, cmp.Or(err, verr))
			return
		case !given || v == "relative":
		case v == "absolute":
			if absolute != nil {
				build = absolute
			}
		default:
			s.writeError(w, r, wire.InvalidParameter("paths", "must be relative (the default: paths after the servers base) or absolute (paths whole, server /), got %q", wire.Clip(v)))
			return
		}
		body, err := build()
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}

// uiFiles is the control panel: static files, no build step, nothing
// fetched from elsewhere, so it works offline.
//
//go:embed ui
var uiFiles embed.FS

// handleUI serves the control panel at /__mock/ and its files under
// /__mock/ui/. The page holds no secret (it asks for the admin token), so
// it is served without one.
func (s *Server) handleUI() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the folder is embedded: it is there
	}
	files := http.StripPrefix(AdminPrefix+"/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		// No other site may frame the panel (clickjacking its switches).
		w.Header().Set("Content-Security-Policy", "frame-ancestors 'none'")
		w.Header().Set("X-Frame-Options", "DENY")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.URL.Path == AdminPrefix+"/" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		files.ServeHTTP(w, r)
	})
}
