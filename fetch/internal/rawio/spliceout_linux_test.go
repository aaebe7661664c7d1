//go:build linux && !race

package rawio

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSpliceOutRefusedMovesNothing: a refused splice (EINVAL: the file
// was opened O_APPEND) reports 0 bytes moved, not the kernel's -1, so
// that its caller's "nothing moved, copy instead" test matches.
func TestSpliceOutRefusedMovesNothing(t *testing.T) {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := unix.Write(p[1], []byte("hello")); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(t.TempDir(), "out"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewFile(f, KindOf(f))
	if w == nil {
		t.Fatal("NewFile returned nil for a regular file")
	}
	n, err := w.SpliceOut(p[0], 5)
	if !errors.Is(err, unix.EINVAL) {
		t.Skipf("this kernel splices into O_APPEND files (%d, %v)", n, err)
	}
	if n != 0 {
		t.Fatalf("a refused splice reports %d bytes moved, want 0", n)
	}
}
