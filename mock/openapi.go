package mock

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"

	"gopkg.in/yaml.v3"
)

// OpenAPI is the OpenAPI 3.0 document of the API as replymock serves it.
//
//go:embed openapi.yaml
var OpenAPI []byte

// openAPIJSON is the document converted to JSON, once.
var openAPIJSON = sync.OnceValues(func() ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(OpenAPI, &doc); err != nil {
		return nil, err
	}
	return json.MarshalIndent(doc, "", "  ")
})

// handleOpenAPI serves GET /__mock/openapi.yaml and /__mock/openapi.json.
func (s *Server) handleOpenAPI(asJSON bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, ctype := OpenAPI, "application/yaml; charset=utf-8"
		if asJSON {
			js, err := openAPIJSON()
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			body, ctype = js, contentTypeJSON
		}
		w.Header().Set("Content-Type", ctype)
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	}
}
