package warc_test

import (
	"io"
	"testing"
)

// TestUnansweredExchangeNotRecorded: net/http sends a GET again on a
// new connection when a reused one closed before any byte of a reply; the
// first try's exchange received nothing, and must not become a response
// record of 0 bytes (with a request record pointing at it).
func TestUnansweredExchangeNotRecorded(t *testing.T) {
	w := newWriter(t, "retry.warc.gz", 0)
	tr := w.Begin("http", "http://h/", nil)
	sent, _ := tr.Exchange("http://h/", nil) // the dead connection
	io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	sent, recv := tr.Exchange("http://h/", nil) // the retry
	io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	io.WriteString(recv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	if err := tr.End("", "text/plain", nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var types []string
	for _, r := range readWARC(t, w.Files()[0]) {
		types = append(types, r.fields["WARC-Type"])
		if r.fields["WARC-Type"] == "response" && len(r.block) == 0 {
			t.Errorf("an empty response record: %q", r.head)
		}
	}
	if len(types) != 3 {
		t.Errorf("records %v, want warcinfo, response, request", types)
	}
}
