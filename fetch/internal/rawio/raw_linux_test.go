//go:build linux && !race

package rawio

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// tcpPair is a connected loopback pair: the client end and the server's.
func tcpPair(t *testing.T) (*net.TCPConn, *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s := <-accepted
	if s == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	return c.(*net.TCPConn), s.(*net.TCPConn)
}

func TestSocketRoundTrip(t *testing.T) {
	c, s := tcpPair(t)
	rc, rs := NewSocket(c), NewSocket(s)
	if rc == nil || rs == nil {
		t.Fatal("NewSocket returned nil for a TCP connection")
	}
	// 8 MiB is more than both socket buffers hold: the writer meets
	// EAGAIN and waits in the poller while the reader drains.
	want := bytes.Repeat([]byte("0123456789abcdef"), 512<<10)
	done := make(chan error, 1)
	go func() {
		n, err := rc.Write(want)
		if err == nil && n != len(want) {
			err = io.ErrShortWrite
		}
		c.CloseWrite()
		done <- err
	}()
	got, err := io.ReadAll(readerFunc(rs.Read))
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatalf("writing: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(want))
	}
	if n, err := rs.Read(make([]byte, 10)); n != 0 || err != io.EOF {
		t.Fatalf("after the end: %d, %v; want 0, io.EOF", n, err)
	}
	if n, err := rs.Read(nil); n != 0 || err != nil {
		t.Fatalf("empty read: %d, %v", n, err)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func TestSocketDeadline(t *testing.T) {
	c, _ := tcpPair(t)
	rc := NewSocket(c)
	// The clock starts before the deadline is set: a busy machine may
	// stop the test for milliseconds between the two.
	start := time.Now()
	c.SetReadDeadline(start.Add(50 * time.Millisecond))
	_, err := rc.Read(make([]byte, 10))
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("err = %v, not a net.Error with Timeout", err)
	}
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "read" || oe.Addr == nil || oe.Source == nil {
		t.Fatalf("err = %#v, want a read *net.OpError naming both ends", err)
	}
	if time.Since(start) < 50*time.Millisecond {
		t.Fatalf("returned %v after the clock started, before the deadline", time.Since(start))
	}
}

func TestSocketClosedWhileWaiting(t *testing.T) {
	c, _ := tcpPair(t)
	rc := NewSocket(c)
	got := make(chan error, 1)
	go func() {
		_, err := rc.Read(make([]byte, 10))
		got <- err
	}()
	time.Sleep(20 * time.Millisecond) // most likely waiting by now; either way it must end
	c.Close()
	select {
	case err := <-got:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("err = %v, want net.ErrClosed", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Read did not return after Close")
	}
	if _, err := rc.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
	}
}

func TestSocketReset(t *testing.T) {
	c, s := tcpPair(t)
	rc := NewSocket(c)
	s.SetLinger(0) // close sends RST
	s.Close()
	_, err := rc.Read(make([]byte, 10))
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("err = %v, want ECONNRESET", err)
	}
	if !strings.HasPrefix(err.Error(), "read tcp ") || !strings.HasSuffix(err.Error(), "read: connection reset by peer") {
		t.Fatalf("message %q is not worded as net's own", err)
	}
}

func TestNewSocketOthers(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if NewSocket(a) != nil {
		t.Fatal("NewSocket took a net.Pipe")
	}
}

func TestKindOf(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, c := range []struct {
		f    *os.File
		want Kind
	}{{f, Quick}, {null, Quick}, {w, Pipe}} {
		if got := KindOf(c.f); got != c.want {
			t.Errorf("KindOf(%s) = %v, want %v", c.f.Name(), got, c.want)
		}
	}
	if NewFile(w, KindOf(w)) != nil {
		t.Error("NewFile took a pipe")
	}
	closed, _ := os.Create(filepath.Join(dir, "closed"))
	closed.Close()
	if KindOf(closed) != Other {
		t.Error("a closed file has a kind")
	}
}

func TestFileWrite(t *testing.T) {
	name := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewFile(f, KindOf(f))
	if w == nil {
		t.Fatal("NewFile returned nil for a regular file")
	}
	want := bytes.Repeat([]byte("abc"), 100000)
	for _, p := range [][]byte{want[:7], want[7:]} {
		if n, err := w.Write(p); n != len(p) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if got, _ := os.ReadFile(name); !bytes.Equal(got, want) {
		t.Fatalf("the file holds %d bytes, not the %d written", len(got), len(want))
	}

	ro, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = NewFile(ro, Quick).Write([]byte("x"))
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Path != name || !errors.Is(err, syscall.EBADF) {
		t.Fatalf("writing a read-only file: %v, want a *os.PathError naming it with EBADF", err)
	}
	f.Close()
	if _, err := w.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Fatalf("writing after Close: %v, want os.ErrClosed", err)
	}
}

func TestSplice(t *testing.T) {
	c, s := tcpPair(t)
	name := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := NewFile(f, KindOf(f))
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var fd uintptr
	rc.Control(func(d uintptr) { fd = d })
	if _, err := Splice(fd, p[1], 100); err != unix.EAGAIN {
		t.Fatalf("splice from an idle socket: %v, want EAGAIN", err)
	}
	want := []byte("spliced bytes")
	s.Write(want)
	s.Close()
	var total int64
	for {
		var in int64
		var serr error
		if err := rc.Read(func(fd uintptr) bool {
			in, serr = Splice(fd, p[1], 100)
			return serr != unix.EAGAIN
		}); err != nil || serr != nil {
			t.Fatal(err, serr)
		}
		if in == 0 {
			break
		}
		for in > 0 {
			n, err := out.SpliceOut(p[0], int(in))
			if err != nil {
				t.Fatal(err)
			}
			in -= n
			total += n
		}
	}
	if got, _ := os.ReadFile(name); total != int64(len(want)) || !bytes.Equal(got, want) {
		t.Fatalf("the file holds %q (%d moved), want %q", got, total, want)
	}
}

// TestNoAllocations: a read, a socket write and a file write allocate
// nothing (a 1 GiB transfer makes tens of thousands of them).
func TestNoAllocations(t *testing.T) {
	c, s := tcpPair(t)
	rc, rs := NewSocket(c), NewSocket(s)
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null := NewFile(f, KindOf(f))
	msg, buf := []byte("0123456789"), make([]byte, 10)
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := rc.Write(msg); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(rs, buf); err != nil {
			t.Fatal(err)
		}
		if _, err := null.Write(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations a round", allocs)
	}
}
