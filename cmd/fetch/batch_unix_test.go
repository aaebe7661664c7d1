//go:build unix

package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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

// TestBatchLogMustBeAFile: a --log that is a device is refused before
// anything is fetched (/dev/zero was read without end), and so is a file
// with a line no batch writes.
func TestBatchLogMustBeAFile(t *testing.T) {
	dir := t.TempDir()
	long := filepath.Join(dir, "long.log")
	os.WriteFile(long, []byte(strings.Repeat("x", 3<<20)+"\n"), 0o666)
	for logName, want := range map[string]string{"/dev/zero": "not a regular file", long: "line 1 is longer"} {
		code, _, stderr := runFetch(t, "", "-O", "--output-dir", dir, "--log", logName, "http://127.0.0.1:1/x")
		if code != 7 || !strings.Contains(stderr, want) {
			t.Errorf("--log %s: exit %d, %q", logName, code, stderr)
		}
	}
}
