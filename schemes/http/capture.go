package http

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http/httptrace"
	"strings"
	"sync"

	"github.com/fetchproject/fetch/fetch"
)

// tapConn copies an HTTP connection's plain-text bytes (above TLS for
// https), as sent and as received, to the Capture of the request using
// the connection at the time (fetch.Request.Capture). The transport pools
// connections, so the request changes: each time net/http hands the
// connection to a request (httptrace's GotConn), that request's exchange
// takes over the tap.
type tapConn struct {
	net.Conn
	mu       sync.Mutex
	sent     io.Writer
	received io.Writer
}

func (t *tapConn) set(sent, received io.Writer) {
	t.mu.Lock()
	if sent != nil {
		sent = &credentialMask{w: sent}
	}
	t.sent, t.received = sent, received
	t.mu.Unlock()
}

// credentialMask passes the request bytes to w with the values of the
// Authorization and Proxy-Authorization header lines masked: a request
// record keeps what was asked, but no password (the proxy's, which is no
// part of the exchange with the server, or one given with -H). The driver
// sends only GETs, whose requests are header lines alone, so every line is
// looked at; a line is held until its end.
type credentialMask struct {
	w    io.Writer
	line []byte
}

func (m *credentialMask) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			m.line = append(m.line, rest...)
			if len(m.line) > 64<<10 { // no header line of ours is this long
				m.w.Write(m.line)
				m.line = m.line[:0]
			}
			break
		}
		m.line = append(m.line, rest[:i+1]...)
		rest = rest[i+1:]
		m.w.Write(maskCredential(m.line))
		m.line = m.line[:0]
	}
	return len(p), nil
}

// SecretHeader tells whether a request header's value is a password or
// token that traces and records mask: Authorization and
// Proxy-Authorization, in any case. The command masks -H values by it too.
func SecretHeader(name string) bool {
	return strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization")
}

// maskCredential returns line with the credentials of an Authorization or
// Proxy-Authorization header replaced by "****" (the scheme word kept).
func maskCredential(line []byte) []byte {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !SecretHeader(string(name)) {
		return line
	}
	v := bytes.TrimLeft(value, " \t")
	scheme, _, _ := bytes.Cut(v, []byte(" "))
	return fmt.Appendf(nil, "%s: %s ****\r\n", name, bytes.TrimRight(scheme, "\r\n"))
}

func (t *tapConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		t.mu.Lock()
		if t.received != nil {
			t.received.Write(p[:n])
		}
		t.mu.Unlock()
	}
	return n, err
}

func (t *tapConn) Write(p []byte) (int, error) {
	n, err := t.Conn.Write(p)
	if n > 0 {
		t.mu.Lock()
		if t.sent != nil {
			t.sent.Write(p[:n])
		}
		t.mu.Unlock()
	}
	return n, err
}

// withCaptureTrace hands each connection a request with a Capture gets
// (one a redirect hop) to that Capture, taking a reused connection's tap
// from the request that used it before. Only such requests use the tapped
// transport (Driver.transport). hop returns the URL of the hop being made.
// An https connection is tapped above its TLS layer; one through a
// gateway's CONNECT tunnel is not (net/http makes its TLS client itself),
// so that exchange reaches no Capture.
func withCaptureTrace(req *fetch.Request, hop func() string) *httptrace.ClientTrace {
	return &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if t, ok := info.Conn.(*tapConn); ok {
			t.set(req.Capture.Exchange(hop(), t.RemoteAddr()))
		}
	}}
}
