package fetch

import (
	"io"
	"net"
)

// Capture is an archiver's view of one fetch (a WARC writer's): the bytes
// of the fetch as they crossed the wire, before any decoding, line-end
// conversion, rendering or parsing. Set it on Request.Capture; drivers
// call it through Request.CaptureExchange and Request.CapturePayload.
// Its methods may be called from the goroutines the driver uses.
type Capture interface {
	// Exchange starts one request/response exchange of a protocol whose
	// archive form is the whole exchange (HTTP): target is the URL asked
	// for (each redirect hop is an exchange of its own), remote the
	// server's address. The driver writes the bytes it sends to sent and
	// the bytes it receives to received, exactly as on the connection.
	Exchange(target string, remote net.Addr) (sent, received io.Writer)
	// Payload returns where the raw bytes of the document or listing go,
	// for protocols archived as a resource (every scheme but HTTP); remote
	// is the server's address, nil when there is none (file:).
	Payload(remote net.Addr) io.Writer
}

// CapturePayload returns r teed into the request's Capture, if it has one:
// drivers call it on the stream of the document or listing as it arrives,
// before converting line ends, removing framing or parsing it.
func (r *Request) CapturePayload(rd io.Reader, remote net.Addr) io.Reader {
	if r.Capture == nil {
		return rd
	}
	return io.TeeReader(rd, r.Capture.Payload(remote))
}

// CaptureReads returns c with the bytes read from it teed into the
// request's Capture as the payload, if it has one: for a connection that
// carries the document alone (an FTP data connection).
func (r *Request) CaptureReads(c net.Conn) net.Conn {
	if r.Capture == nil {
		return c
	}
	return &teeConn{Conn: c, w: r.Capture.Payload(c.RemoteAddr())}
}

type teeConn struct {
	net.Conn
	w io.Writer
}

func (t *teeConn) Read(p []byte) (int, error) {
	n, err := t.Conn.Read(p)
	if n > 0 {
		t.w.Write(p[:n])
	}
	return n, err
}
