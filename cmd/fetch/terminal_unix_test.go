//go:build unix

package main

import (
	"os"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWatchSizeFollowsResize: a terminal's width is read when a progress
// line starts and again on SIGWINCH, and no longer once it has ended.
func TestWatchSizeFollowsResize(t *testing.T) {
	var cols atomic.Int64
	cols.Store(80)
	w := watchSize(func() (int, error) { return int(cols.Load()), nil })
	if w == nil || w.get() != 80 {
		t.Fatalf("width %d, want 80", w.get())
	}
	cols.Store(40)
	if w.get() != 80 {
		t.Fatalf("width %d before a SIGWINCH, want 80", w.get())
	}
	if err := unix.Kill(os.Getpid(), unix.SIGWINCH); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); w.get() != 40; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("width %d 10 s after a SIGWINCH, want 40", w.get())
		}
	}
	w.end()
	w.end() // twice, as a deferred end after an explicit one
	if watchSize(func() (int, error) { return 0, nil }) != nil {
		t.Error("a width of 0 is taken as known")
	}
}
