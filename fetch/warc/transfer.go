package warc

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Transfer records one fetch. It is the fetch.Capture and the
// fetch.Tracer of the request (set both), and End writes its records:
//
//   - HTTP: for each exchange (each redirect hop), a response record of
//     the bytes received and a request record of the bytes sent, the
//     request WARC-Concurrent-To the response.
//   - Any other scheme: a resource record of the document's or listing's
//     raw bytes, WARC-Target-URI the canonical URL, and a metadata record
//     "text/x-SCHEME-control-conversation" of the traced conversation
//     (commands sent, replies received, passwords masked by the drivers),
//     WARC-Concurrent-To the resource: the convention of Heritrix and
//     wpull for FTP, applied to every protocol.
//   - A failed transfer: only the metadata record, ending with a line
//     "* fetch failed: …"; no response or resource record. A result whose
//     raw bytes the driver does not hand over (a file: directory, a WAIS
//     search) gets the same with "* content not recorded: …".
//
// Every record of a transfer carries the URL given to Begin as its
// Fetch-Task (Header.Task), whatever hop it records.
type Transfer struct {
	w      *Writer
	scheme string
	target string
	start  time.Time

	mu        sync.Mutex
	exchanges []*exchange
	payload   *Block
	remote    net.Addr
	convo     *Block
	err       error
	next      fetch.Tracer
}

type exchange struct {
	target         string
	remote         net.Addr
	date           time.Time
	sent, received *Block
}

// errEnded is what End returns after the first, or after Discard.
var errEnded = errors.New("warc: the transfer has ended already")

var (
	_ fetch.Capture = (*Transfer)(nil)
	_ fetch.Tracer  = (*Transfer)(nil)
)

// Begin starts recording a fetch of target (its redacted URL); next, if
// not nil, gets the trace lines too (fetch -v).
func (w *Writer) Begin(scheme, target string, next fetch.Tracer) *Transfer {
	t := &Transfer{w: w, scheme: scheme, target: target, start: w.opts.Now(), next: next}
	t.convo, t.err = w.NewBlock(false)
	return t
}

// Exchange implements fetch.Capture for HTTP.
func (t *Transfer) Exchange(target string, remote net.Addr) (io.Writer, io.Writer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return io.Discard, io.Discard
	}
	e := &exchange{target: target, remote: remote, date: t.w.opts.Now()}
	var err error
	if e.sent, err = t.w.NewBlock(false); err == nil {
		e.received, err = t.w.NewBlock(true)
	}
	if err != nil {
		t.err = err
		return io.Discard, io.Discard
	}
	t.exchanges = append(t.exchanges, e)
	return e.sent, e.received
}

// Payload implements fetch.Capture for every other scheme. A second call
// (a driver that retried) starts the payload again.
func (t *Transfer) Payload(remote net.Addr) io.Writer {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err != nil {
		return io.Discard // failed, or ended: nothing more is written
	}
	if t.payload != nil {
		t.payload.Close()
	}
	b, err := t.w.NewBlock(false)
	if err != nil {
		t.err = err
		return io.Discard
	}
	t.payload, t.remote = b, remote
	return b
}

// Trace implements fetch.Tracer: each line goes into the conversation
// record as the command prints it with -v ("> " sent, "< " received,
// "* " a note of fetch's own).
func (t *Transfer) Trace(dir fetch.Direction, line string) {
	t.mu.Lock()
	if t.convo != nil {
		fmt.Fprintf(t.convo, "%c %s\r\n", dir, line)
	}
	t.mu.Unlock()
	if t.next != nil {
		t.next.Trace(dir, line)
	}
}

// End writes the transfer's records: complete ones if failure is nil
// and the content was captured, else the metadata record saying why not.
// finalURL is the canonical URL of what was fetched (redacted), contentType
// the document's type.
func (t *Transfer) End(finalURL, contentType string, failure error) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.release()
	if t.err != nil {
		return t.err
	}
	defer func() { t.err = errEnded }() // a second End writes nothing
	if finalURL == "" {
		finalURL = t.target
	}
	note := "fetch failed"
	exchanged := t.scheme == "http" || t.scheme == "https" // archived as request and response
	if exchanged {
		// An exchange that received nothing had no response: net/http
		// sends a GET again on a new connection when a kept-alive one
		// closes before the reply, and the try that got nothing is no
		// response record (nor a request record answered by none).
		var answered []*exchange
		for _, e := range t.exchanges {
			if e.received.Size() > 0 {
				answered = append(answered, e)
			} else {
				e.sent.Close()
				e.received.Close()
			}
		}
		t.exchanges = answered
	}
	if failure == nil && !exchanged && t.payload == nil {
		note, failure = "content not recorded", fmt.Errorf("the driver hands no raw bytes for this result (a listing it builds itself)")
	}
	if failure == nil && exchanged && len(t.exchanges) == 0 {
		note, failure = "content not recorded", fmt.Errorf("no plain-text exchange was captured (an https exchange through a gateway's tunnel is not recorded)")
	}
	if failure != nil {
		fmt.Fprintf(t.convo, "* %s: %s\r\n", note, failure)
		h := Header{Type: "metadata", Date: t.start, TargetURI: finalURL, Task: t.target,
			ContentType: "text/x-" + t.scheme + "-control-conversation"}
		b := t.convo
		t.convo = nil
		return t.w.Write(&h, b)
	}
	// All the records go in together (Writer.writeGroup).
	var hs []*Header
	var bs []*Block
	if exchanged {
		for _, e := range t.exchanges {
			resp := &Header{Type: "response", Date: e.date, TargetURI: e.target, IPAddress: ipOf(e.remote), Task: t.target,
				ContentType: "application/http; msgtype=response", ID: t.w.opts.NewID()}
			req := &Header{Type: "request", Date: e.date, TargetURI: e.target, IPAddress: ipOf(e.remote), Task: t.target,
				ContentType: "application/http; msgtype=request", ConcurrentTo: resp.ID}
			hs, bs = append(hs, resp, req), append(bs, e.received, e.sent)
			e.received, e.sent = nil, nil
		}
		return t.w.writeGroup(hs, bs)
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	res := &Header{Type: "resource", Date: t.start, TargetURI: finalURL, IPAddress: ipOf(t.remote), Task: t.target,
		ContentType: contentType, ID: t.w.opts.NewID()}
	meta := &Header{Type: "metadata", Date: t.start, TargetURI: finalURL, ConcurrentTo: res.ID, Task: t.target,
		ContentType: "text/x-" + t.scheme + "-control-conversation"}
	pb, cb := t.payload, t.convo
	t.payload, t.convo = nil, nil
	return t.w.writeGroup([]*Header{res, meta}, []*Block{pb, cb})
}

// Discard drops the transfer's records unwritten and frees their spools:
// for a caller that could not log them (a batch whose log failed), in whose
// file they would stand without their log line. End after it writes
// nothing.
func (t *Transfer) Discard() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.release()
	t.err = errEnded
}

// release frees the spools not written; t.mu is held.
func (t *Transfer) release() {
	for _, e := range t.exchanges {
		for _, b := range []*Block{e.sent, e.received} {
			if b != nil {
				b.Close()
			}
		}
	}
	for _, b := range []*Block{t.payload, t.convo} {
		if b != nil {
			b.Close()
		}
	}
}

func ipOf(a net.Addr) string {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	case nil:
		return ""
	}
	if h, _, err := net.SplitHostPort(a.String()); err == nil {
		return h
	}
	return ""
}
