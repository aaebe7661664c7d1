//go:build integration

package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// TestHTTPContentFromNginx fetches every file of the content tree from the
// real nginx and compares it with the manifest, byte for byte.
func TestHTTPContentFromNginx(t *testing.T) {
	wantServer(t, "nginx")
	addr := serverAddr(t, "FETCH_HTTP_ADDR")
	c := schemes.NewClient(fetch.Options{}, schemes.Config{})
	for _, f := range contentManifest(t) {
		u := "http://" + addr + "/" + escapePath(f.Path)
		if got := fetchSHA(t, c, u); got != f.SHA256 {
			t.Errorf("%s: sha256 %s, want %s", u, got, f.SHA256)
		}
	}
}

func TestHTTPRedirectsOnNginx(t *testing.T) {
	wantServer(t, "nginx")
	addr := serverAddr(t, "FETCH_HTTP_ADDR")
	c := schemes.NewClient(fetch.Options{}, schemes.Config{})
	res, err := c.Fetch(context.Background(), "http://"+addr+"/redirect-to-index")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if !strings.HasSuffix(res.URL.String(), "/index.html") {
		t.Errorf("redirect ended at %s", res.URL)
	}
	for _, p := range []string{"/redirect-loop", "/redirect-to-25"} {
		_, err := c.Fetch(context.Background(), "http://"+addr+p)
		if fetch.KindOf(err) != fetch.KindPolicy {
			t.Errorf("%s: %v, want a policy refusal", p, err)
		}
	}
	_, err = c.Fetch(context.Background(), "http://"+addr+"/no-such-file")
	if fetch.KindOf(err).ExitCode() != 6 {
		t.Errorf("missing file: %v", err)
	}
}

// TestCLIHTTP runs the fetch command against nginx as a user would.
func TestCLIHTTP(t *testing.T) {
	wantServer(t, "nginx")
	addr := serverAddr(t, "FETCH_HTTP_ADDR")
	dir := harnessEnv(t, "FETCH_CONTENT_DIR")
	want, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))

	code, out, stderr := runCLI(t, "", "http://"+addr+"/hello.txt#fragment-not-sent")
	if code != 0 || string(out) != string(want) {
		t.Fatalf("exit %d, out %q, stderr %s", code, out, stderr)
	}

	outFile := filepath.Join(t.TempDir(), "1m.bin")
	code, _, stderr = runCLI(t, "", "-o", outFile, "http://"+addr+"/1m.bin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(outFile)
	orig, _ := os.ReadFile(filepath.Join(dir, "1m.bin"))
	if sha(got) != sha(orig) {
		t.Fatal("-o file differs from the original")
	}

	code, _, stderr = runCLI(t, "", "-v", "http://"+addr+"/hello.txt")
	if code != 0 || !strings.Contains(stderr, "> GET /hello.txt HTTP/1.1") || !strings.Contains(stderr, "< HTTP/1.1 200 OK") {
		t.Fatalf("-v trace: exit %d\n%s", code, stderr)
	}

	code, _, stderr = runCLI(t, "", "http://127.0.0.1:25/")
	if code != 4 || !strings.Contains(stderr, "--allow-port") {
		t.Fatalf("port 25: exit %d: %s", code, stderr)
	}
}

// TestCLIFile reads a file of the content tree through file:.
func TestCLIFile(t *testing.T) {
	dir := harnessEnv(t, "FETCH_CONTENT_DIR")
	code, out, stderr := runCLI(t, "", "file://"+escapePath(dir)+"/hello.txt")
	want, _ := os.ReadFile(filepath.Join(dir, "hello.txt"))
	if code != 0 || string(out) != string(want) {
		t.Fatalf("exit %d out %q: %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "file://"+escapePath(dir)+"/")
	if code != 0 || !strings.Contains(string(out), "\tfile://") {
		t.Fatalf("listing exit %d: %s", code, out)
	}
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
