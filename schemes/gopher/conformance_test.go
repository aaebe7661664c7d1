package gopher_test

import (
	"strconv"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/gopher"
)

// harness describes the gopher driver to the conformance suite. The
// document is a Gopher+ item, so its reply announces a length ("+N").
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme:      "gopher",
		DefaultPort: 70,
		ClientFirst: true,
		NewClient: func(opts fetch.Options, _ string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("gopher", gopher.New(gopher.Config{}))
			return c
		},
		DocumentURL: func(addr string) string { return "gopher://" + addr + "/9doc.bin%09%09+" },
		ListingURL:  func(addr string) string { return "gopher://" + addr + "/1/dir" },
		Open:        open,
		ListingLine: func(name string) string {
			return "0" + name + "\t/" + name + "\t127.0.0.1\t7070\r\n"
		},
		LinePrefix: func(p *fetchtest.Peer) (string, error) {
			_, err := p.ReadLine()
			return "1", err // a menu line
		},
		// RFC 1738 §3.4: selector, search and Gopher+ string are sent
		// decoded, tab-separated, on one line.
		Wire: []fetchtest.WirePart{
			{Name: "selector", Example: "/doc.txt",
				URL: func(addr, v string) string { return "gopher://" + addr + "/0" + fetch.Escape(v, "/") }},
			{Name: "search", Example: "words", Listing: true,
				URL: func(addr, v string) string { return "gopher://" + addr + "/7/find%09" + fetch.Escape(v, "") }},
			{Name: "gopher+ string", Example: "+",
				URL: func(addr, v string) string { return "gopher://" + addr + "/0/doc.txt%09%09" + fetch.Escape(v, "") }},
		},
		Seeds: [][]byte{
			[]byte("+5\r\nhello"),
			[]byte("+-1\r\nline\r\n..dot\r\n.\r\n"),
			[]byte("+-2\r\nuntil close"),
			[]byte("--1\r\n1 admin <a@b>\r\nno such item\r\n"),
			[]byte("--3\r\n3 1moved\t/new\texample.org\t70\r\n"),
			[]byte("iinfo\t\terror.host\t1\r\n0About\t/about\texample.org\t70\r\n1Dir\t/dir\texample.org\t70\t+\r\n7Search\t/s\texample.org\t70\t?\r\n8Login\tuser\texample.org\t23\r\nhURL link\tURL:http://example.org/\texample.org\t70\r\n.\r\n"),
			[]byte("3 not found\t\terror.host\t1\r\n.\r\n"),
			[]byte("+-1\r\n+INFO: 0doc\t/doc\texample.org\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b>\r\n Mod-Date: <20200102030405>\r\n+VIEWS:\r\n text/plain: <10k>\r\n+ASK:\r\n Ask: Name?\tdefault\r\n.\r\n"),
		},
	}
}

// open is a fake Gopher+ server: it reads the request line and answers a
// menu as is, a document with "+N" (or "+-2" when no length is
// announced); the content ends at ".\r\n" (menus) or the close.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	if _, err := p.ReadLine(); err != nil {
		return nil, err
	}
	c := &fetchtest.Content{W: p, Abort: func() { p.Close() }}
	if o.Listing {
		c.End = func() error { p.WriteLine("."); return p.Close() }
		return c, nil
	}
	head := "+-2"
	if o.Length >= 0 {
		head = "+" + strconv.FormatInt(o.Length, 10)
	}
	if err := p.WriteLine(head); err != nil {
		return nil, err
	}
	c.End = p.Close
	return c, nil
}

func TestConformance(t *testing.T) { fetchtest.Run(t, harness()) }

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply.
func FuzzServerBytes(f *testing.F) { fetchtest.FuzzServerBytes(f, harness()) }
