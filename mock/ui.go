package mock

import (
	"embed"
	"io/fs"
	"net/http"
)

// uiFiles is the control panel: static files, no build step, nothing
// fetched from elsewhere, so it works offline.
//
//go:embed ui
var uiFiles embed.FS

// handleUI serves the control panel at /__mock/ and its files under
// /__mock/ui/. The page holds no secret: it asks for the admin token and
// sends it with its API calls, so it is served without one.
func (s *Server) handleUI() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the folder is embedded: it is there
	}
	files := http.StripPrefix(AdminPrefix+"/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.URL.Path == AdminPrefix+"/" {
			http.ServeFileFS(w, r, sub, "index.html")
			return
		}
		files.ServeHTTP(w, r)
	})
}
