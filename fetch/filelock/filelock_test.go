package filelock_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/fetchproject/fetch/fetch/filelock"
)

// TestTryLock: a second open file of a locked file is refused until the
// first is closed; reading is never held.
func TestTryLock(t *testing.T) {
	switch runtime.GOOS {
	case "plan9", "js", "wasip1", "solaris", "aix":
		t.Skip("filelock takes no locks on " + runtime.GOOS)
	}
	name := filepath.Join(t.TempDir(), "run.log")
	if err := os.WriteFile(name, []byte("line\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	open := func() *os.File {
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := open(), open()
	defer b.Close()
	if err := filelock.TryLock(a); err != nil {
		t.Fatalf("first lock: %v", err)
	}
	if err := filelock.TryLock(b); !errors.Is(err, filelock.ErrLocked) {
		t.Fatalf("second lock while the first is held: %v; want ErrLocked", err)
	}
	if data, err := os.ReadFile(name); err != nil || string(data) != "line\n" {
		t.Errorf("reading the locked file: %q, %v", data, err)
	}
	a.Close()
	if err := filelock.TryLock(b); err != nil {
		t.Errorf("lock after the holder closed its file: %v", err)
	}
}
