package http_test

import (
	"io"
	"log"
	"strconv"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/http"
)

// harness describes the http driver to the conformance suite.
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme:      "http",
		DefaultPort: 80,
		ClientFirst: true,
		NewClient: func(opts fetch.Options, _ string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("http", http.New(http.Config{}))
			return c
		},
		DocumentURL: func(addr string) string { return "http://" + addr + "/doc.txt" },
		Open:        open,
		LinePrefix: func(p *fetchtest.Peer) (string, error) {
			if err := readRequest(p); err != nil {
				return "", err
			}
			return "HTTP/1.1 200 OK\r\nX-Long: ", nil
		},
		// RFC 1738 §3.3: the path and search go to the server %-escaped,
		// so decoded CR, LF and NUL never appear raw on the request line.
		Wire: []fetchtest.WirePart{
			{Name: "path", Example: "dir/a b", Escaped: true,
				URL: func(addr, v string) string { return "http://" + addr + "/" + fetch.Escape(v, "/") }},
			{Name: "search", Example: "q=1", Escaped: true,
				URL: func(addr, v string) string { return "http://" + addr + "/s?" + fetch.Escape(v, "=") }},
		},
		Seeds: [][]byte{
			[]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"),
			[]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"),
			[]byte("HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1:25/\r\nContent-Length: 0\r\n\r\n"),
			[]byte("HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n"),
			[]byte("HTTP/1.0 404 Not Found\r\n\r\n"),
			[]byte("HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nshort"),
		},
	}
}

// readRequest reads the request head up to its empty line.
func readRequest(p *fetchtest.Peer) error {
	for {
		line, err := p.ReadLine()
		if err != nil {
			return err
		}
		if line == "" {
			return nil
		}
	}
}

// open answers a GET with 200 and Content-Length, or with
// "Connection: close" when no length is announced.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	if err := readRequest(p); err != nil {
		return nil, err
	}
	head := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	if o.Length >= 0 {
		head += "Content-Length: " + strconv.FormatInt(o.Length, 10) + "\r\n"
	} else {
		head += "Connection: close\r\n"
	}
	if _, err := p.Write([]byte(head + "\r\n")); err != nil {
		return nil, err
	}
	return &fetchtest.Content{
		W:     p,
		End:   func() error { p.Hold(); return nil },
		Abort: func() { p.Close() },
	}, nil
}

func TestConformance(t *testing.T) {
	quietLog(t)
	fetchtest.Run(t, harness())
}

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply.
func FuzzServerBytes(f *testing.F) {
	quietLog(f)
	fetchtest.FuzzServerBytes(f, harness())
}

// quietLog silences net/http's "Unsolicited response received on idle
// HTTP channel", which garbage replies provoke by the thousand.
func quietLog(t testing.TB) {
	w := log.Writer()
	log.SetOutput(io.Discard)
	t.Cleanup(func() { log.SetOutput(w) })
}
