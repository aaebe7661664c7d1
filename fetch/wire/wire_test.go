package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

func TestReadLine(t *testing.T) {
	r := NewReader(strings.NewReader("one\r\ntwo\nthree"), 16, nil)
	for _, want := range []string{"one", "two"} {
		got, err := r.ReadLine()
		if err != nil || got != want {
			t.Fatalf("ReadLine = %q, %v; want %q", got, err, want)
		}
	}
	got, err := r.ReadLine()
	if got != "three" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("last = %q, %v", got, err)
	}
	if _, err := r.ReadLine(); err != io.EOF {
		t.Fatalf("after end: %v", err)
	}
}

func TestReadLineBound(t *testing.T) {
	long := strings.Repeat("x", 1<<20) + "\r\n"
	r := NewReader(strings.NewReader(long), 0, nil)
	_, err := r.ReadLine()
	if !errors.Is(err, fetch.ErrLineTooLong) {
		t.Fatalf("err = %v", err)
	}
	// A line of exactly the bound is fine.
	r = NewReader(strings.NewReader(strings.Repeat("y", 100)+"\r\n"), 100, nil)
	if got, err := r.ReadLine(); err != nil || len(got) != 100 {
		t.Fatalf("%d %v", len(got), err)
	}
}

func TestDotReader(t *testing.T) {
	tests := []struct {
		in, want string
		raw      bool
		err      error
	}{
		{"a\r\n..b\r\n.\r\nafter", "a\r\n.b\r\n", false, nil},
		{"a\r\n..b\r\n.\r\n", "a\r\n..b\r\n.\r\n", true, nil},
		{".\r\n", "", false, nil},
		{"lf only\n.\n", "lf only\r\n", false, nil},
		{"no end\r\n", "no end\r\n", false, fetch.ErrTruncated},
		{"cut mid-li", "", false, fetch.ErrTruncated},
	}
	for _, tt := range tests {
		r := NewReader(strings.NewReader(tt.in), 0, nil)
		got, err := io.ReadAll(r.DotReader(tt.raw))
		if string(got) != tt.want || !errors.Is(err, tt.err) && !(err == nil && tt.err == nil) {
			t.Errorf("DotReader(%q, raw=%v) = %q, %v; want %q, %v", tt.in, tt.raw, got, err, tt.want, tt.err)
		}
	}
	// What follows the block stays readable.
	r := NewReader(strings.NewReader("x\r\n.\r\n200 next\r\n"), 0, nil)
	io.ReadAll(r.DotReader(false))
	if l, _ := r.ReadLine(); l != "200 next" {
		t.Fatalf("after block: %q", l)
	}
}

type lines []string

func (l *lines) Trace(d fetch.Direction, s string) { *l = append(*l, string(d)+" "+s) }

func TestWriteLineChecksAndTraces(t *testing.T) {
	var buf bytes.Buffer
	var tr lines
	c := NewConn(struct {
		io.Reader
		io.Writer
	}{strings.NewReader(""), &buf}, 0, &tr)
	c.Mask = MaskCommands("PASS")
	if err := c.WriteLine(Lit("USER "), Arg("user", "anonymous")); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteLine(Lit("PASS "), Arg("password", "secret")); err != nil {
		t.Fatal(err)
	}
	err := c.WriteLine(Lit("RETR "), Arg("name", "a\r\nDELE b"))
	if !errors.Is(err, fetch.ErrUnsafeLine) || !strings.Contains(err.Error(), "name") {
		t.Fatalf("unsafe line: %v", err)
	}
	if got, want := buf.String(), "USER anonymous\r\nPASS secret\r\n"; got != want {
		t.Fatalf("wire = %q, want %q", got, want)
	}
	if got := strings.Join(tr, "|"); got != "> USER anonymous|> PASS ****" {
		t.Fatalf("trace = %q", got)
	}
}

func TestMaskCommands(t *testing.T) {
	m := MaskCommands("PASS", "AUTHINFO PASS")
	for in, want := range map[string]string{
		"PASS hunter2":          "PASS ****",
		"pass hunter2":          "pass ****",
		"AUTHINFO PASS hunter2": "AUTHINFO PASS ****",
		"AUTHINFO USER bob":     "AUTHINFO USER bob",
		"PASSIVE":               "PASSIVE",
	} {
		if got := m(in); got != want {
			t.Errorf("mask(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzDotReader(f *testing.F) {
	for _, s := range []string{"a\r\n..b\r\n.\r\n", "\r\n.\r\n", "..\r\n...\r\n.\r\n", "x"} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, raw bool) {
		r := NewReader(bytes.NewReader(in), 256, nil)
		out, err := io.ReadAll(r.DotReader(raw))
		if err == nil && raw && !bytes.HasSuffix(out, []byte(".\r\n")) {
			t.Fatalf("raw block without its terminator: %q", out)
		}
		if len(out) > 2*len(in)+3 {
			t.Fatalf("output %d bytes from %d", len(out), len(in))
		}
	})
}

func FuzzReadLine(f *testing.F) {
	f.Add([]byte("220 ready\r\n"))
	f.Add([]byte("\n\n\r\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		r := NewReader(bytes.NewReader(in), 64, nil)
		for i := 0; i < len(in)+1; i++ {
			l, err := r.ReadLine()
			if len(l) > 66 {
				t.Fatalf("line of %d bytes past the bound", len(l))
			}
			if err != nil {
				return
			}
		}
	})
}

// TestReadLineBoundBareLF: the bound is on the line without its end; a
// line ended by a bare LF (which the check's room for CR LF let carry one
// byte more) or cut by the end of the stream is held to it too.
func TestReadLineBoundBareLF(t *testing.T) {
	r := NewReader(strings.NewReader(strings.Repeat("y", 101)+"\n"), 100, nil)
	got, err := r.ReadLine()
	if !errors.Is(err, fetch.ErrLineTooLong) {
		t.Fatalf("a %d-byte line under a bound of 100 was accepted: err = %v", len(got), err)
	}
	// A cut line at the end of the stream is no different.
	r = NewReader(strings.NewReader(strings.Repeat("z", 102)), 100, nil)
	got, err = r.ReadLine()
	if len(got) > 100 {
		t.Fatalf("a cut line of %d bytes under a bound of 100 was returned: err = %v", len(got), err)
	}
}

// traceLines collects trace lines.
type traceLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *traceLines) Trace(d fetch.Direction, s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf("%c %s", d, s))
}

// TestTraceConnLongMaskedLine: a sent line longer than TraceConn keeps
// (a PASS of 70 KiB) is not traced, its tail included, which once went
// out as a line of its own without the command the mask looks for; the
// lines after it are traced as usual.
func TestTraceConnLongMaskedLine(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go io.Copy(io.Discard, b)
	tl := &traceLines{}
	c := TraceConn(a, tl, MaskCommands("PASS"))
	secret := strings.Repeat("s", 70<<10) + "TAIL"
	for _, chunk := range []string{"USER joe\r\n", "PASS " + secret[:66<<10], secret[66<<10:] + "\r\n", "NOOP\r\n"} {
		if _, err := c.Write([]byte(chunk)); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(tl.lines, "\n")
	if strings.Contains(got, "TAIL") || strings.Contains(got, "sss") {
		t.Errorf("the password's tail was traced:\n%.200s", got)
	}
	if !strings.Contains(got, "> USER joe") || !strings.Contains(got, "> NOOP") || !strings.Contains(got, "not shown") {
		t.Errorf("trace:\n%.300s", got)
	}
}
