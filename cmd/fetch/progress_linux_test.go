package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal cols columns wide. It returns the
// terminal's end, to draw on, and ended, which closes it and returns all
// that was drawn (newlines come back as CR LF).
func openPTY(t *testing.T, cols int) (tty *os.File, ended func() string) {
	t.Helper()
	fd, err := unix.Open("/dev/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	master := os.NewFile(uintptr(fd), "/dev/ptmx")
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Skipf("unlocking the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err != nil {
		t.Skipf("naming the pseudo-terminal: %v", err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 24, Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
	// Read as it is written: a terminal holds a few KiB, and a writer
	// to a full one waits.
	var drawn bytes.Buffer
	done := make(chan struct{})
	go func() {
		io.Copy(&drawn, master) // ends with EIO once tty is closed and all is read
		close(done)
	}()
	return tty, func() string {
		tty.Close()
		<-done
		return drawn.String()
	}
}

// runOnTerminal runs fetch with args and stdin, standard error on a
// terminal cols columns wide; it returns the exit status and what was
// drawn there.
func runOnTerminal(t *testing.T, cols int, stdin string, args ...string) (int, string) {
	t.Helper()
	t.Setenv("FETCH_CONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tty, ended := openPTY(t, cols)
	code := run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: new(bytes.Buffer), err: tty})
	return code, ended()
}

// widest is the widest line drawn, in runes, with erase-line sequences
// left out.
func widest(drawn string) int {
	n := 0
	for _, line := range strings.FieldsFunc(drawn, func(r rune) bool { return r == '\r' || r == '\n' }) {
		n = max(n, utf8.RuneCountInString(strings.ReplaceAll(line, "\x1b[K", "")))
	}
	return n
}

// TestBatchStatusFitsTerminal: on a terminal 40 columns wide, a batch's
// status line is cut at a field to 39 columns. It was drawn whole (some
// 60), wrapping, and each redraw left a line behind.
func TestBatchStatusFitsTerminal(t *testing.T) {
	srv := loopbackServer(t, cutShort(3, 3))
	urls := srv.URL + "/a\n" + srv.URL + "/b\n"
	code, drawn := runOnTerminal(t, 40, urls, "-i", "-", "-O", "--output-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %q", code, drawn)
	}
	if !strings.Contains(drawn, "\x1b[Kqueued 0  active 0  done 2  failed 0\r\nfetch: 2 URLs: 2 ok") {
		t.Errorf("no last status line cut to its counts: %q", drawn)
	}
	// The summary that ends the batch is a message, not redrawn: it
	// may wrap.
	status, _, _ := strings.Cut(drawn, "fetch: 2 URLs")
	if n := widest(status); n > 39 {
		t.Errorf("a status line of %d columns: %q", n, drawn)
	}
}

// TestProgressFitsTerminal: on a terminal 40 columns wide, a document's
// bar is drawn in 39. The bar library narrows its bar to fit the whole
// terminal width, and its figures alone take about 40.
func TestProgressFitsTerminal(t *testing.T) {
	srv := loopbackServer(t, cutShort(2<<20, 2<<20))
	code, drawn := runOnTerminal(t, 40, "", "-o", filepath.Join(t.TempDir(), "doc"), srv.URL+"/doc")
	if code != 0 {
		t.Fatalf("exit %d: %q", code, drawn)
	}
	if n := widest(drawn); n > 39 {
		t.Errorf("a line of %d columns: %q", n, drawn)
	}
	if !strings.Contains(drawn, " 100% |") || !strings.Contains(drawn, "(2.0/2.0 MiB") || !strings.HasSuffix(drawn, "\r\n") {
		t.Errorf("no whole last drawing, or the line does not end: %q", drawn)
	}
}
