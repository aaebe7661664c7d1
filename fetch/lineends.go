package fetch

import (
	"bufio"
	"io"
)

// LocalLines returns a reader of r's bytes with every CR LF turned into
// LF: text in the local line ends, as FTP's ASCII mode delivers it
// (RFC 959 §3.1.1.1), so that a Gopher text item or a news article is
// byte-identical whichever server sent it (one ends lines with CR LF,
// another with LF). A CR not followed by LF is kept. It streams: memory
// does not grow with line length.
func LocalLines(r io.Reader) io.Reader { return &localLines{b: bufio.NewReader(r)} }

type localLines struct {
	b   *bufio.Reader
	err error // met while looking past a CR; returned once the CR is out
}

func (l *localLines) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n := 0
	for n < len(p) {
		if n > 0 && l.b.Buffered() == 0 {
			break // return what there is rather than wait
		}
		c, err := l.b.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if c == '\r' {
			if n > 0 && l.b.Buffered() == 0 {
				l.b.UnreadByte() // the next byte decides; do not wait for it with data in hand
				break
			}
			next, err := l.b.Peek(1)
			if err == nil && next[0] == '\n' {
				continue
			}
			// bufio hands a read error out once: keep it for after the CR
			l.err = err
		}
		p[n] = c
		n++
	}
	return n, nil
}
