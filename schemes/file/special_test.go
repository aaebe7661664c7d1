//go:build unix

package file

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func fileURL(p string) string { return "file://" + fetch.Escape(p, "/") }

func specialClient(special bool, idle time.Duration) *fetch.Client {
	c := fetch.NewClient(fetch.Options{IdleTimeout: idle})
	c.Register("file", New(Config{Special: special}))
	return c
}

// readAll fetches u and reads the document to its end.
func readAll(c *fetch.Client, u string) (string, error) {
	res, err := c.Fetch(context.Background(), u)
	if err != nil {
		return "", err
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	return string(b), err
}

// TestSpecialRefused: a FIFO, a device and a socket are refused unless
// asked for, at once and without opening them (issue #12, finding 7: a
// FIFO with no writer used to hang).
func TestSpecialRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var null syscall.Stat_t
	if err := syscall.Stat("/dev/null", &null); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(null.Rdev)); err != nil {
		t.Fatalf("mknod (the test runs as root): %v", err)
	}
	ln, err := net.Listen("unix", filepath.Join(dir, "sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, c := range []struct{ path, what string }{{fifo, "FIFO"}, {dev, "device"}, {filepath.Join(dir, "sock"), "socket"}} {
		_, err := readAll(specialClient(false, time.Minute), fileURL(c.path))
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.KindPolicy || fe.Part != "path" || !strings.Contains(err.Error(), c.what) {
			t.Errorf("%s: %v, want a policy error naming a %s", c.path, err, c.what)
		}
	}
}

// TestSpecialFIFO: asked for, a FIFO is read to its writer's end.
func TestSpecialFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // waits for the reader
		if err != nil {
			return
		}
		io.WriteString(f, "through the pipe\n")
		f.Close()
	}()
	got, err := readAll(specialClient(true, time.Minute), fileURL(fifo))
	if err != nil || got != "through the pipe\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

// TestSpecialFIFOTimeouts: a FIFO nobody writes, and one whose writer
// says nothing, end after the idle timeout instead of hanging; nothing is
// left running. The bound checked is many times the timeout under test.
func TestSpecialFIFOTimeouts(t *testing.T) {
	const idle = 200 * time.Millisecond
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(name string) {
		t.Helper()
		done := make(chan error, 1)
		go func() {
			_, err := readAll(specialClient(true, idle), fileURL(fifo))
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork {
				t.Errorf("%s: %v, want a timeout", name, err)
			}
		case <-time.After(300 * idle):
			t.Fatalf("%s: still reading after 300 times the idle timeout", name)
		}
	}
	fetchtest.NoLeaks(t, func() { check("no writer") })

	w, err := os.OpenFile(fifo, os.O_RDWR, 0) // a writer that never writes
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	check("silent writer")
}

// TestSpecialDeviceAndSocket: asked for, a device is read (a copy of
// /dev/null's numbers: empty) and a Unix socket is connected to and read.
func TestSpecialDeviceAndSocket(t *testing.T) {
	dir := t.TempDir()
	var null syscall.Stat_t
	if err := syscall.Stat("/dev/null", &null); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(null.Rdev)); err != nil {
		t.Fatalf("mknod (the test runs as root): %v", err)
	}
	if got, err := readAll(specialClient(true, time.Minute), fileURL(dev)); err != nil || got != "" {
		t.Errorf("device: %q, %v", got, err)
	}

	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		io.WriteString(c, "from the socket\n")
		c.Close()
	}()
	if got, err := readAll(specialClient(true, time.Minute), fileURL(sock)); err != nil || got != "from the socket\n" {
		t.Errorf("socket: %q, %v", got, err)
	}
}

// TestFIFOSwappedAfterStat: a regular file replaced by a FIFO between the
// driver's look at the name (os.Stat) and its open is still not opened
// as one without --file-special: that open waited for a writer with no
// timeout. The name flips between a regular file and a FIFO; every fetch
// must end promptly.
func TestFIFOSwappedAfterStat(t *testing.T) {
	dir := t.TempDir()
	reg, fifo, target := filepath.Join(dir, "reg"), filepath.Join(dir, "fifo"), filepath.Join(dir, "x")
	if err := os.WriteFile(reg, []byte("regular\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(reg, target); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		tmp := filepath.Join(dir, "tmp")
		for {
			for _, src := range []string{fifo, reg} {
				select {
				case <-stop:
					return
				default:
				}
				os.Remove(tmp)
				if os.Link(src, tmp) == nil {
					os.Rename(tmp, target)
				}
			}
		}
	}()
	defer func() { close(stop); <-swapped }()
	c := specialClient(false, time.Minute)
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		done := make(chan struct{})
		go func() {
			defer close(done)
			if res, err := c.Fetch(context.Background(), fileURL(target)); err == nil {
				res.Close()
			}
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			// Release the open blocked on the FIFO, then report it.
			for range 100 {
				if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close()
				}
				select {
				case <-done:
				case <-time.After(10 * time.Millisecond):
					continue
				}
				break
			}
			t.Fatalf("fetch %d of %s (flipping between a file and a FIFO) hung: a FIFO was opened without --file-special, with no timeout", i, target)
		}
	}
}

// TestListSpecialKinds: a directory's FIFO is listed as "other", not as a
// file that could be fetched as one.
func TestListSpecialKinds(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "plain"), []byte("x"), 0o600)
	res, err := specialClient(false, time.Second).Fetch(context.Background(), fileURL(dir)+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	kinds := map[string]fetch.EntryKind{}
	for _, e := range res.Listing.Entries {
		kinds[e.Name] = e.Kind
	}
	if kinds["pipe"] != fetch.EntryOther || kinds["plain"] != fetch.EntryFile {
		t.Errorf("kinds %v, want pipe other and plain file", kinds)
	}
}
