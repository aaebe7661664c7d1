package mailto_test

import (
	"io"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/mailto"
)

// harness describes the mailto driver to the conformance suite. It is a
// sender: the SMTP server comes from the configuration, never the URL,
// so the port policy does not apply; the line-safety, timeout,
// cancellation, long-line and garbage checks do.
func harness() *fetchtest.Harness {
	to := func(rest string) func(addr, v string) string {
		return func(_, v string) string {
			return "mailto:someone@example.org?" + rest + fetch.Escape(v, "@") + "&body=hi"
		}
	}
	return &fetchtest.Harness{
		Scheme: "mailto",
		Sender: true,
		NewClient: func(opts fetch.Options, server string) *fetch.Client {
			c := fetch.NewClient(opts)
			c.Register("mailto", mailto.New(mailto.Config{SMTPServer: server, From: "tester@example.org"}))
			return c
		},
		DocumentURL: func(string) string { return "mailto:someone@example.org?subject=hello&body=hi" },
		Open:        open,
		LinePrefix:  func(p *fetchtest.Peer) (string, error) { return "220 ", nil },
		// RFC 6068: addresses reach RCPT TO and the header, the other
		// fields the header; only body may hold line breaks.
		Wire: []fetchtest.WirePart{
			{Name: "to", Example: "someone@example.org",
				URL: func(_, v string) string { return "mailto:" + fetch.Escape(v, "@") + "?body=hi" }},
			{Name: "cc", Example: "other@example.org", URL: to("cc=")},
			{Name: "subject", Example: "hello there", URL: to("subject=")},
			{Name: "in-reply-to", Example: "<id@example.org>", URL: to("in-reply-to=")},
			{Name: "keywords", Example: "one, two", URL: to("keywords=")},
			{Name: "header name", Example: "x-custom",
				URL: func(_, v string) string { return "mailto:someone@example.org?" + fetch.Escape(v, "") + "=1&body=hi" }},
		},
		Seeds: [][]byte{
			[]byte("220 hi\r\n250-hi\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n250 ok\r\n250 ok\r\n354 go\r\n250 2.0.0 queued as X\r\n221 bye\r\n"),
			[]byte("220 hi\r\n250 hi\r\n250 ok\r\n550 5.1.1 no such user\r\n250 reset\r\n221 bye\r\n"),
			[]byte("421 4.3.2 go away\r\n"),
			[]byte("220-multi\r\n220 line\r\n500 what\r\n250 helo ok\r\n"),
		},
	}
}

// open is a fake submission server: it accepts one message and returns
// just before the final reply to DATA.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	if err := p.WriteLine("220 fake ESMTP"); err != nil {
		return nil, err
	}
	for {
		line, err := p.ReadLine()
		if err != nil {
			return nil, err
		}
		verb, _, _ := strings.Cut(strings.ToUpper(line), " ")
		reply := "502 5.5.1 not implemented"
		switch verb {
		case "EHLO":
			reply = "250-fake\r\n250-8BITMIME\r\n250 SMTPUTF8"
		case "HELO", "MAIL", "RCPT", "RSET", "NOOP":
			reply = "250 ok"
		case "QUIT":
			p.WriteLine("221 bye")
			return nil, io.EOF
		case "DATA":
			if err := p.WriteLine("354 end with ."); err != nil {
				return nil, err
			}
			for {
				l, err := p.ReadLine()
				if err != nil {
					return nil, err
				}
				if l == "." {
					break
				}
			}
			return &fetchtest.Content{
				W: p,
				End: func() error {
					if err := p.WriteLine("250 2.0.0 queued as FAKE1"); err != nil {
						return err
					}
					for {
						l, err := p.ReadLine()
						if err != nil {
							return err
						}
						if strings.EqualFold(l, "QUIT") {
							return p.WriteLine("221 bye")
						}
						p.WriteLine("250 ok")
					}
				},
				Abort: func() { p.Close() },
			}, nil
		}
		if err := p.WriteLine(reply); err != nil {
			return nil, err
		}
	}
}

func TestConformance(t *testing.T) { fetchtest.Run(t, harness()) }

// FuzzServerBytes feeds arbitrary bytes to the driver as the SMTP
// server's whole reply.
func FuzzServerBytes(f *testing.F) { fetchtest.FuzzServerBytes(f, harness()) }
