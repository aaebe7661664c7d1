//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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

// TestBatchTwoFIFOs: two FIFOs given to -i, written one after the other by
// one writer, the first with more than a pipe holds: each is opened when
// its turn comes. Opened both at the start, the run waited for the second
// FIFO's writer, who waited for the first to be read.
func TestBatchTwoFIFOs(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, fifo := range []string{a, b} {
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write := func(fifo, text string) {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		io.WriteString(f, text)
		f.Close()
	}
	go func() {
		write(a, strings.Repeat("# more than a pipe holds\n", 8<<10)+srv.URL+"/one\n")
		write(b, srv.URL+"/two\n")
	}()
	out := filepath.Join(dir, "out")
	type result struct {
		code   int
		stderr string
	}
	done := make(chan result, 1)
	go func() {
		code, _, stderr := runFetch(t, "", "-i", a, "-i", b, "-O", "--output-dir", out, "-q")
		done <- result{code, stderr}
	}()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("exit %d, %q", r.code, r.stderr)
		}
	case <-time.After(time.Minute):
		t.Fatal("still waiting after a minute: the second FIFO was opened before the first was read")
	}
	for _, name := range []string{"one", "two"} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(data) != "/"+name {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
}

// TestBatchLogMustBeAFile: a --log that is a device is refused before
// anything is fetched (/dev/zero was read without end), but for
// /dev/null, which keeps nothing; a log line longer than any of a list's
// is passed over, and the lines after it still count.
func TestBatchLogMustBeAFile(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "x") }))
	defer srv.Close()
	dir := t.TempDir()
	code, _, stderr := runFetch(t, "", "-O", "--output-dir", dir, "--log", "/dev/zero", srv.URL+"/a")
	if code != 7 || !strings.Contains(stderr, "not a regular file") || hits.Load() != 0 {
		t.Errorf("--log /dev/zero: exit %d, %d requests, %q", code, hits.Load(), stderr)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runFetch(t, "", "-O", "--output-dir", dir, "--log", fifo, srv.URL+"/a"); code != 7 || hits.Load() != 0 {
		t.Errorf("--log FIFO: exit %d, %d requests, %q", code, hits.Load(), stderr) // its open waited for a writer
	}
	if code, _, stderr := runFetch(t, "", "-O", "--output-dir", dir, "--log", os.DevNull, srv.URL+"/a"); code != 0 || hits.Load() != 1 {
		t.Errorf("--log /dev/null: exit %d, %d requests, %q", code, hits.Load(), stderr)
	}
	long := filepath.Join(dir, "long.log")
	ok := `{"url":"` + srv.URL + `/b","outcome":"ok","exit":0,"bytes":1,"duration_ms":1,"attempts":1}`
	os.WriteFile(long, []byte(`{"url":"http://h/`+strings.Repeat("x", 3<<20)+`","outcome":"ok"}`+"\n"+ok+"\n"), 0o666)
	hits.Store(0)
	code, _, stderr = runFetch(t, "", "-O", "--output-dir", dir, "--log", long, srv.URL+"/b")
	if code != 0 || hits.Load() != 0 {
		t.Errorf("after a long line: exit %d, %d requests, %q", code, hits.Load(), stderr)
	}
}

// TestBatchReplacesLinkAndFIFO: what has a document's name in the output
// directory, a symbolic link or a FIFO, is replaced by the document: the
// link's target, outside the directory, is left as it was, and no write
// waits for a FIFO's reader.
func TestBatchReplacesLinkAndFIFO(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(dir, "outside")
	os.WriteFile(outside, []byte("keep"), 0o644)
	if err := os.Symlink(outside, filepath.Join(out, "a")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(out, "b"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runFetch(t, "", "-O", "--output-dir", out, srv.URL+"/a", srv.URL+"/b")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	for _, name := range []string{"a", "b"} {
		p := filepath.Join(out, name)
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			t.Errorf("%s: %v, %v: want a regular file", name, st, err)
			continue
		}
		if b, _ := os.ReadFile(p); string(b) != "/"+name {
			t.Errorf("%s holds %q", name, b)
		}
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Errorf("the link's target now holds %q", b)
	}
}

// TestBatchSameStreamTwice: one pipe named twice by -i (as "-" and
// /dev/stdin would be) is refused before anything is fetched: the second
// name would read nothing.
func TestBatchSameStreamTwice(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	io.WriteString(w, srv.URL+"/a\n")
	w.Close() // the pipe ends: read once, it has nothing more
	name := fmt.Sprintf("/proc/self/fd/%d", r.Fd())
	if _, err := os.Stat(name); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	code, _, stderr := runFetch(t, "", "-i", name, "-i", name, "-O", "--output-dir", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "same input") || hits.Load() != 0 {
		t.Errorf("exit %d, %d requests, stderr %q", code, hits.Load(), stderr)
	}
}

// TestBatchStdinFileTwice: standard input redirected from a regular file is
// read once too. Named again (as /dev/stdin, or by the file's own path,
// either first), it is refused before anything is fetched, as its second
// name would read all its URLs again. A regular file named twice by path
// is read twice, as asked.
func TestBatchStdinFileTwice(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	if err := os.WriteFile(list, []byte(docURL(t, dir, 1)+"\n"+docURL(t, dir, 2)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(list)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	self := fmt.Sprintf("/proc/self/fd/%d", in.Fd()) // what /dev/stdin is with in as fd 0
	if _, err := os.Stat(self); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	fetchWith := func(args ...string) (int, string, int) {
		t.Helper()
		if _, err := in.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		t.Setenv("FETCH_CONFIG", "")
		t.Setenv("HOME", t.TempDir())
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		logName := filepath.Join(t.TempDir(), "log")
		var out, errb bytes.Buffer
		args = append(args, "-O", "--output-dir", t.TempDir(), "--log", logName, "-q")
		code := run(context.Background(), args, stdio{in: in, out: &out, err: &errb})
		logText, _ := os.ReadFile(logName)
		return code, errb.String(), strings.Count(string(logText), "\n")
	}
	for _, args := range [][]string{{"-i", "-", "-i", self}, {"-i", "-", "-i", list}, {"-i", list, "-i", "-"}} {
		if code, stderr, lines := fetchWith(args...); code != 2 || !strings.Contains(stderr, "same input") || lines != 0 {
			t.Errorf("%q: exit %d, %d log lines, stderr %q; want exit 2 before any fetch", args, code, lines, stderr)
		}
	}
	// A file named twice is read twice, but its URLs, queued once, are
	// fetched (and logged) once, however far apart their copies are.
	if code, stderr, lines := fetchWith("-i", list, "-i", list); code != 0 || lines != 2 {
		t.Errorf("-i list -i list: exit %d, %d log lines (want 2), stderr %q", code, lines, stderr)
	}
}
