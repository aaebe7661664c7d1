//go:build linux

package fetch

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSpliceAppendFile: splice(2) refuses a file opened with O_APPEND
// (EINVAL, Linux 6.18 too), which is what a shell's ">> file" gives
// standard output. SpliceConn copies instead, losing none of the bytes
// already in its pipe (it once failed as a local write error).
func TestSpliceAppendFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "out")
	prefix := []byte("kept\n")
	if err := os.WriteFile(name, prefix, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := payload(3<<20 + 17)
	n, err := SpliceConn(spliceServer(t, want, nil, time.Minute), f, -1)
	if err != nil || n != int64(len(want)) {
		t.Fatalf("SpliceConn into an O_APPEND file = %d, %v; want %d bytes", n, err, len(want))
	}
	got, _ := os.ReadFile(name)
	if !bytes.Equal(got, append(prefix, want...)) {
		t.Fatalf("the file holds %d bytes, want %d", len(got), len(prefix)+len(want))
	}
}
