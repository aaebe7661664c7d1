package fetch

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// spliceServer serves payload on loopback to one connection, then waits
// for hold (if any) before closing; it returns the client's end wrapped
// as Request.Dial wraps it.
func spliceServer(t *testing.T, payload []byte, hold <-chan struct{}, idle time.Duration) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write(payload)
		if hold != nil {
			<-hold
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	dc := NewDeadlineConn(context.Background(), c, idle)
	t.Cleanup(func() { dc.Close() })
	return dc
}

func payload(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// TestSpliceConn: a connection's bytes reach a file, a pipe and /dev/null
// whole; max stops it; the idle timeout interrupts a stalled server; a
// connection that is not Request.Dial's is not spliced.
func TestSpliceConn(t *testing.T) {
	if runtime.GOOS != "linux" {
		c := spliceServer(t, payload(10), nil, time.Minute)
		f, _ := os.Create(filepath.Join(t.TempDir(), "out"))
		defer f.Close()
		if _, err := SpliceConn(c, f, -1); !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("SpliceConn off Linux: %v, want ErrUnsupported", err)
		}
		return
	}
	want := payload(5<<20 + 12345) // several chunks and a partial one

	t.Run("file", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n, err := SpliceConn(spliceServer(t, want, nil, time.Minute), f, -1)
		if err != nil || n != int64(len(want)) {
			t.Fatalf("SpliceConn = %d, %v; want %d bytes", n, err, len(want))
		}
		got, _ := os.ReadFile(f.Name())
		if !bytes.Equal(got, want) {
			t.Fatalf("the file differs from what was sent (%d bytes against %d)", len(got), len(want))
		}
	})

	t.Run("pipe read slowly", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		read := make(chan []byte)
		go func() {
			time.Sleep(100 * time.Millisecond) // the pipe fills first
			b, _ := io.ReadAll(r)
			read <- b
		}()
		n, err := SpliceConn(spliceServer(t, want, nil, time.Minute), w, -1)
		w.Close()
		if err != nil || n != int64(len(want)) {
			t.Fatalf("SpliceConn = %d, %v; want %d bytes", n, err, len(want))
		}
		if got := <-read; !bytes.Equal(got, want) {
			t.Fatalf("the pipe carried other bytes (%d against %d)", len(got), len(want))
		}
	})

	t.Run("dev null and max", func(t *testing.T) {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n, err := SpliceConn(spliceServer(t, want, nil, time.Minute), f, 3<<20+1)
		if err != nil || n != 3<<20+1 {
			t.Fatalf("SpliceConn with max = %d, %v; want %d bytes", n, err, 3<<20+1)
		}
	})

	t.Run("idle timeout", func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		idle := 300 * time.Millisecond
		start := time.Now()
		n, err := SpliceConn(spliceServer(t, want[:1000], hold, idle), f, -1)
		if !errors.Is(err, ErrTimeout) || n != 1000 {
			t.Fatalf("a stalled server: %d bytes, %v; want 1000 and ErrTimeout", n, err)
		}
		if d := time.Since(start); d > idle+30*time.Second {
			t.Errorf("the timeout of %v took %v", idle, d)
		}
	})

	t.Run("file not writable", func(t *testing.T) {
		name := filepath.Join(t.TempDir(), "out")
		os.WriteFile(name, nil, 0o644)
		f, err := os.Open(name) // read-only
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		_, err = SpliceConn(spliceServer(t, want, nil, time.Minute), f, -1)
		var fe *Error
		if !errors.As(err, &fe) || fe.Kind != KindLocal || fe.Op != "write" {
			t.Fatalf("splicing into a read-only file: %v; want a local write error", err)
		}

		// That pipe was left holding bytes: no later splice may see
		// them (more splices than pipes are kept).
		for i := range cap(pipes) + 1 {
			small := payload(100 + i)
			out, err := os.Create(filepath.Join(t.TempDir(), "next"))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := SpliceConn(spliceServer(t, small, nil, time.Minute), out, -1); err != nil {
				t.Fatal(err)
			}
			out.Close()
			if got, _ := os.ReadFile(out.Name()); !bytes.Equal(got, small) {
				t.Fatalf("splice %d after the failure wrote %q, not the %d bytes sent", i, got, len(small))
			}
		}
	})

	t.Run("pipe with no reader", func(t *testing.T) {
		// Standard output would end the process (cmd/fetch's
		// TestClosedStdoutPipe); any other pipe is a write error, as
		// its Write makes it.
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		r.Close()
		_, err = SpliceConn(spliceServer(t, want, nil, time.Minute), w, -1)
		var fe *Error
		if !errors.As(err, &fe) || fe.Kind != KindLocal || fe.Op != "write" || !errors.Is(err, syscall.EPIPE) {
			t.Fatalf("splicing into a pipe with no reader: %v; want a local write error of EPIPE", err)
		}
	})

	t.Run("not a dialled connection", func(t *testing.T) {
		f, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		a, b := net.Pipe()
		defer a.Close()
		defer b.Close()
		if n, err := SpliceConn(a, f, -1); n != 0 || !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("SpliceConn(net.Pipe) = %d, %v; want ErrUnsupported", n, err)
		}
	})
}
