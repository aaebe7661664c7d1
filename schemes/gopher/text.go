package gopher

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/fetchproject/fetch/fetch"
)

// textReader streams dot-terminated text (RFC 1436 type 0, Gopher+ "+-1"):
// a line holding a lone "." ends it, a line starting ".." loses one dot,
// and every other byte, line ends included, passes through unchanged.
// Lines are not buffered whole, so a long line costs no memory.
//
// wire.Reader.DotReader is not used here: it rewrites every line end to
// CR LF and fails when the server closes without the "." line, which
// pygopherd and gophernicus both do for plain Gopher text. With strict
// set (the Gopher+ "+-1" framing, which promises the "." line) a close
// before it is fetch.ErrTruncated; without it the close ends the text.
type textReader struct {
	b      *bufio.Reader
	strict bool
	bol    bool // at the start of a line
	done   bool
	err    error
}

func newTextReader(r io.Reader, strict bool) *textReader {
	b, ok := r.(*bufio.Reader)
	if !ok {
		b = bufio.NewReader(r)
	}
	return &textReader{b: b, strict: strict, bol: true}
}

func (t *textReader) Read(p []byte) (int, error) {
	if t.done {
		return 0, io.EOF
	}
	if t.err != nil {
		return 0, t.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if t.bol {
		end, err := t.lineStart()
		if err != nil {
			t.err = err
			return 0, err
		}
		if end {
			t.done = true
			return 0, io.EOF
		}
		t.bol = false
	}
	if t.b.Buffered() == 0 {
		if _, err := t.b.Peek(1); err != nil {
			if err == io.EOF {
				// The close came inside a line: that line is the last.
				return 0, t.eof()
			}
			t.err = err
			return 0, err
		}
	}
	n := min(len(p), t.b.Buffered())
	data, _ := t.b.Peek(n)
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		n = i + 1
		t.bol = true
	}
	copy(p, data[:n])
	t.b.Discard(n)
	return n, nil
}

// lineStart looks at the start of a line: it reports the "." line (and
// consumes it) or unstuffs a leading "..".
func (t *textReader) lineStart() (end bool, err error) {
	c, err := t.b.Peek(1)
	if err != nil {
		if err == io.EOF {
			return false, t.eof()
		}
		return false, err
	}
	if c[0] != '.' {
		return false, nil
	}
	c, err = t.b.Peek(2)
	if err == io.EOF && len(c) == 1 {
		t.b.Discard(1) // a "." with no line end just before the close
		return true, nil
	}
	if err != nil && err != io.EOF {
		return false, err
	}
	switch c[1] {
	case '\n':
		t.b.Discard(2)
		return true, nil
	case '.':
		t.b.Discard(1)
		return false, nil
	case '\r':
		c, err = t.b.Peek(3)
		if err != nil && err != io.EOF {
			return false, err
		}
		if len(c) == 3 && c[2] == '\n' {
			t.b.Discard(3)
			return true, nil
		}
	}
	return false, nil
}

// eof is the close of the connection before the "." line.
func (t *textReader) eof() error {
	if t.strict {
		t.err = fmt.Errorf("%w: the server closed before the \".\" line that ends the data", fetch.ErrTruncated)
		return t.err
	}
	t.done = true
	return io.EOF
}
