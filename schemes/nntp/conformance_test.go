package nntp_test

import (
	"io"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/nntp"
)

// newClient registers the driver for news and nntp, reading news: URLs
// from server with configured AUTHINFO credentials (the fake always
// asks for them).
func newClient(opts fetch.Options, server string) *fetch.Client {
	c := fetch.NewClient(opts)
	d := nntp.New(nntp.Config{Server: server, User: "cfguser", Password: "cfgpass"})
	c.Register("news", d)
	c.Register("nntp", d)
	return c
}

// Group names for the listing checks: LIST ACTIVE fields are separated
// by spaces, so no name has one, nor a wildmat character (RFC 3977 §4.1).
var groupNames = []string{
	"alt.plain", "alt.per%cent", "alt.hash#mark", "alt.semi;colon",
	"alt.ünïcödé", "alt.-dash", "alt.a&b=c", "alt.plus+sign", "alt.tilde~",
}

var seeds = [][]byte{
	[]byte("200 hi\r\n101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n220 1 <a@b>\r\nSubject: x\r\nDate: Thu, 02 Jan 2020 03:04:05 +0000\r\n\r\nbody\r\n..dot\r\n.\r\n205 bye\r\n"),
	[]byte("200 hi\r\n101 caps\r\nREADER\r\n.\r\n215 list\r\nalt.a 10 1 y\r\nalt.b 5 6 n\r\nbad line\r\n.\r\n215 desc\r\nalt.a A group\r\n.\r\n"),
	[]byte("201 hi\r\n500 no caps\r\n480 auth\r\n381 more\r\n281 ok\r\n211 3 1 3 alt.a\r\n224 ov\r\n1\tSubj\tFrom\tThu, 02 Jan 2020 03:04:05 +0000\t<id@x>\t\t10\t2\r\n2\t=?utf-8?q?=C3=BC?=\tF\tD\t<id2@x>\t<id@x>\tx\ty\r\n.\r\n"),
	[]byte("200 hi\r\n101 caps\r\nMODE-READER\r\n.\r\n200 reader\r\n101 caps\r\nREADER\r\n.\r\n211 2 1 2 g\r\n503 no overview\r\n221 1 <a@b>\r\nSubject: s\r\n.\r\n423 gone\r\n"),
	[]byte("400 go away\r\n"),
}

// harnesses describe the driver to the conformance suite: news: URLs
// (server from the configuration) and nntp: URLs (server in the URL).
func harnesses() (news, nntpH *fetchtest.Harness) {
	news = &fetchtest.Harness{
		Scheme:      "news",
		DefaultPort: 119,
		NewClient:   newClient,
		DocumentURL: func(string) string { return "news:abc.123@example.org" },
		ListingURL:  func(string) string { return "news:*" },
		Open:        open,
		ListingLine: func(name string) string { return name + " 10 1 y\r\n" },
		Names:       groupNames,
		EndMarker:   true,
		LinePrefix:  func(p *fetchtest.Peer) (string, error) { return "200 ", nil },
		// RFC 1738 §3.6: the message-id goes to ARTICLE, a group or
		// wildmat to GROUP or LIST ACTIVE.
		Wire: []fetchtest.WirePart{
			{Name: "message-id", Example: "abc.123",
				URL: func(_, v string) string { return "news:" + fetch.Escape(v, "") + "@example.org" }},
			{Name: "group", Example: "alt.test", Listing: true,
				URL: func(_, v string) string { return "news:" + fetch.Escape(v, "") }},
			{Name: "group", Example: "alt.*", Listing: true,
				URL: func(_, v string) string { return "news:" + fetch.Escape(v, "*") }},
		},
		Seeds: seeds,
	}
	nntpH = &fetchtest.Harness{
		Scheme:      "nntp",
		DefaultPort: 119,
		NewClient:   newClient,
		DocumentURL: func(addr string) string { return "nntp://" + addr + "/alt.test/1" },
		ListingURL:  func(addr string) string { return "nntp://" + addr + "/" },
		Open:        open,
		ListingLine: func(name string) string { return name + " 10 1 y\r\n" },
		Names:       groupNames,
		EndMarker:   true,
		LinePrefix:  func(p *fetchtest.Peer) (string, error) { return "200 ", nil },
		// RFC 1738 §3.7: the group goes to GROUP; the user and password
		// this driver accepts go to AUTHINFO (RFC 4643).
		Wire: []fetchtest.WirePart{
			{Name: "group", Example: "alt.test",
				URL: func(addr, v string) string { return "nntp://" + addr + "/" + fetch.Escape(v, "") + "/1" }},
			{Name: "user", Example: "reader",
				URL: func(addr, v string) string { return "nntp://" + fetch.Escape(v, "") + ":pw@" + addr + "/alt.test/1" }},
			{Name: "password", Example: "secret",
				URL: func(addr, v string) string {
					return "nntp://reader:" + fetch.Escape(v, "") + "@" + addr + "/alt.test/1"
				}},
		},
		Seeds: seeds,
	}
	return news, nntpH
}

