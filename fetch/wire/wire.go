// Package wire reads and writes the lines of text protocols (FTP, Gopher,
// NNTP, SMTP) with the limits and the safety check every driver needs:
// no line longer than a bound is buffered, no decoded CR, LF or NUL is
// ever written inside a command, and each line can be traced for -v.
//
// net/textproto is close, but its ReadLine has no length limit and its
// PrintfLine writes CR and LF unchecked (see shared NOTES), so the few
// pieces needed are written here.
package wire

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// DefaultMaxLine bounds one line from a server. RFC 3977 allows 512 bytes
// for NNTP replies and 998 for article lines; menus and listings run longer
// in practice, so the bound is generous but finite.
const DefaultMaxLine = 64 << 10

// Conn is a line-oriented view of a connection.
type Conn struct {
	R *Reader
	w io.Writer
	// Tracer gets each line sent and received; Mask rewrites a sent line
	// before tracing (to hide passwords).
	Tracer fetch.Tracer
	Mask   func(line string) string
}

// NewConn reads and writes rw with lines of at most maxLine bytes (0 means
// DefaultMaxLine).
func NewConn(rw io.ReadWriter, maxLine int, t fetch.Tracer) *Conn {
	return &Conn{R: NewReader(rw, maxLine, t), w: rw, Tracer: t}
}

// SetTracer makes t receive the lines sent and received from now on: a
// pooled connection traces to the request that has it checked out.
func (c *Conn) SetTracer(t fetch.Tracer) {
	c.Tracer = t
	c.R.tracer = t
}

// WriteLine sends one command line followed by CR LF. Each part is checked
// for CR, LF and NUL first; part names say where a bad byte came from.
func (c *Conn) WriteLine(parts ...Part) error {
	var b strings.Builder
	for _, p := range parts {
		if p.Name != "" {
			if err := fetch.CheckLine(p.Name, p.Value); err != nil {
				return err
			}
		}
		b.WriteString(p.Value)
	}
	line := b.String()
	if c.Tracer != nil {
		shown := line
		if c.Mask != nil {
			shown = c.Mask(line)
		}
		c.Tracer.Trace(fetch.DirSent, shown)
	}
	_, err := io.WriteString(c.w, line+"\r\n")
	return err
}

// Part is a piece of a command line. A part with a Name came from the URL
// or the user and is checked; a part without one is protocol text.
type Part struct {
	Name  string
	Value string
}

// Lit is protocol text that needs no check ("ARTICLE ", a tab).
func Lit(s string) Part { return Part{Value: s} }

// Arg is a value from the URL or the user, checked before it is sent.
func Arg(name, value string) Part { return Part{Name: name, Value: value} }

// Reader reads lines with a length bound.
type Reader struct {
	B      *bufio.Reader
	max    int
	tracer fetch.Tracer
}

// NewReader wraps r; maxLine 0 means DefaultMaxLine.
func NewReader(r io.Reader, maxLine int, t fetch.Tracer) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Reader{B: bufio.NewReaderSize(r, 4096), max: maxLine, tracer: t}
}

// Untraced returns a reader of the same stream and bound whose lines are
// not traced: for data (article bodies, listings) as opposed to replies.
func (r *Reader) Untraced() *Reader {
	return &Reader{B: r.B, max: r.max}
}

// ReadLine returns the next line without its CR LF (or bare LF). A line
// longer than the bound fails with fetch.ErrLineTooLong; a stream that
// ends inside a line returns that partial line with io.ErrUnexpectedEOF.
func (r *Reader) ReadLine() (string, error) {
	line, err := r.readRaw()
	if err != nil {
		return line, err
	}
	if r.tracer != nil {
		r.tracer.Trace(fetch.DirReceived, line)
	}
	return line, nil
}

func (r *Reader) readRaw() (string, error) {
	var buf []byte
	for {
		chunk, err := r.B.ReadSlice('\n')
		if len(buf)+len(chunk) > r.max+2 {
			return "", fmt.Errorf("%w (more than %d bytes)", fetch.ErrLineTooLong, r.max)
		}
		buf = append(buf, chunk...)
		switch err {
		case nil:
			buf = bytes.TrimSuffix(buf[:len(buf)-1], []byte{'\r'})
			if len(buf) > r.max { // ended by LF alone: room for one byte more
				return "", fmt.Errorf("%w (more than %d bytes)", fetch.ErrLineTooLong, r.max)
			}
			return string(buf), nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(buf) == 0 {
				return "", io.EOF
			}
			if len(buf) > r.max {
				return "", fmt.Errorf("%w (more than %d bytes)", fetch.ErrLineTooLong, r.max)
			}
			return string(buf), io.ErrUnexpectedEOF
		default:
			return string(buf), err
		}
	}
}

// DotReader returns a reader of a dot-terminated block (RFC 977, RFC 1436
// text): lines starting ".." lose one dot, the lone "." line ends the
// block, and every line ends in CR LF as the protocols define. A stream
// that closes before the "." line fails with fetch.ErrTruncated. With raw
// set the bytes pass through untouched, terminator included.
func (r *Reader) DotReader(raw bool) io.Reader {
	return &dotReader{r: r, raw: raw}
}

type dotReader struct {
	r    *Reader
	raw  bool
	buf  []byte
	done bool
	err  error
}

func (d *dotReader) Read(p []byte) (int, error) {
	for len(d.buf) == 0 {
		if d.done {
			return 0, io.EOF
		}
		if d.err != nil {
			return 0, d.err
		}
		line, err := d.r.readRaw()
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w: the closing \".\" line never came", fetch.ErrTruncated)
			}
			d.err = err
			continue
		}
		if line == "." {
			d.done = true
			if d.raw {
				d.buf = []byte(".\r\n")
			}
			continue
		}
		if !d.raw && strings.HasPrefix(line, "..") {
			line = line[1:]
		}
		d.buf = append([]byte(line), '\r', '\n')
	}
	n := copy(p, d.buf)
	d.buf = d.buf[n:]
	return n, nil
}
