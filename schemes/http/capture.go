package http

import (
	"io"
	"net"
	"net/http/httptrace"
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
	t.sent, t.received = sent, received
	t.mu.Unlock()
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
