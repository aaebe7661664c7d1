package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLinkUnnamedBothWays: an unnamed file gets its name with its whole
// content, through the descriptor as through /proc/self/fd, and a name
// that exists is refused with os.ErrExist, never replaced.
func TestLinkUnnamedBothWays(t *testing.T) {
	dir := t.TempDir()
	if !canName(dir) {
		t.Skip("this file system or process cannot name unnamed files")
	}
	for _, byFD := range []bool{true, false} {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
		if err != nil {
			t.Fatal(err)
		}
		f := os.NewFile(uintptr(fd), dir)
		want := fmt.Sprintf("linked by descriptor: %v\n", byFD)
		if _, err := f.WriteString(want); err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(dir, fmt.Sprintf("doc-%v", byFD))
		err = linkUnnamedBy(f, dest, byFD)
		if err != nil && byFD && !byDescriptor {
			// the probe found it refused here too (CAP_DAC_READ_SEARCH
			// before Linux 6.10): links go through /proc
			f.Close()
			t.Logf("linking the descriptor itself is not allowed here: %v", err)
			continue
		}
		if err != nil {
			t.Fatalf("byFD=%v: %v", byFD, err)
		}
		if got, err := os.ReadFile(dest); err != nil || string(got) != want {
			t.Errorf("byFD=%v: %s holds %q, %v; want %q", byFD, dest, got, err, want)
		}
		if err := os.WriteFile(dest+".other", []byte("other"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := linkUnnamedBy(f, dest+".other", byFD); !errors.Is(err, os.ErrExist) {
			t.Errorf("byFD=%v: linking over an existing name: %v, want an error matching os.ErrExist", byFD, err)
		}
		if got, _ := os.ReadFile(dest + ".other"); string(got) != "other" {
			t.Errorf("byFD=%v: the existing file was replaced: %q", byFD, got)
		}
		f.Close()
	}
}
