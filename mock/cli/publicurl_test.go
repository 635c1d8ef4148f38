package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

// A bad --public-url is a usage error saying what is wrong with it.
func TestPublicURLFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--public-url", ""}, nil, "--public-url (or REPLYMOCK_PUBLIC_URL) is empty"},
		{[]string{"--public-url", " "}, nil, "is empty"},
		{[]string{"--public-url", "http://"}, nil, "names no host"},
		{[]string{"--public-url", "localhost:18080"}, nil, "scheme is not http or https"},
		{[]string{"--public-url", "ftp://localhost:18080"}, nil, "scheme is not http or https"},
		{[]string{"--public-url", "http://localhost:18080/?x=1"}, nil, "query or a fragment"},
		{[]string{"--public-url", "http://localhost:70000"}, nil, "not 1 to 65535"},
		{[]string{"--public-url", "http://me:pw@localhost"}, nil, "user name or password"},
		{[]string{"--public-url", "http://localhost/" + strings.Repeat("x", 300)}, nil, "at most 256 bytes"},
		{nil, map[string]string{"REPLYMOCK_PUBLIC_URL": "localhost"}, "--public-url (or REPLYMOCK_PUBLIC_URL) must be an absolute http:// or https:// URL"},
	} {
		var out bytes.Buffer
		err := run(context.Background(), tc.args, env(tc.env), &out, &out)
		if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "--public-url") {
			t.Errorf("run %q %v: %v (exit %d); want a usage error saying %q", tc.args, tc.env, err, exitCode(err), tc.want)
		}
	}
}

// Without --public-url, the media URLs name the listen address: its
// host, or localhost for every interface, and the port bound.
func TestDerivePublicURL(t *testing.T) {
	for _, tc := range []struct{ addr, bound, want string }{
		{"127.0.0.1:8080", "127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"127.0.0.1:0", "127.0.0.1:41234", "http://127.0.0.1:41234"},
		{":8080", "[::]:8080", "http://localhost:8080"},
		{"0.0.0.0:8080", "0.0.0.0:8080", "http://localhost:8080"},
		{"[::]:9000", "[::]:9000", "http://localhost:9000"},
		{"[::1]:9000", "[::1]:9000", "http://[::1]:9000"},
		{"localhost:9000", "127.0.0.1:9000", "http://localhost:9000"},
		{"demo.example.test:80", "10.0.0.5:80", "http://demo.example.test:80"},
	} {
		bound, err := net.ResolveTCPAddr("tcp", tc.bound)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := derivePublicURL(tc.addr, bound); err != nil || got != tc.want {
			t.Errorf("--addr %s bound to %s: %q, %v; want %q", tc.addr, tc.bound, got, err, tc.want)
		}
	}
	bound, _ := net.ResolveTCPAddr("tcp", "[fe80::1%lo]:80")
	if _, err := derivePublicURL("[fe80::1%lo]:80", bound); err == nil || !strings.Contains(err.Error(), "give --public-url") {
		t.Errorf("a zoned address: %v; want to be told to give --public-url", err)
	}
}

// The records' media URLs resolve on the server itself: by default on
// the port it got, with --public-url under that URL; the API listener
// serves them without the admin token when the admin API has its own.
func TestServeMediaURLs(t *testing.T) {
	firstPhoto := func(t *testing.T, base string) string {
		t.Helper()
		resp, err := http.Get(base + "/api/v1/feedbacks?nm_id=555000111&limit=100")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var env struct {
			Data struct{ Feedbacks []mock.Feedback } `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
			t.Fatal(err)
		}
		for _, f := range env.Data.Feedbacks {
			var photos []mock.Photo
			if json.Unmarshal([]byte(f.Photos), &photos); len(photos) > 0 {
				return photos[0].FullSize
			}
		}
		t.Fatal("no photos in the edge cases")
		return ""
	}
	fetch := func(t *testing.T, url string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/jpeg" || len(body) < 1000 {
			t.Errorf("GET %s: %d %q, %d bytes", url, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}

	api, _, stop := startServe(t, config{}, mock.Options{}, false)
	photo := firstPhoto(t, api)
	if !strings.HasPrefix(photo, api+mock.MediaPrefix) {
		t.Errorf("photo URL %s, want it under %s", photo, api+mock.MediaPrefix)
	}
	fetch(t, photo)
	stop()

	api, admin, _ := startServe(t, config{adminToken: "s3cret"}, mock.Options{AdminToken: "s3cret", PublicURL: "http://localhost:18080"}, true)
	photo = firstPhoto(t, api)
	path, ok := strings.CutPrefix(photo, "http://localhost:18080/__mock/media/")
	if !ok {
		t.Fatalf("photo URL %s, want it under --public-url", photo)
	}
	fetch(t, api+mock.MediaPrefix+path)
	fetch(t, admin+mock.MediaPrefix+path)
	resp, err := http.Get(api + "/__mock/scenarios")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the admin API on the API listener: %d, want 404", resp.StatusCode)
	}
}
