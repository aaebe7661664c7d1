package wire

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"sync"

	"github.com/fetchproject/fetch/fetch"
)

// TraceConn wraps a control connection that a library drives (jlaffaye/ftp,
// go-smtp) so that every complete line it sends or receives reaches t.
// mask rewrites sent lines before they are traced (PASS, AUTH).
func TraceConn(c net.Conn, t fetch.Tracer, mask func(string) string) net.Conn {
	if t == nil {
		return c
	}
	return &traceConn{Conn: c, t: t, mask: mask}
}

type traceConn struct {
	net.Conn
	t       fetch.Tracer
	mask    func(string) string
	mu      sync.Mutex
	in, out []byte
	// skipIn, skipOut: the rest of a line too long to keep is dropped
	// up to its end (traced whole, its tail would pass unmasked).
	skipIn, skipOut bool
}

func (c *traceConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.in = c.emit(fetch.DirReceived, append(c.in, p[:n]...), &c.skipIn)
	c.mu.Unlock()
	return n, err
}

func (c *traceConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out = c.emit(fetch.DirSent, append(c.out, p...), &c.skipOut)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

// emit traces each complete line in buf and returns the unfinished rest.
// A line longer than DefaultMaxLine is traced as a note, none of it shown.
func (c *traceConn) emit(dir fetch.Direction, buf []byte, skip *bool) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			if len(buf) > DefaultMaxLine {
				buf, *skip = buf[:0], true
			}
			return buf
		}
		if *skip {
			*skip = false
			c.t.Trace(fetch.DirInfo, fmt.Sprintf("(a line of more than %d bytes, not shown)", DefaultMaxLine))
			buf = buf[i+1:]
			continue
		}
		line := strings.TrimSuffix(string(buf[:i]), "\r")
		if dir == fetch.DirSent && c.mask != nil {
			line = c.mask(line)
		}
		c.t.Trace(dir, line)
		buf = buf[i+1:]
	}
}

// MaskCommands returns a mask that hides the argument of the named
// commands (case-insensitive), e.g. MaskCommands("PASS", "AUTHINFO PASS").
func MaskCommands(cmds ...string) func(string) string {
	return func(line string) string {
		up := strings.ToUpper(line)
		for _, c := range cmds {
			if strings.HasPrefix(up, c+" ") {
				return line[:len(c)+1] + "****"
			}
		}
		return line
	}
}