// open is a fake NNTP reader server that demands AUTHINFO before any
// reader command; it returns at ARTICLE (after the header), OVER or LIST
// ACTIVE with the connection as the content.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	if err := p.WriteLine("200 fake news server ready"); err != nil {
		return nil, err
	}
	s := &session{p: p}
	return s.serve()
}

type session struct {
	p      *fetchtest.Peer
	authed bool
}

func (s *session) serve() (*fetchtest.Content, error) {
	p := s.p
	for {
		line, err := p.ReadLine()
		if err != nil {
			return nil, err
		}
		up := strings.ToUpper(line)
		verb, _, _ := strings.Cut(up, " ")
		reply := "500 unknown command"
		var content string
		switch {
		case verb == "CAPABILITIES":
			reply = "101 capabilities\r\nVERSION 2\r\nREADER\r\nOVER\r\nLIST ACTIVE NEWSGROUPS\r\nAUTHINFO USER\r\n."
		case up == "MODE READER":
			reply = "200 reader mode"
		case strings.HasPrefix(up, "AUTHINFO USER "):
			reply = "381 password please"
		case strings.HasPrefix(up, "AUTHINFO PASS "):
			s.authed = true
			reply = "281 welcome"
		case verb == "QUIT":
			p.WriteLine("205 bye")
			return nil, io.EOF
		case !s.authed:
			reply = "480 authentication required"
		case verb == "GROUP":
			// A range that can hold the few lines a listing check sends.
			reply = "211 100 1 100 " + strings.TrimSpace(line[len("GROUP"):])
		case verb == "ARTICLE":
			content = "220 1 <abc.123@example.org>\r\nSubject: test\r\nFrom: a@example.org\r\nMessage-ID: <abc.123@example.org>\r\n\r\n"
		case verb == "OVER", verb == "XOVER":
			content = "224 overview follows\r\n"
		case strings.HasPrefix(up, "LIST ACTIVE"), up == "LIST":
			content = "215 list follows\r\n"
		case strings.HasPrefix(up, "LIST NEWSGROUPS"):
			reply = "215 descriptions follow\r\n."
		}
		if content != "" {
			if _, err := io.WriteString(p, content); err != nil {
				return nil, err
			}
			return &fetchtest.Content{
				W: p,
				End: func() error {
					if err := p.WriteLine("."); err != nil {
						return err
					}
					_, err := s.serve()
					return err
				},
				Abort: func() { p.Close() },
			}, nil
		}
		if err := p.WriteLine(reply); err != nil {
			return nil, err
		}
	}
}

func TestConformanceNews(t *testing.T) {
	news, _ := harnesses()
	fetchtest.Run(t, news)
}

func TestConformanceNNTP(t *testing.T) {
	_, n := harnesses()
	fetchtest.Run(t, n)
}

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply, for news: and nntp: URLs.
func FuzzServerBytes(f *testing.F) {
	news, n := harnesses()
	fetchtest.FuzzServerBytes(f, news, n)
}
