//go:build unix

package main

import (
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
