//go:build integration

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestQueueWorkerWaitsForItsList: a worker given seeds with -i reads
// them all before it leaves for an empty queue. The shared queue had no
// hold for the list's reader (a crawl's own queue has one), so a worker
// whose list came slowly, from a pipe, found the queue empty, left after
// --idle-exit with the list unread, and then failed to add it to the
// closed queue: exit 7, "redis: client is closed", nothing fetched.
func TestQueueWorkerWaitsForItsList(t *testing.T) {
	rdb, name, u := testQueue(t, "hold")
	src := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FETCH_CONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	const idle = 300 * time.Millisecond
	pr, pw := io.Pipe()
	go func() {
		// the list's writer is slow: its URL comes well after --idle-exit
		time.Sleep(5 * idle)
		io.WriteString(pw, "file://"+src+"\n")
		pw.Close()
	}()
	defer pr.Close()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code := run(ctx, []string{"--queue", u.String(), "-i", "-", "--idle-exit", idle.String(),
		"-q", "-O", "--output-dir", out, "--log", filepath.Join(out, "log")},
		stdio{in: pr, out: &stdout, err: &stderr})
	if code != 0 {
		t.Errorf("exit %d: %s%s", code, stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "doc.txt")); err != nil {
		t.Errorf("the list's URL was not fetched: %v", err)
	}
	if n, _ := rdb.Get(context.Background(), name+":done").Int(); n != 1 {
		t.Errorf("the queue counts %d tasks done, want 1", n)
	}
}
