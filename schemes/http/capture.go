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
// part of the exchange with the server, or one given with -H). The other
// headers SecretHeader names (a Cookie, an X-Api-Key given with -H) stay
// as sent: the record is the record of the request. The driver sends only
// GETs, whose requests are header lines alone, so every line is looked
// at; a line is held until its end.
type credentialMask struct {
	w    io.Writer
	line []byte
	drop bool // in the rest of a long credential line, already masked
}

// maxHeld is the most of a line credentialMask holds: no header line the
// driver makes is this long, and a longer one is passed on in pieces.
const maxHeld = 64 << 10

func (m *credentialMask) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if m.drop {
			if i < 0 {
				break
			}
			rest, m.drop = rest[i+1:], false
			continue
		}
		if i < 0 {
			m.line = append(m.line, rest...)
			if len(m.line) > maxHeld {
				// A credential this long (a -H token) is masked as a
				// whole line and the rest of it dropped: passed on in
				// pieces, its value would reach the record.
				masked := maskCredential(m.line)
				m.drop = !bytes.Equal(masked, m.line)
				m.w.Write(masked)
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

// SecretHeader tells whether the value of the header called name, sent
// or received, may be a password, token or session, which the -v trace
// (and a WARC metadata record of it) and the WARC warcinfo record's
// command line mask, and which a redirect to another origin drops: a name that holds, in any case, one of secretWords
// (Authorization, Proxy-Authorization, Cookie, Set-Cookie, X-Api-Key,
// X-Auth-Token, X-Session-Id, ...). The challenges WWW-Authenticate and
// Proxy-Authenticate hold none, and are what explains a 401 or a 407.
func SecretHeader(name string) bool {
	n := strings.ToLower(name)
	if n == "www-authenticate" || n == "proxy-authenticate" {
		return false
	}
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// secretWords mark a header name as a credential's (SecretHeader).
var secretWords = []string{"auth", "cookie", "token", "key", "secret", "session", "passw", "credential"}

// AuthorizationHeader tells whether name is Authorization or
// Proxy-Authorization, in any case: the headers whose masked value keeps
// its scheme word ("Basic ****").
func AuthorizationHeader(name string) bool {
	return strings.EqualFold(name, "Authorization") || strings.EqualFold(name, "Proxy-Authorization")
}

// maskCredential returns line with the credentials of an Authorization or
// Proxy-Authorization header replaced by "****": the scheme word is kept
// when a credential follows it ("Basic ****"), and a value of one word,
// a bare token, is masked whole.
func maskCredential(line []byte) []byte {
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok || !AuthorizationHeader(string(name)) {
		return line
	}
	v := bytes.TrimSpace(value)
	scheme, cred, _ := bytes.Cut(v, []byte(" "))
	if len(bytes.TrimSpace(cred)) == 0 {
		// one word: a bare token, no scheme to keep
		return fmt.Appendf(nil, "%s: ****\r\n", name)
	}
	return fmt.Appendf(nil, "%s: %s ****\r\n", name, scheme)
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
