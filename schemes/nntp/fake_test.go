package nntp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The fake below is an in-process NNTP server for unit tests and fault
// injection: it speaks enough of RFC 3977 (and a transit-mode, RFC 977 or
// overview-less variant of it) to drive every path of the driver, and
// records the exact bytes each connection sent it.

type fakeArticle struct {
	num  int64
	id   string // without "<>"
	text string // header, blank line, body; CR LF line ends; not dot-stuffed
}

type fakeGroup struct {
	name   string
	desc   string
	secret bool // needs AUTHINFO
	arts   []fakeArticle
}

type fake struct {
	greeting    string   // default "200 fake news server ready"
	caps        []string // reader-mode capabilities; nil: CAPABILITIES is unknown (500)
	transitCaps []string // capabilities before MODE READER when modeSwitch
	modeSwitch  bool     // starts in transit mode: reader commands get 500 until MODE READER
	transitSays string   // the reply to a reader command in transit mode ("401 MODE-READER"); "": 500
	modeSays    string   // the reply to MODE READER instead of switching ("502 no reading here"); "": 200
	user, pass  string   // AUTHINFO credentials
	authAll     bool     // every reader command needs AUTHINFO
	noOver      bool     // OVER is unknown (500)
	noXover     bool     // XOVER is unknown (500)
	noOverview  bool     // OVER/XOVER known but answer 503
	noActive    bool     // LIST ACTIVE unknown: only RFC 977 LIST
	groups      []*fakeGroup
	// handle, when set, may take over a command line (fault injection);
	// it returns true when it did.
	handle func(c *fakeConn, line string) bool

	ln          net.Listener
	transcripts chan string
	wg          *sync.WaitGroup
}

type fakeConn struct {
	f       *fake
	conn    net.Conn
	w       *bufio.Writer
	reader  bool
	authed  bool
	user    string
	group   *fakeGroup
	current int64
}

func (c *fakeConn) printf(format string, args ...any) {
	fmt.Fprintf(c.w, format, args...)
	c.w.WriteString("\r\n")
}

func (c *fakeConn) flush() { c.w.Flush() }

// block writes text as a dot-stuffed data block ended by ".".
func (c *fakeConn) block(text string) {
	for _, l := range strings.SplitAfter(text, "\r\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, ".") {
			c.w.WriteString(".")
		}
		c.w.WriteString(l)
	}
	c.w.WriteString(".\r\n")
}

func newFake(t *testing.T, f *fake) *fake {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f.ln = ln
	f.transcripts = make(chan string, 16)
	f.wg = &sync.WaitGroup{}
	if f.greeting == "" {
		f.greeting = "200 fake news server ready"
	}
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		f.wg.Wait()
	})
	return f
}

func (f *fake) addr() string { return f.ln.Addr().String() }

// transcript waits for the next connection to end and returns what the
// client sent on it.
func (f *fake) transcript(t *testing.T) string {
	t.Helper()
	select {
	case s := <-f.transcripts:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("no connection ended within 5s")
	}
	return ""
}

// noConnection asserts that no connection was made.
func (f *fake) noConnection(t *testing.T) {
	t.Helper()
	select {
	case s := <-f.transcripts:
		t.Fatalf("a connection was made; the client sent %q", s)
	case <-time.After(100 * time.Millisecond):
	}
}

func (f *fake) serve(conn net.Conn) {
	var rec bytes.Buffer
	defer func() {
		conn.Close()
		f.transcripts <- rec.String()
	}()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	c := &fakeConn{f: f, conn: conn, w: bufio.NewWriter(conn), reader: !f.modeSwitch}
	r := bufio.NewReader(io.TeeReader(conn, &rec))
	if f.handle != nil && f.handle(c, "") {
		c.flush()
		return
	}
	c.printf("%s", f.greeting)
	c.flush()
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		if f.handle != nil && f.handle(c, line) {
			c.flush()
			continue
		}
		quit := c.command(line)
		c.flush()
		if quit {
			// Wait for the client to close, so the transcript is complete.
			io.Copy(io.Discard, r)
			return
		}
	}
}

func (f *fake) find(name string) *fakeGroup {
	for _, g := range f.groups {
		if g.name == name {
			return g
		}
	}
	return nil
}

