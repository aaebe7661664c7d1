//go:build unix

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestBatchListFromPipe: -i reads a list that cannot be read twice (a
// FIFO, as from -i <(...)) once, as it comes, without the count a
// regular file gets for the ETA.
func TestBatchListFromPipe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "list")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(f, srv.URL+"/a\n# comment\n"+srv.URL+"/b\n")
		f.Close()
	}()
	out := filepath.Join(dir, "out")
	code, _, stderr := runFetch(t, "", "-i", fifo, "-O", "--output-dir", out)
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	for _, name := range []string{"a", "b"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != "/"+name {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
}
