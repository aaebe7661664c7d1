package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWARCResumedPartNotResource: -C resumes a file: download from
// the local copy's length; the driver hands the archive only the bytes
// after the offset. A resource record must be the document (its
// WARC-Target-URI is the canonical URL and its payload digest should be
// the document's), so a part must not be recorded as one.
func TestWARCResumedPartNotResource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	os.WriteFile(src, []byte("first half|second half\n"), 0o644)
	dest := filepath.Join(dir, "copy.txt")
	os.WriteFile(dest, []byte("first half|"), 0o644)
	out := filepath.Join(dir, "run.warc.gz")
	code, _, stderr := runFetch(t, "", "-q", "--warc", out, "-C", "-", "-o", dest, "file://"+src)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(dest); string(b) != "first half|second half\n" {
		t.Fatalf("copy %q", b)
	}
	for _, r := range members(t, out)[1:] {
		if strings.Contains(r, "WARC-Type: resource") && !strings.Contains(r, "first half") {
			t.Errorf("a resource record holds only the resumed part of the document:\n%q", r)
		}
	}
}

// TestWARCRetriedRequestNoEmptyResponse: net/http sends a GET again
// on a new connection when a kept-alive one closes before any byte of the
// reply (the server closed it as idle). The first try got no response, so
// it must leave no response record: an empty "response" record (its
// Content-Length 0) would be a response that never was.
func TestWARCRetriedRequestNoEmptyResponse(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{} // requests per connection
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.RemoteAddr]++
		n := seen[r.RemoteAddr]
		mu.Unlock()
		if n > 1 {
			// the second request on a connection: closed unanswered
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		io.WriteString(w, "body of "+r.URL.Path+"\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "retry.warc.gz")
	code, _, stderr := runFetch(t, "", "-q", "-j", "1", "-O", "--output-dir", filepath.Join(dir, "out"), "--warc", out, srv.URL+"/a", srv.URL+"/b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	responses := 0
	for _, r := range members(t, out)[1:] {
		if !strings.Contains(r, "WARC-Type: response\r\n") {
			continue
		}
		responses++
		if strings.Contains(r, "Content-Length: 0\r\n") || !strings.Contains(r, "HTTP/1.1 200") {
			t.Errorf("a response record with no response in it:\n%q", r)
		}
	}
	if responses != 2 {
		t.Errorf("%d response records, want 2", responses)
	}
}

// TestMaskedCommandLineForm: a Gopher+ form's password (an AskP
// answer, given with --form) is sent masked in the trace, and left out of
// the result's URL, but the WARC's warcinfo command line held it as typed.
func TestMaskedCommandLineForm(t *testing.T) {
	got := maskedCommandLine([]string{"--form", "Password=hunter2", "--form=PIN=4321", "-form", "Secret=s3cret", "gopher://example.test/1/x%09%09+"})
	for _, secret := range []string{"hunter2", "4321", "s3cret"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q is in the warcinfo command line %q", secret, got)
		}
	}
}

// TestWARCRedirectTargetNoFragment: a redirect's Location may carry
// a fragment ("/end#part"), which is never sent to the server; the hop's
// records' WARC-Target-URI is the URL requested, without it (as wget,
// wpull and warcio's capture write it, and as replay tools look it up).
func TestWARCRedirectTargetNoFragment(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			w.Header().Set("Location", "/end#part")
			w.WriteHeader(http.StatusFound)
			return
		}
		io.WriteString(w, "landed\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "frag.warc.gz")
	if code, _, stderr := runFetch(t, "", "-q", "--warc", out, "-o", filepath.Join(dir, "doc"), srv.URL+"/start"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	n := 0
	for _, r := range members(t, out)[1:] {
		_, u, _ := strings.Cut(r, "WARC-Target-URI: ")
		u, _, _ = strings.Cut(u, "\r\n")
		if strings.Contains(u, "/end") {
			n++
		}
		if strings.Contains(u, "#") {
			t.Errorf("WARC-Target-URI %q holds a fragment", u)
		}
	}
	if n == 0 {
		t.Error("no record of the hop to /end")
	}
}

// TestWARCTargetCanonical: README and issue #18 say a resource
// record's WARC-Target-URI is the canonical URL (RFC 1630's equivalence,
// as a crawl keys URLs: %78 is x); it was the URL as written.
func TestWARCTargetCanonical(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte("x\n"), 0o644)
	out := filepath.Join(dir, "c.warc.gz")
	if code, _, stderr := runFetch(t, "", "-q", "--warc", out, "-o", filepath.Join(dir, "copy"), "file://"+dir+"/%78.txt"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "WARC-Target-URI: file://" + dir + "/x.txt\r\n"
	for _, r := range members(t, out)[1:] {
		if !strings.Contains(r, want) {
			t.Errorf("record without %q:\n%q", want, r)
		}
	}
}