// command answers one command line; it reports QUIT.
func (c *fakeConn) command(line string) bool {
	f := c.f
	verb, arg, _ := strings.Cut(line, " ")
	verb = strings.ToUpper(verb)
	switch verb {
	case "QUIT":
		c.printf("205 bye")
		return true
	case "DATE":
		c.printf("111 20261123120000")
		return false
	case "CAPABILITIES":
		if f.caps == nil {
			c.printf("500 What?")
			return false
		}
		caps := f.caps
		if !c.reader {
			caps = f.transitCaps
		}
		c.printf("101 Capability list:")
		c.block(strings.Join(append([]string{"VERSION 2"}, caps...), "\r\n") + "\r\n")
		return false
	case "MODE":
		if strings.EqualFold(arg, "READER") && f.modeSays != "" {
			c.printf("%s", f.modeSays)
		} else if strings.EqualFold(arg, "READER") {
			c.reader = true
			c.group = nil
			c.printf("200 reader mode")
		} else {
			c.printf("501 bad mode")
		}
		return false
	case "AUTHINFO":
		sub, val, _ := strings.Cut(arg, " ")
		switch strings.ToUpper(sub) {
		case "USER":
			c.user = val
			c.printf("381 password please")
		case "PASS":
			if c.user == f.user && val == f.pass {
				c.authed = true
				c.printf("281 welcome")
			} else {
				c.printf("481 no")
			}
		default:
			c.printf("501 bad AUTHINFO")
		}
		return false
	}
	if !c.reader {
		if f.transitSays != "" {
			c.printf("%s", f.transitSays)
			return false
		}
		c.printf("500 What?")
		return false
	}
	if f.authAll && !c.authed {
		c.printf("480 authentication required")
		return false
	}
	switch verb {
	case "GROUP":
		g := f.find(arg)
		if g == nil {
			c.printf("411 no such group")
			return false
		}
		if g.secret && !c.authed {
			c.printf("480 authentication required")
			return false
		}
		c.group = g
		if len(g.arts) == 0 {
			c.printf("211 0 1 0 %s", g.name)
			return false
		}
		c.current = g.arts[0].num
		c.printf("211 %d %d %d %s", len(g.arts), g.arts[0].num, g.arts[len(g.arts)-1].num, g.name)
	case "ARTICLE", "HEAD":
		a, n, code := c.lookup(arg)
		if a == nil {
			c.printf("%d no such article", code)
			return false
		}
		if verb == "HEAD" {
			head, _, _ := strings.Cut(a.text, "\r\n\r\n")
			c.printf("221 %d <%s>", n, a.id)
			c.block(head + "\r\n")
			return false
		}
		c.printf("220 %d <%s>", n, a.id)
		c.block(a.text)
	case "OVER", "XOVER":
		if verb == "OVER" && f.noOver || verb == "XOVER" && f.noXover {
			c.printf("500 What?")
			return false
		}
		if f.noOverview {
			c.printf("503 overview not available")
			return false
		}
		if c.group == nil {
			c.printf("412 no group selected")
			return false
		}
		lo, hi, _ := strings.Cut(arg, "-")
		first, _ := strconv.ParseInt(lo, 10, 64)
		last, _ := strconv.ParseInt(hi, 10, 64)
		var out []string
		for _, a := range c.group.arts {
			if a.num >= first && a.num <= last {
				out = append(out, overviewLine(a))
			}
		}
		if len(out) == 0 {
			c.printf("423 no articles in that range")
			return false
		}
		c.printf("224 overview follows")
		c.block(strings.Join(out, "\r\n") + "\r\n")
	case "LIST":
		kw, pat, _ := strings.Cut(arg, " ")
		kw = strings.ToUpper(kw)
		if f.noActive && kw != "" {
			c.printf("500 What?")
			return false
		}
		var lines []string
		for _, g := range f.groups {
			if ok, _ := path.Match(pat, g.name); pat != "" && !ok {
				continue
			}
			switch kw {
			case "", "ACTIVE":
				hi, lo := int64(0), int64(1)
				if len(g.arts) > 0 {
					lo, hi = g.arts[0].num, g.arts[len(g.arts)-1].num
				}
				lines = append(lines, fmt.Sprintf("%s %010d %010d y", g.name, hi, lo))
			case "NEWSGROUPS":
				lines = append(lines, g.name+"\t"+g.desc)
			default:
				c.printf("501 unknown LIST keyword")
				return false
			}
		}
		c.printf("215 list follows")
		c.block(strings.Join(lines, "\r\n") + "\r\n")
	default:
		c.printf("500 What?")
	}
	return false
}

