//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileCrawlSkipsSpecialFiles: a file: directory lists a FIFO, socket
// or device as EntryOther ("no file"), which a crawl does not follow. It
// did: the fetch was refused by policy, so crawling a directory holding a
// socket or a FIFO failed with exit 4 (and, with --file-special, would
// wait on the FIFO or read a device without end).
func TestFileCrawlSkipsSpecialFiles(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(src, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runFetch(t, "", "-r", "--output-dir", out, "-q", "file://"+src+"/")
	if code != 0 {
		t.Errorf("crawl of a directory with a FIFO: exit %d, %s", code, stderr)
	}
}

// TestCrawlRerunRetriesFailed: a crawl run again with the same --log
// fetches the URLs that failed (here a link to a file not there yet), as
// a list's rerun does, and nothing that succeeded; a third run fetches
// nothing. The rerun fetched no failed URL: the journal counted it done.
func TestCrawlRerunRetriesFailed(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "later")
	if err := os.Symlink(target, filepath.Join(src, "b.txt")); err != nil {
		t.Fatal(err)
	}
	out, logName := filepath.Join(dir, "out"), filepath.Join(dir, "log")
	args := []string{"-r", "--output-dir", out, "--log", logName, "-q", "file://" + src + "/"}
	if code, _, stderr := runFetch(t, "", args...); code != 6 {
		t.Fatalf("first run: exit %d, want 6 (b.txt missing): %s", code, stderr)
	}
	if err := os.WriteFile(target, []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for run := 2; run <= 3; run++ {
		if code, _, stderr := runFetch(t, "", args...); code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr)
		}
	}
	var oks, fails []string
	_, all := readLog(t, logName)
	for _, l := range all {
		if l.Outcome == "ok" {
			oks = append(oks, filepath.Base(l.URL))
		} else {
			fails = append(fails, filepath.Base(l.URL))
		}
	}
	if fmt.Sprint(oks) != "[src a.txt b.txt]" || fmt.Sprint(fails) != "[b.txt]" {
		t.Errorf("logged ok %v and failed %v, want [src a.txt b.txt] and [b.txt]: b.txt retried once, nothing fetched twice", oks, fails)
	}
	if b, err := os.ReadFile(filepath.Join(out, "localhost_0", src, "b.txt")); string(b) != "b\n" {
		t.Errorf("b.txt holds %q, %v", b, err)
	}
}
