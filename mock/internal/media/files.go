package media

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// embedded holds the files every media path is answered from: photoN.jpg
// (450×600) with its miniature photoN-mini.jpg (90×120), previewN.jpg
// (640×360, with a play button), and segment.ts, 10 seconds of a grey
// H.264 picture (256×144, 10 frames a second) in MPEG-TS.
//
//go:embed files
var embedded embed.FS

// How many pictures the folder holds of each kind.
const (
	photoFiles   = 10
	previewFiles = 3
)

// The embedded segment's layout, for cutting it short.
const (
	segmentFPS = 10
	tsPacket   = 188
	pidVideo   = 0x100
)

// How media files are answered.
const (
	contentJPEG = "image/jpeg"
	contentHLS  = "application/vnd.apple.mpegurl"
	contentTS   = "video/mp2t"
	caching     = "public, max-age=31536000, immutable"
)

// file is a media file with its entity tag.
type file struct {
	body []byte
	etag string
}

func newFile(body []byte) file {
	sum := sha256.Sum256(body)
	return file{body: body, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
}

// library is the embedded files, read once; segments[d] is the segment
// cut to d seconds.
type library struct {
	photos, minis, previews []file
	segments                [segmentSecs + 1]file
}

// files reads the embedded files at the first media request.
var files = sync.OnceValue(func() *library {
	read := func(name string) file {
		b, err := embedded.ReadFile("files/" + name)
		if err != nil {
			panic(err) // the folder is part of the build
		}
		return newFile(b)
	}
	lib := &library{}
	for i := range photoFiles {
		lib.photos = append(lib.photos, read(fmt.Sprintf("photo%d.jpg", i)))
		lib.minis = append(lib.minis, read(fmt.Sprintf("photo%d-mini.jpg", i)))
	}
	for i := range previewFiles {
		lib.previews = append(lib.previews, read(fmt.Sprintf("preview%d.jpg", i)))
	}
	ts := read("segment.ts").body
	for secs := 1; secs <= segmentSecs; secs++ {
		lib.segments[secs] = newFile(cutSegment(ts, secs))
	}
	return lib
})

// pick chooses one of n pictures for a key. The photos of a review take
// the pictures that follow one another, so up to n of them differ.
func pick(key string, number, n int) int {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int((h.Sum32() + uint32(number)) % uint32(n))
}

// cutSegment is the first secs seconds of a segment. Each frame starts a
// transport packet, so the packets before the one that starts frame
// secs×segmentFPS hold whole frames.
func cutSegment(ts []byte, secs int) []byte {
	frame := 0
	for off := 0; off+tsPacket <= len(ts); off += tsPacket {
		pid := int(ts[off+1]&0x1F)<<8 | int(ts[off+2])
		if pid == pidVideo && ts[off+1]&0x40 != 0 { // payload_unit_start_indicator
			if frame == secs*segmentFPS {
				return ts[:off]
			}
			frame++
		}
	}
	return ts
}

// playlist is the VOD playlist of a video of secs seconds: the embedded
// segment again and again, the last one cut short. Each segment's clock
// starts at the same time, so a discontinuity tag tells the player.
func playlist(secs int) []byte {
	b := fmt.Appendf(nil, "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:%d\n#EXT-X-MEDIA-SEQUENCE:0\n", segmentSecs)
	for i := range segmentCount(secs) {
		if i > 0 {
			b = append(b, "#EXT-X-DISCONTINUITY\n"...)
		}
		b = fmt.Appendf(b, "#EXTINF:%d.000,\n%d.ts\n", min(segmentSecs, secs-i*segmentSecs), i)
	}
	return append(b, "#EXT-X-ENDLIST\n"...)
}

// Serve answers GET and HEAD of a path under Prefix: no admin token, no
// session, no faults; a path that names no file is a 404 in the
// envelope, logged to log as wire.WriteError does.
func Serve(w http.ResponseWriter, r *http.Request, log *slog.Logger) {
	rest, _ := strings.CutPrefix(r.URL.EscapedPath(), Prefix)
	it, ok := parsePath(rest)
	if !ok {
		wire.WriteError(w, r, log, &wire.APIError{Status: http.StatusNotFound, Code: wire.CodeNotFound,
			Message: "no such media file: " + wire.Clip(r.URL.Path) + "; media paths are photos/KEY/N/fs.jpg or ms.jpg, " +
				"videos/KEY/preview.jpg, videos/KEY/Ds/index.m3u8 and its segments videos/KEY/Ds/I.ts"})
		return
	}
	lib := files()
	var f file
	ct := contentJPEG
	switch it.kind {
	case kindPhoto:
		f = lib.photos[pick(it.key, it.n, photoFiles)]
		if it.size == SizeMini {
			f = lib.minis[pick(it.key, it.n, photoFiles)]
		}
	case kindPreview:
		f = lib.previews[pick(it.key, 0, previewFiles)]
	case kindPlaylist:
		f, ct = newFile(playlist(it.secs)), contentHLS
	case kindSegment:
		f, ct = lib.segments[min(segmentSecs, it.secs-it.seg*segmentSecs)], contentTS
	}
	h := w.Header()
	h.Set("Content-Type", ct)
	h.Set("Cache-Control", caching)
	h.Set("ETag", f.etag)
	h.Set("X-Content-Type-Options", "nosniff")
	// Pages that isolate themselves (Cross-Origin-Embedder-Policy) may
	// still show these.
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	// ServeContent answers If-None-Match, HEAD and ranges.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.body))
}
