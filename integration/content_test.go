//go:build integration

package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// contentFile is one file of the harness's content tree.
type contentFile struct {
	Path   string // slash-separated, relative to FETCH_CONTENT_DIR, raw bytes
	SHA256 string
}

// contentManifest reads FETCH_CONTENT_DIR/SHA256SUMS.
func contentManifest(t testing.TB) []contentFile {
	t.Helper()
	dir := harnessEnv(t, "FETCH_CONTENT_DIR")
	b, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	var out []contentFile
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok || len(sum) != 64 {
			t.Fatalf("bad SHA256SUMS line %q", l)
		}
		out = append(out, contentFile{Path: name, SHA256: sum})
	}
	if len(out) < 10 {
		t.Fatalf("content manifest has only %d files", len(out))
	}
	return out
}

// escapePath %-encodes each segment of a raw path for a URL.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = fetch.Escape(s, "")
	}
	return strings.Join(segs, "/")
}

// sha256Of reads r to its end and returns its SHA-256 in hex.
func sha256Of(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// fetchSHA fetches u with c and returns the document's SHA-256.
func fetchSHA(t testing.TB, c *fetch.Client, u string) string {
	t.Helper()
	res, err := c.Fetch(context.Background(), u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	defer res.Close()
	if res.Kind != fetch.KindDocument {
		t.Fatalf("%s: got a %s, want a document", u, res.Kind)
	}
	sum, n, err := sha256Of(res.Document.Body)
	if err != nil {
		t.Fatalf("%s: after %d bytes: %v", u, n, err)
	}
	if res.Document.Size >= 0 && res.Document.Size != n {
		t.Errorf("%s: announced %d bytes, read %d", u, res.Document.Size, n)
	}
	return sum
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// fetchBinary builds cmd/fetch once per test run and returns its path, so
// tests can run the command exactly as a user does.
func fetchBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fetch-bin-*")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "fetch")
		// Built as the README installs it: without cgo.
		build := exec.Command("go", "build", "-o", binPath, "github.com/fetchproject/fetch/cmd/fetch")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err == nil {
			// rsswrap (the command's memory tests' runner) beside it, for
			// tests that measure the command's own resident memory.
			out, err = exec.Command("go", "build", "-o", filepath.Join(dir, "rsswrap"), "../cmd/fetch/testdata/rsswrap").CombinedOutput()
		}
		if err != nil {
			buildErr = &buildError{string(out), err}
		}
	})
	if buildErr != nil {
		t.Fatalf("building fetch: %v", buildErr)
	}
	return binPath
}

// TestMain removes the binaries fetchBinary built, which would otherwise
// stay in the temporary directory after every run (18 MB each).
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// runCLI runs the fetch binary with args and returns its exit status,
// standard output and standard error.
func runCLI(t testing.TB, stdin string, args ...string) (int, []byte, string) {
	t.Helper()
	cmd := exec.Command(fetchBinary(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running fetch: %v", err)
	}
	return code, []byte(stdout.String()), stderr.String()
}
