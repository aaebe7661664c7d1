//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stalledFIFO makes a FIFO with a reader that opens it and never reads;
// closing the reader (at cleanup) frees a writer still stuck on it.
func stalledFIFO(t *testing.T) string {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return fifo
}

// TestFIFOWriteMaxTime: with --max-time and no --timeout, a FIFO whose
// reader stopped reading ends the transfer at --max-time. (The writes had
// no deadline when --timeout was 0, whose documented default is 60 s, and
// ignored --max-time and the context.)
func TestFIFOWriteMaxTime(t *testing.T) {
	fifo := stalledFIFO(t)
	big := strings.Repeat("x", 4<<20) // more than the FIFO holds
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(big))
	}))
	defer srv.Close()
	done := make(chan int, 1)
	var stderr string
	go func() {
		code, _, e := runFetch(t, "", "--max-time", "0.5", "-o", fifo, srv.URL+"/doc")
		stderr = e
		done <- code
	}()
	select {
	case code := <-done:
		if code == 0 {
			t.Errorf("exit 0 writing 4 MiB to a FIFO nobody reads; stderr %q", stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("--max-time 0.5: the write to a stalled FIFO still blocks after 15 s")
	}
}

// TestFIFOWriteCancel: cancelling the context (the first Ctrl-C) ends a
// write blocked on a FIFO's full buffer.
func TestFIFOWriteCancel(t *testing.T) {
	fifo := stalledFIFO(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	st, err := os.Stat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	w, err := openSpecial(ctx, &options{}, fifo, st.Mode())
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := w.Write(make([]byte, 4<<20))
		errc <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-errc:
		if err == nil || !errors.Is(err, context.Canceled) {
			t.Errorf("the write ended with %v, want the cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a stalled FIFO ignores the context's cancellation")
	}
}

// TestOutputDescriptorLinkAppends: "-o /dev/stdout" with standard output
// appended to a file (">> log") writes through the descriptor. It once
// renamed a new file over the log: what it held was lost, and the
// shell's descriptor went on writing a file with no name. The descriptor
// here is one of the test's, named through /proc/self/fd as /dev/stdout
// names descriptor 1.
func TestOutputDescriptorLinkAppends(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	dir := t.TempDir()
	logp := filepath.Join(dir, "log")
	if err := os.WriteFile(logp, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(logp, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()), link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runFetch(t, "", "-o", link, bodyServer(t)); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := f.Write([]byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(logp); string(b) != "old\n"+body+"after\n" {
		t.Errorf("the log holds %q, want %q", b, "old\n"+body+"after\n")
	}
}

// TestOutputOntoCharDevice: -o onto a character device writes to it in
// place; it is not replaced by a regular file (issue #12, finding 0). The
// device is a copy of /dev/null's numbers made in a temporary directory.
func TestOutputOntoCharDevice(t *testing.T) {
	var null syscall.Stat_t
	if err := syscall.Stat("/dev/null", &null); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(null.Rdev)); err != nil {
		t.Fatalf("mknod (the test needs to run as root, as the finding did): %v", err)
	}
	code, _, stderr := runFetch(t, "", "-o", dev, bodyServer(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	st, err := os.Lstat(dev)
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is now %v (%v), want the character device", dev, st.Mode(), err)
	}
	leftovers(t, filepath.Dir(dev), 1)
}

// TestOutputOntoFIFO: a FIFO is written in place, its reader gets the
// document, and it is still a FIFO after.
func TestOutputOntoFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the writer opens it
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	code, _, stderr := runFetch(t, "", "--timeout", "1m", "-o", fifo, bodyServer(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if g := <-got; g != body {
		t.Errorf("the FIFO's reader got %q, want %q", g, body)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v (%v), want the FIFO", fifo, st.Mode(), err)
	}
	leftovers(t, filepath.Dir(fifo), 1)
}

// TestOutputOntoFIFONoReader: a FIFO nobody reads is given up after
// --timeout, with a local error, instead of hanging.
func TestOutputOntoFIFONoReader(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	const timeout = 200 * time.Millisecond
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runFetch(t, "", "--timeout", timeout.String(), "-o", fifo, bodyServer(t))
	}()
	select {
	case <-done:
	case <-time.After(300 * timeout): // generous: the bound under test is the timeout
		t.Fatal("fetch -o FIFO with no reader still waiting after 300 times --timeout")
	}
	if code != 7 || !strings.Contains(stderr, "timed out waiting for a reader (200ms, --timeout)") {
		t.Errorf("exit %d, stderr %q; want 7 and a timeout naming --timeout", code, stderr)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("%s is now %v (%v), want the FIFO", fifo, st.Mode(), err)
	}
}

// TestOutputOntoSocket: a Unix socket is connected to and written.
func TestOutputOntoSocket(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(c)
		c.Close()
		got <- string(b)
	}()
	code, _, stderr := runFetch(t, "", "--timeout", "1m", "-o", sock, bodyServer(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if g := <-got; g != body {
		t.Errorf("the socket's reader got %q", g)
	}
	if st, err := os.Lstat(sock); err != nil || st.Mode()&os.ModeSocket == 0 {
		t.Errorf("%s is now %v (%v), want the socket", sock, st.Mode(), err)
	}
}

// TestOutputOntoSymlink: a symbolic link is followed: its target gets the
// document, the link stays a link; a dangling link is refused untouched.
func TestOutputOntoSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real", link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runFetch(t, "", "-o", link, bodyServer(t))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is now %v (%v), want the link", link, st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != body {
		t.Errorf("the link's target holds %q", b)
	}
	leftovers(t, dir, 2)

	// A link to a FIFO (as /dev/stdout is to a pipe) is written through.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	toFIFO := filepath.Join(dir, "to-fifo")
	os.Symlink("fifo", toFIFO)
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if code, _, stderr := runFetch(t, "", "--timeout", "1m", "-o", toFIFO, bodyServer(t)); code != 0 {
		t.Fatalf("link to a FIFO: exit %d: %s", code, stderr)
	}
	if g := <-got; g != body {
		t.Errorf("the FIFO behind the link got %q", g)
	}
	if st, err := os.Lstat(toFIFO); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is now %v (%v), want the link", toFIFO, st.Mode(), err)
	}
	leftovers(t, dir, 4)

	dangling := filepath.Join(dir, "dangling")
	os.Symlink("nowhere/at/all", dangling)
	code, _, stderr = runFetch(t, "", "-o", dangling, bodyServer(t))
	if code != 7 || !strings.Contains(stderr, "symbolic link") {
		t.Errorf("dangling link: exit %d, stderr %q; want 7 naming the link", code, stderr)
	}
	if to, err := os.Readlink(dangling); err != nil || to != "nowhere/at/all" {
		t.Errorf("the dangling link now %q (%v)", to, err)
	}
}