// lookup finds the article an ARTICLE or HEAD argument names.
func (c *fakeConn) lookup(arg string) (*fakeArticle, int64, int) {
	if strings.HasPrefix(arg, "<") {
		id := strings.TrimSuffix(strings.TrimPrefix(arg, "<"), ">")
		for _, g := range c.f.groups {
			if g.secret && !c.authed {
				continue
			}
			for i := range g.arts {
				if g.arts[i].id == id {
					return &g.arts[i], 0, 0
				}
			}
		}
		return nil, 0, 430
	}
	if c.group == nil {
		return nil, 0, 412
	}
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil {
		return nil, 0, 501
	}
	for i := range c.group.arts {
		if c.group.arts[i].num == n {
			return &c.group.arts[i], n, 0
		}
	}
	return nil, 0, 423
}

func overviewLine(a fakeArticle) string {
	h := parseHeader(strings.Split(strings.SplitN(a.text, "\r\n\r\n", 2)[0], "\r\n"))
	lines := strings.Count(strings.SplitN(a.text, "\r\n\r\n", 2)[1], "\r\n")
	return strings.Join([]string{strconv.FormatInt(a.num, 10), h.Get("Subject"), h.Get("From"), h.Get("Date"),
		"<" + a.id + ">", h.Get("References"), strconv.Itoa(len(a.text)), strconv.Itoa(lines), "Xref: fake " + a.id}, "\t")
}

// article text in the wire's CR LF form from LF-separated lines.
func crlf(lines ...string) string { return strings.Join(lines, "\r\n") + "\r\n" }

var (
	artHello = fakeArticle{num: 1, id: "hello.1@fetch.test", text: crlf(
		"From: Alice <alice@fetch.test>",
		"Newsgroups: fetch.test.alpha",
		"Subject: Hello, news",
		"Date: Mon, 02 Nov 2026 10:00:00 +0000",
		"Message-ID: <hello.1@fetch.test>",
		"",
		"First article.",
		".A line that starts with a dot.",
		"..and one with two.",
		"Last line.")}
	artWords = fakeArticle{num: 2, id: "odd$id/with#chars@fetch.test", text: crlf(
		"From: =?UTF-8?Q?Bj=C3=B6rn?= <bjorn@fetch.test>",
		"Newsgroups: fetch.test.alpha",
		"Subject: =?UTF-8?B?R3LDvMOfZQ==?=",
		"Date: Tue, 3 Nov 2026 11:30:00 +0100 (CET)",
		"Message-ID: <odd$id/with#chars@fetch.test>",
		"",
		"Body.")}
	artThird = fakeArticle{num: 4, id: "third@fetch.test", text: crlf(
		"From: carol@fetch.test",
		"Newsgroups: fetch.test.alpha",
		"Subject: Re: Hello, news",
		"Date: Wed, 04 Nov 2026 09:15:00 -0500",
		"Message-ID: <third@fetch.test>",
		"References: <hello.1@fetch.test>",
		"",
		"Third.")}
	artBeta = fakeArticle{num: 7, id: "beta.7@fetch.test", text: crlf(
		"From: dave@fetch.test",
		"Newsgroups: fetch.test.beta",
		"Subject: Beta",
		"Date: Thu, 05 Nov 2026 08:00:00 +0000",
		"Message-ID: <beta.7@fetch.test>",
		"",
		"Beta body.")}
	artSecret = fakeArticle{num: 1, id: "secret.1@fetch.test", text: crlf(
		"From: eve@fetch.test",
		"Newsgroups: fetch.test.secret",
		"Subject: Secret",
		"Date: Fri, 06 Nov 2026 08:00:00 +0000",
		"Message-ID: <secret.1@fetch.test>",
		"",
		"Secret body.")}
)

// defaultGroups is a fresh copy of the fake's news spool.
func defaultGroups() []*fakeGroup {
	return []*fakeGroup{
		{name: "fetch.test.alpha", desc: "Alpha test group", arts: []fakeArticle{artHello, artWords, artThird}},
		{name: "fetch.test.beta", desc: "?", arts: []fakeArticle{artBeta}},
		{name: "fetch.test.empty", desc: "Nothing here"},
		{name: "fetch.test.secret", desc: "Needs a password", secret: true, arts: []fakeArticle{artSecret}},
		{name: "other.group", desc: "Elsewhere"},
	}
}

// readerCaps are what INN's nnrpd advertises, roughly.
var readerCaps = []string{"READER", "OVER", "HDR", "LIST ACTIVE NEWSGROUPS OVERVIEW.FMT", "AUTHINFO USER"}
