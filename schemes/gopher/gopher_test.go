package gopher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

func TestDocuments(t *testing.T) {
	cases := []struct {
		name, path, reply string
		want              string
		mime              string
		size              int64
	}{
		{"text dot and unstuff", "0/t", "a\r\n..b\r\n.c\r\n.\r\nafter\r\n", "a\n.b\n.c\n", "text/plain", -1},
		{"text LF kept", "0/t", "a\nb\n.\n", "a\nb\n", "text/plain", -1},
		{"text close without dot", "0/t", "a\nlast line", "a\nlast line", "text/plain", -1},
		{"text dot at close", "0/t", "a\r\n.", "a\n", "text/plain", -1},
		{"text empty", "0/t", "", "", "text/plain", -1},
		{"text dotted line kept", "0/t", ".\rx\r\n.\r\n", ".\rx\n", "text/plain", -1},
		{"binary until close", "9/b", "\x00\x01.\r\n..\r\n\xff", "\x00\x01.\r\n..\r\n\xff", "application/octet-stream", -1},
		{"gif", "g/p.gif", "GIF89a", "GIF89a", "image/gif", -1},
		{"image by extension", "I/p.png", "\x89PNG", "\x89PNG", "image/png", -1},
		{"html", "h/d.html", "<p>.\r\n..</p>", "<p>.\n..</p>", "text/html", -1},
		{"unknown type", "Z/x", "raw\r\n.\r\n", "raw\r\n.\r\n", "application/octet-stream", -1},
		{"plus length", "0/t%09%09+", "+5\r\n..\r\n.xyz", "..\n.", "text/plain", -1},
		{"plus length binary", "9/b%09%09+", "+5\r\n..\r\n.xyz", "..\r\n.", "application/octet-stream", 5},
		{"plus dot", "0/t%09%09+", "+-1\r\nline\r\n..x\r\n.\r\n", "line\n.x\n", "text/plain", -1},
		{"plus close", "9/b%09%09+", "+-2\r\n.\r\nbin", ".\r\nbin", "application/octet-stream", -1},
		{"plus view", "0/t%09%09+text/html%20En_US", "+2\r\nhi", "hi", "text/html", -1},
		{"plus not understood", "0/t%09%09+", "plain old gopher\r\n", "plain old gopher\n", "text/plain", -1},
		{"plus zero", "9/t%09%09+", "+0\r\nignored", "", "application/octet-stream", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, answerWith(tc.reply))
			res, body, err := get(t, client(fetch.Options{}), f.url(tc.path))
			if err != nil {
				t.Fatalf("fetch: %v", err)
			}
			if string(body) != tc.want {
				t.Errorf("body %q, want %q", body, tc.want)
			}
			if res.Kind != fetch.KindDocument || res.Document.MIMEType != tc.mime || res.Document.Size != tc.size {
				t.Errorf("kind %s mime %q size %d, want document %q %d", res.Kind, res.Document.MIMEType, res.Document.Size, tc.mime, tc.size)
			}
		})
	}
}

func TestRaw(t *testing.T) {
	const r = "+-1\r\nline\n..x\r\n.\r\n"
	f := newFake(t, answerWith(r))
	_, body, err := getWith(t, client(fetch.Options{}), f.url("0/t%09%09+"), fetch.Request{Raw: true})
	if err != nil || string(body) != r {
		t.Fatalf("raw body %q, %v; want %q", body, err, r)
	}
	// A menu comes back as bytes too.
	const m = "0a\t/a\th\t70\r\n.\r\n"
	f = newFake(t, answerWith(m))
	res, body, err := getWith(t, client(fetch.Options{}), f.url("1/"), fetch.Request{Raw: true})
	if err != nil || string(body) != m || res.Document.MIMEType != MenuMIMEType {
		t.Fatalf("raw menu %q, %v", body, err)
	}
	// A short "+N" reply is still an error in raw mode.
	f = newFake(t, answerWith("+10\r\nshort"))
	_, body, err = getWith(t, client(fetch.Options{}), f.url("9/b%09%09+"), fetch.Request{Raw: true})
	if !errors.Is(err, fetch.ErrTruncated) || string(body) != "+10\r\nshort" {
		t.Fatalf("raw truncated: %q, %v", body, err)
	}
}

// TestRawFraming holds raw mode to the same completeness checks as the
// parsed reply: the bytes come back unchanged, and a reply that ends
// before its length line's framing is fetch.ErrTruncated in both modes.
func TestRawFraming(t *testing.T) {
	for _, c := range []struct {
		reply string
		short bool
	}{
		{"+5\r\nshort", false},
		{"+10\r\nshort", true},
		{"+9223372036854775807\r\nshort", true}, // head+N would overflow int64
		{"+9223372036854775790\r\nshort", true},
		{"+-1\r\nline\r\n.\r\n", false},
		{"+-1\r\nline\n.\n", false},
		{"+-1\r\nline\r\n.", false}, // the close right after the "."
		{"+-1\r\nline\r\n.\r\nafter the end", false},
		{"+-1\r\nline\r\n", true},
		{"+-1\r\n", true},
		{"+-1\r\nno line end", true},
		{"+-1\r\n..\r\n", true}, // a stuffed dot, not the end
		{"+-1\r\n.x\r\n", true},
		{"+-1\r\n.\r", true},
		{"+-2\r\nup to the close", false},
		{"+-2\r\n", false},
	} {
		for _, oneByte := range []bool{false, true} {
			read := func(raw bool) ([]byte, error) {
				var r io.Reader = strings.NewReader(c.reply)
				if oneByte {
					// Every Read returns one byte, so the "." line
					// is split across reads.
					r = iotest.OneByteReader(r)
				}
				rep, err := readReply(bufio.NewReader(r), true, raw, nil)
				if err != nil {
					return nil, err
				}
				return io.ReadAll(rep.body)
			}
			got, err := read(true)
			if string(got) != c.reply || errors.Is(err, fetch.ErrTruncated) != c.short || (err != nil && !c.short) {
				t.Errorf("raw %q (one byte a read: %v): %q, %v; want the bytes unchanged and short=%v", c.reply, oneByte, got, err, c.short)
			}
			if _, err := read(false); errors.Is(err, fetch.ErrTruncated) != c.short {
				t.Errorf("parsed %q (one byte a read: %v): %v; want short=%v", c.reply, oneByte, err, c.short)
			}
		}
	}
}

func TestMenu(t *testing.T) {
	const menu = "" +
		"iWelcome\tTITLE\tnull.host\t1\r\n" +
		"iplain info\tfake\t(NULL)\t0\r\n" +
		"itext without fields\r\n" +
		"0About\t/about.txt\tgopher.example\t70\r\n" +
		"00 starts with its type\t0file\tgopher.example\t7070\r\n" +
		"1Sub menu\t/sub\tgopher.example\t70\t+\r\n" +
		"7Search\t/search\tgopher.example\t70\t+\r\n" +
		"0Form\t/form\tgopher.example\t70\t?\r\n" +
		"8Login\tguest\tbbs.example\t2323\r\n" +
		"8Anon\t\tbbs.example\t23\r\n" +
		"TMainframe\tuser\tibm.example\t23\r\n" +
		"hWeb\tURL:http://www.example.com/a?b\tgopher.example\t70\r\n" +
		"hLocal html\t/x.html\tgopher.example\t70\r\n" +
		"3Oops\t\terror.host\t1\r\n" +
		"+Mirror\t/about.txt\tmirror.example\t70\r\n" +
		"9Spaces and tabs\t/a b%c\t\t\r\n" +
		"garbage line\r\n" +
		"0Bad port\t/x\thost\tseventy\r\n" +
		"gv6\t/p.gif\t::1\t7070\r\n" +
		"\r\n" +
		".\r\n" +
		"0After the end\t/x\th\t70\r\n"
	f := newFake(t, answerWith(menu))
	res, _, err := get(t, client(fetch.Options{}), f.url(""))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.KindListing {
		t.Fatalf("kind %s", res.Kind)
	}
	l := res.Listing
	if l.Title != "Welcome" {
		t.Errorf("title %q", l.Title)
	}
	self := fmt.Sprintf("127.0.0.1:%d", f.port())
	want := []struct {
		kind fetch.EntryKind
		name string
		url  string
	}{
		{fetch.EntryText, "plain info", ""},
		{fetch.EntryText, "text without fields", ""},
		{fetch.EntryFile, "About", "gopher://gopher.example/0/about.txt"},
		{fetch.EntryFile, "0 starts with its type", "gopher://gopher.example:7070/00file"},
		{fetch.EntryDir, "Sub menu", "gopher://gopher.example/1/sub%09%09+"},
		{fetch.EntrySearch, "Search", "gopher://gopher.example/7/search"},
		{fetch.EntryForm, "Form", "gopher://gopher.example/0/form%09%09%3F"},
		{fetch.EntrySession, "Login", "telnet://guest@bbs.example:2323/"},
		{fetch.EntrySession, "Anon", "telnet://bbs.example/"},
		{fetch.EntrySession, "Mainframe", "tn3270://user@ibm.example/"},
		{fetch.EntryLink, "Web", "http://www.example.com/a?b"},
		{fetch.EntryFile, "Local html", "gopher://gopher.example/h/x.html"},
		{fetch.EntryError, "Oops", ""},
		{fetch.EntryFile, "Mirror", "gopher://mirror.example/h/about.txt"},
		{fetch.EntryFile, "Spaces and tabs", "gopher://" + self + "/9/a%20b%25c"},
		{fetch.EntryRaw, "garbage line", ""},
		{fetch.EntryRaw, "0Bad port\t/x\thost\tseventy", ""},
		{fetch.EntryFile, "v6", "gopher://[::1]:7070/g/p.gif"},
	}
	if len(l.Entries) != len(want) {
		for _, e := range l.Entries {
			t.Logf("%+v", e)
		}
		t.Fatalf("%d entries, want %d", len(l.Entries), len(want))
	}
	for i, w := range want {
		e := l.Entries[i]
		if e.Kind != w.kind || e.Name != w.name || e.URL != w.url {
			t.Errorf("entry %d = %s %q %q, want %s %q %q", i, e.Kind, e.Name, e.URL, w.kind, w.name, w.url)
		}
		// Every link is absolute and parses back to the same item.
		if e.URL != "" {
			u, err := fetch.Parse(e.URL)
			if err != nil {
				t.Errorf("entry %d URL %q: %v", i, e.URL, err)
				continue
			}
			if u.Scheme == "gopher" {
				if _, err := ParseURL(u); err != nil {
					t.Errorf("entry %d URL %q: %v", i, e.URL, err)
				}
			}
		}
	}
	// The selector comes back unchanged from the URL built for it.
	u, _ := fetch.Parse(l.Entries[14].URL)
	g, _ := ParseURL(u)
	if g.Selector != "/a b%c" || g.Type != '9' {
		t.Errorf("round trip: %+v", g)
	}
}

// TestMenuLinksFetchable follows every link of a menu served by the fake,
// each answered with a document or a menu as its type asks.
func TestMenuLinksFetchable(t *testing.T) {
	var f *fakeServer
	f = newFake(t, func(i int, req string, c net.Conn) {
		line, _, _ := strings.Cut(req, "\r\n")
		switch line {
		case "":
			fmt.Fprintf(c, "0Doc\t/doc\t127.0.0.1\t%[1]d\r\n1Dir\t/dir\t127.0.0.1\t%[1]d\t+\r\n9Bin\t9bin\t127.0.0.1\t%[1]d\r\n.\r\n", f.port())
		case "/dir\t+":
			io.WriteString(c, "+-2\r\niempty\tfake\t(NULL)\t0\r\n")
		default:
			io.WriteString(c, "content\r\n")
		}
	})
	c := client(fetch.Options{})
	res, _, err := get(t, c, f.url(""))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Listing.Entries {
		r, _, err := get(t, c, e.URL)
		if err != nil {
			t.Errorf("%s: %v", e.URL, err)
			continue
		}
		if e.Kind == fetch.EntryDir && r.Kind != fetch.KindListing {
			t.Errorf("%s: kind %s", e.URL, r.Kind)
		}
	}
	got := f.requests()
	if len(got) != 4 || string(got[3]) != "9bin\r\n" {
		t.Errorf("requests %q", got)
	}
}

func TestSearchPrompt(t *testing.T) {
	f := newFake(t, answerWith("0hit\t/hit\th\t70\r\n.\r\n"))
	// No query and no prompter: an error that says an answer is needed.
	_, _, err := get(t, client(fetch.Options{}), f.url("7/s"))
	if !errors.Is(err, fetch.ErrNoAnswer) {
		t.Fatalf("err %v, want ErrNoAnswer", err)
	}
	if len(f.requests()) != 0 {
		t.Fatal("connected without a query")
	}
	res, _, err := get(t, client(fetch.Options{Prompter: fetch.Answers{"query": "gopher holes"}}), f.url("7/s"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(f.requests()[0]); got != "/s\tgopher holes\r\n" {
		t.Errorf("sent %q", got)
	}
	if res.URL.String() != f.url("7/s%09gopher%20holes") {
		t.Errorf("result URL %s", res.URL)
	}
	// A query with a newline is refused before connecting.
	_, _, err = getWith(t, client(fetch.Options{}), f.url("7/s"), fetch.Request{Query: "a\r\nb"})
	if !errors.Is(err, fetch.ErrUnsafeLine) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Fatalf("err %v", err)
	}
	if len(f.requests()) != 1 {
		t.Fatal("connected with an unsafe query")
	}
	// A tab would end the search and make the rest a Gopher+ string
	// (RFC 1738 §3.4.2-3.4.3): "w\t!" would ask for attributes, and the
	// result URL would name that Gopher+ item, not this search.
	_, _, err = getWith(t, client(fetch.Options{}), f.url("7/s"), fetch.Request{Query: "w\t!"})
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.KindPolicy || fe.Part != "search" {
		t.Fatalf("a query with a tab: %v, want a policy refusal naming the search", err)
	}
	if len(f.requests()) != 1 {
		t.Fatalf("a query with a tab was sent: %q", f.requests()[1:])
	}
}

func TestLineSafety(t *testing.T) {
	for _, path := range []string{
		"0/a%0D%0Ab", "0/a%00", "0/a%0A", "7/s%09a%0Db", "0/a%09%09+%0D%0AQUIT",
		"0/a%09%09+%091%0D%0A+-1%0D%0Aa%0Ab%0D%0A.%0D%0A",        // LF inside an answer
		"0/a%09%09+%091%0D%0A+-1%0D%0A.%0D%0Aextra%0D%0A.%0D%0A", // a "." line before the end
		"0/a%09%09+%091%0D%0A+-2%0D%0Ax%0D%0A.%0D%0A",            // not the +-1 block
		"0/a%09%09+%091%0D%0A+-1%0D%0Ax",                         // no terminator
		"0/a%09%09!%0D%0A+-1%0D%0A.%0D%0A",                       // no data flag
	} {
		t.Run(path, func(t *testing.T) {
			f := newFake(t, answerWith("x"))
			_, _, err := get(t, client(fetch.Options{}), f.url(path))
			if !errors.Is(err, fetch.ErrUnsafeLine) || fetch.KindOf(err) != fetch.KindPolicy {
				t.Fatalf("err %v, want ErrUnsafeLine", err)
			}
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Part == "" || fe.URL == "" {
				t.Errorf("error lacks part or URL: %#v", fe)
			}
			if len(f.requests()) != 0 {
				t.Error("connected")
			}
		})
	}
}

func TestPlusErrors(t *testing.T) {
	cases := []struct {
		reply string
		code  int
		found bool // errors.Is ErrNotFound
		msg   string
	}{
		{"--2\r\n1 admin <a@b>\r\n'/x' does not exist\r\n", 1, true, "'/x' does not exist"},
		{"--1\r\n2 admin <a@b>\r\nToo busy\r\n.\r\n", 2, false, "Too busy"},
		{"-15\r\n1 <a@b>\r\ngone\r\nignored", 1, true, "gone"},
		{"--2\r\n3 <a@b>\r\n0moved\t/new\tnew.example\t70\r\n", 3, false, "0moved\t/new\tnew.example\t70"},
		{"-5\r\n9 x\r\n", 9, false, "x"},
	}
	for _, tc := range cases {
		f := newFake(t, answerWith(tc.reply))
		_, _, err := get(t, client(fetch.Options{}), f.url("0/x%09%09+"))
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || fe.Code != tc.code || fe.Reply != tc.msg {
			t.Errorf("%q: err %#v", tc.reply, err)
			continue
		}
		if errors.Is(err, fetch.ErrNotFound) != tc.found {
			t.Errorf("%q: ErrNotFound = %v", tc.reply, !tc.found)
		}
		if tc.code == 3 && !strings.Contains(err.Error(), "gopher://new.example/0/new") {
			t.Errorf("moved: %v", err)
		}
	}
}

// TestPlusErrorLongBlock: an error block past its 64 KiB bound keeps its
// code and the start of its message, which says the block was cut; one
// shorter than its length line announced keeps them too. Both reported
// "error 0": the data read was dropped with the error.
func TestPlusErrorLongBlock(t *testing.T) {
	long := strings.Repeat(strings.Repeat("x", 99)+"\r\n", 1000) // 100 KB
	cases := []struct {
		name, reply string
		cut         bool
	}{
		{"--1", "--1\r\n2 admin <a@b>\r\n" + long + ".\r\n", true},
		{"--2", "--2\r\n2 admin <a@b>\r\n" + long, true},
		{"-N", fmt.Sprintf("-%d\r\n2 admin <a@b>\r\n%s", len("2 admin <a@b>\r\n")+len(long), long), true},
		{"-N short", "-100\r\n2 admin <a@b>\r\nbusy\r\n", false},
	}
	for _, tc := range cases {
		f := newFake(t, answerWith(tc.reply))
		_, _, err := get(t, client(fetch.Options{}), f.url("0/x%09%09+"))
		var fe *fetch.Error
		var pe *PlusError
		if !errors.As(err, &fe) || !errors.As(err, &pe) || fe.Code != 2 || pe.Code != 2 || !strings.Contains(err.Error(), "try again later") {
			t.Errorf("%s: %v, want code 2", tc.name, err)
			continue
		}
		if !strings.HasPrefix(fe.Reply, "xxx") && !strings.HasPrefix(fe.Reply, "busy") {
			t.Errorf("%s: the message's start is lost: %q", tc.name, fe.Reply)
		}
		if said := strings.Contains(fe.Reply, "cut") && strings.Contains(pe.Message, "cut"); said != tc.cut {
			t.Errorf("%s: the message says the block was cut: %v, want %v: %q", tc.name, said, tc.cut, fe.Reply)
		}
	}
}

func TestPlainErrorItem(t *testing.T) {
	for _, path := range []string{"0/x", "1/x", "9/x"} {
		f := newFake(t, answerWith("3'/x' does not exist (no handler found)\t\terror.host\t1\r\n"))
		_, _, err := get(t, client(fetch.Options{}), f.url(path))
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(fe.Reply, "does not exist") {
			t.Errorf("%s: %v", path, err)
		}
	}
	// A short document that looks like one: a table whose rows begin
	// with "3" and hold tabs, or an error item naming a real server.
	for _, doc := range []string{
		"3\tkg\tred\t12\r\n",
		"31\t2\t3\t4\r\n3.5\t6\r\n",
		"3Three\tthings\tgopher.example\t70\r\n",
	} {
		f := newFake(t, answerWith(doc))
		_, body, err := get(t, client(fetch.Options{}), f.url("0/table"))
		if err != nil || string(body) != strings.ReplaceAll(doc, "\r\n", "\n") {
			t.Errorf("%q read as %q, %v", doc, body, err)
		}
	}
	// A menu with an error item among other items is a menu.
	f := newFake(t, answerWith("3Some error\t\terror.host\t1\r\n0doc\t/d\th\t70\r\n.\r\n"))
	res, _, err := get(t, client(fetch.Options{}), f.url("1/x"))
	if err != nil || len(res.Listing.Entries) != 2 {
		t.Errorf("mixed menu: %v", err)
	}
}

func TestSessionTypes(t *testing.T) {
	c := client(fetch.Options{})
	_, _, err := get(t, c, "gopher://127.0.0.1:7070/8guest")
	if fetch.KindOf(err) != fetch.KindUsage || !strings.Contains(err.Error(), "telnet://guest@127.0.0.1:7070/") {
		t.Errorf("type 8: %v", err)
	}
	_, _, err = get(t, c, "gopher://127.0.0.1:7070/T")
	if fetch.KindOf(err) != fetch.KindUsage || !strings.Contains(err.Error(), "tn3270://127.0.0.1:7070/") {
		t.Errorf("type T: %v", err)
	}
}

func TestAttributes(t *testing.T) {
	const attrs = "+INFO: 0Some file\tmoo selector\thost2\t7070\t+\r\n" +
		"+ADMIN:\r\n Admin: Frodo Gophermeister <fng@bogus.edu>\r\n Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n" +
		"+VIEWS:\r\n Text/plain: <10k>\r\n application/postscript: <100k>\r\n Text/plain De_DE: <15k>\r\n" +
		"+ABSTRACT:\r\n This is a short (but multi-line) abstract about the\r\n item. Two or three lines ought to be enough\r\n" +
		"+SMELL:\r\n Roses\r\n"
	f := newFake(t, answerWith("+-2\r\n"+attrs))
	res, body, err := get(t, client(fetch.Options{}), f.url("0/moo%20selector%09%09!"))
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != attrs || res.Document.MIMEType != AttributesMIMEType {
		t.Fatalf("body %q mime %q", body, res.Document.MIMEType)
	}
	m := res.Document.Meta
	if m["gopher+.admin.admin"] != "Frodo Gophermeister <fng@bogus.edu>" || !strings.HasPrefix(m["gopher+.abstract"], "This is a short") {
		t.Errorf("meta %v", m)
	}
	as, ok := DocumentAttributes(res.Document)
	if !ok || len(as) != 1 {
		t.Fatalf("DocumentAttributes: %v %v", as, ok)
	}
	a := as[0]
	if a.Info == nil || a.Info.Type != '0' || a.Info.Selector != "moo selector" {
		t.Errorf("info %+v", a.Info)
	}
	if a.URL != "gopher://host2:7070/0moo%20selector%09%09+" {
		t.Errorf("info URL %s", a.URL)
	}
	if !a.ModDate.Equal(time.Date(1993, 7, 28, 17, 2, 1, 0, time.UTC)) {
		t.Errorf("mod date %v", a.ModDate)
	}
	if len(a.Views) != 3 || a.Views[2].Type != "text/plain" || a.Views[2].Language != "De_DE" || a.Views[1].Bytes != 100*1024 ||
		a.Views[2].URL != "gopher://host2:7070/0moo%20selector%09%09+Text/plain%20De_DE" {
		t.Errorf("views %+v", a.Views)
	}
	if len(a.Blocks) != 5 || a.Blocks[4].Name != "+SMELL" || a.Blocks[4].Lines[0] != "Roses" {
		t.Errorf("blocks %+v", a.Blocks)
	}
	var out strings.Builder
	if err := RenderAttributes(&out, as); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Some file", "Admin: Frodo", "text/plain De_DE <15k>  gopher://host2:7070/", "Abstract:", "SMELL:", "    Roses"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("rendering lacks %q:\n%s", s, out.String())
		}
	}
}

func TestDirectoryAttributes(t *testing.T) {
	const attrs = "+INFO: 0Salmon dogs\tsome selector\thost2\t70\t+\r\n+ADMIN:\r\n Admin: Frodo <fng@bogus.edu>\r\n Mod-Date: August 15, 1992 <19920815185503>\r\n" +
		"+VIEWS:\r\n Text/plain: <10k>\r\n application/Postscript De_DE: <100k>\r\n+ABSTRACT:\r\n A great recipe for making salmon\r\n" +
		"+INFO: 0Hot pups\tother selector\thost3\t70\t+\r\n+ADMIN:\r\n Admin: Bilbo <bng@bogus.edu>\r\n Date: <19910101080003>\r\n"
	f := newFake(t, answerWith(fmt.Sprintf("+%d\r\n%s", len(attrs), attrs)))
	res, _, err := get(t, client(fetch.Options{}), f.url("1%09%09$"))
	if err != nil {
		t.Fatal(err)
	}
	as, ok := DocumentAttributes(res.Document)
	if !ok || len(as) != 2 || as[1].Info.Name != "Hot pups" || as[0].Abstract != "A great recipe for making salmon" {
		t.Fatalf("%+v", as)
	}
	if res.Document.Meta[MetaItems] != "2" {
		t.Errorf("meta %v", res.Document.Meta)
	}
	// The same attributes, typed, without the JSON of Meta.
	var typed []Attributes
	if !res.Document.As(&typed) || len(typed) != 2 || typed[1].Info.Name != "Hot pups" || typed[0].Views[1].Language != "De_DE" {
		t.Errorf("As(*[]Attributes) = %+v", typed)
	}
}

// TestAttributeBounds holds the parse of an attribute reply to its item
// and line bounds, and keeps a large parse out of Meta's JSON: a reply
// of short lines once cost about a hundred times its size in memory.
func TestAttributeBounds(t *testing.T) {
	items := func(n int) string { return "+-2\r\n" + strings.Repeat("+INFO\r\n", n) }
	lines := func(n int) string { return "+-2\r\n+X\r\n" + strings.Repeat(" y\r\n", n-1) }
	for _, c := range []struct {
		name, url, reply, bound string
	}{
		{"items", "0/x%09%09!", items(maxAttrItems + 1), "10000 items"},
		{"lines", "1/x%09%09$", lines(maxAttrLines + 1), "100000 lines"},
		{"+ASK items", "0/x%09%09?", items(maxAttrItems + 1), "10000 items"},
		// One line of tabs, within the bounds above (4 MiB held 64 MiB)
		{"+ASK fields", "0/x%09%09!", "+-2\r\n+INFO: 0x\t/x\th\t70\t+\r\n+ASK:\r\n Choose: pick" + strings.Repeat("\t", maxAskFields+1) + "\r\n", "100000 fields"},
		{"+ASK fields, form", "0/x%09%09?", "+-2\r\n+ASK:\r\n Choose: pick" + strings.Repeat("\tx", maxAskFields/2) + "\r\n Select: more" + strings.Repeat("\ty", maxAskFields/2+1) + "\r\n", "100000 fields"},
	} {
		f := newFake(t, answerWith(c.reply))
		_, _, err := get(t, client(fetch.Options{}), f.url(c.url))
		if !errors.Is(err, fetch.ErrTooLarge) || !strings.Contains(fmt.Sprint(err), c.bound) {
			t.Errorf("%s: %v; want fetch.ErrTooLarge naming %q", c.name, err, c.bound)
		}
	}

	// At the bounds the reply is parsed; its JSON is too long for Meta,
	// which says so, and the attributes come from Native.
	askFields := "+-2\r\n+INFO: 0x\t/x\th\t70\t+\r\n+ASK:\r\n Choose: pick" + strings.Repeat("\tx", maxAskFields) + "\r\n"
	for _, reply := range []string{items(maxAttrItems), lines(maxAttrLines), askFields} {
		f := newFake(t, answerWith(reply))
		res, _, err := get(t, client(fetch.Options{}), f.url("1/x%09%09$"))
		if err != nil {
			t.Fatal(err)
		}
		m := res.Document.Meta
		if _, ok := m[MetaAttributes]; ok || m[MetaAttributesOmitted] == "" {
			t.Errorf("%d bytes of Meta JSON, omitted: %q; want none and why", len(m[MetaAttributes]), m[MetaAttributesOmitted])
		}
		as, ok := DocumentAttributes(res.Document)
		if !ok || fmt.Sprint(len(as)) != m[MetaItems] {
			t.Errorf("DocumentAttributes: %d items, %v; meta says %s", len(as), ok, m[MetaItems])
		}
	}
}

// TestAttributeReplyTime: an attribute reply is read whole before the
// fetch returns, so a server that trickles it, each line well within the
// idle timeout, held the fetch for as long as the reply's 4 MiB allowed.
// Like an FTP reply it gets the idle timeout as a whole. The fake trickles
// until the client gives up (or its own 10 s deadline, after which the
// reply ended and the fetch succeeded).
func TestAttributeReplyTime(t *testing.T) {
	for _, tt := range []struct {
		u    string
		raw  bool
		head string // the reply's start, then a line every 10 ms
	}{
		{"0/x%09%09!", false, "+-2\r\n+INFO: 0x\tx\th\t70\t+\r\n+ASK:\r\n"},
		{"0/x%09%09?", false, "+-2\r\n+INFO: 0x\tx\th\t70\t+\r\n+ASK:\r\n"},
		// the +ASK block is read whole by the driver with --raw too
		{"0/x%09%09?", true, "+-2\r\n+INFO: 0x\tx\th\t70\t+\r\n+ASK:\r\n"},
		// a "--N" error block is read whole before Fetch returns
		{"0/x%09%09+", false, "--2\r\n1 admin <a@b>\r\n"},
	} {
		f := newFake(t, func(_ int, req string, c net.Conn) {
			if strings.Contains(req, "\t+\t1") { // the form, answered
				io.WriteString(c, "+-1\r\nthanks\r\n.\r\n")
				return
			}
			io.WriteString(c, tt.head)
			for {
				if _, err := io.WriteString(c, " Note: a\r\n"); err != nil {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
		_, _, err := getWith(t, client(fetch.Options{IdleTimeout: time.Second}), f.url(tt.u), fetch.Request{Raw: tt.raw})
		if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork {
			t.Errorf("%s (raw %v): %v; want a timeout", tt.u, tt.raw, err)
		}
	}
}

// TestMenuHeadTime: the items of a menu read ahead before the fetch
// returns (its title, leading text and error items) are timed as a whole.
// Blank lines are no items, so a menu of nothing but blank lines,
// trickled, held the fetch for as long as the menu's 32 MiB allowed. The
// fake trickles until the client gives up (or its own 10 s deadline).
func TestMenuHeadTime(t *testing.T) {
	const idle = 300 * time.Millisecond
	f := newFake(t, func(_ int, _ string, c net.Conn) {
		for {
			if _, err := io.WriteString(c, "\r\n"); err != nil {
				return
			}
			time.Sleep(idle / 6)
		}
	})
	start := time.Now()
	_, _, err := getWith(t, client(fetch.Options{IdleTimeout: idle}), f.url("1/"), fetch.Request{})
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork {
		t.Errorf("a trickle of blank lines: %v after %v; want a timeout", err, time.Since(start))
	}
}

// TestAttributeViewURLs: each view's URL repeats its item's selector, so
// a long selector with many views cost their product: a reply of 140 KB
// (a 128 KiB selector and 1,000 views) took over a GiB and 20 s to parse.
// The views' URLs are bounded as a whole; every view is still listed.
func TestAttributeViewURLs(t *testing.T) {
	sel := strings.Repeat("\x01", 128<<10) // escaped to three bytes each
	const views = 1000
	data := "+INFO: 0doc\t" + sel + "\thost\t70\t+\r\n+VIEWS:\r\n" + strings.Repeat(" text/plain: <1k>\r\n", views)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	as, err := ParseAttributes([]byte(data))
	runtime.ReadMemStats(&after)
	if err != nil || len(as) != 1 {
		t.Fatalf("%d items, %v", len(as), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Errorf("parsing %d bytes allocated %d MiB", len(data), alloc>>20)
	}
	if n := len(as[0].Views); n != views {
		t.Errorf("%d views, want %d", n, views)
	}
	if want := URLString("host", 70, '0', sel, "", true, "+text/plain", true); as[0].Views[0].URL != want {
		t.Errorf("first view's URL of %d bytes, want %d", len(as[0].Views[0].URL), len(want))
	}
}

// formServer serves an item whose +ASK block is ask and records the
// answers; it ignores "!+ASK" when plain is set, as pygopherd does.
func formServer(t *testing.T, ask string, plain bool) *fakeServer {
	return newFake(t, func(_ int, req string, c net.Conn) {
		line, _, _ := strings.Cut(req, "\r\n")
		switch {
		case strings.HasSuffix(line, "\t!+ASK") && plain:
			io.WriteString(c, "the document itself\r\n")
		case strings.HasSuffix(line, "\t!+ASK"), strings.HasSuffix(line, "\t!"):
			io.WriteString(c, "+-2\r\n+INFO: 0form\t/form\th\t70\t?\r\n+ASK:\r\n"+ask)
		case strings.Contains(line, "\t+\t1"):
			io.WriteString(c, "+-1\r\nthanks\r\n.\r\n")
		default:
			io.WriteString(c, "--1\r\n1 x\r\nno form\r\n.\r\n")
		}
	})
}

func TestAskForm(t *testing.T) {
	const ask = " Ask: Name?\tGopher User\r\n AskP: Password?\r\n Note: Choose wisely\r\n Choose: Colour\tred\tgreen\tblue\r\n Select: Spam?:1\r\n AskL: Comments\r\n"
	tr := &traceLog{}
	f := formServer(t, ask, true)
	res, body, err := getWith(t, client(fetch.Options{
		Tracer:   tr,
		Prompter: fetch.Answers{"1": "Ann"}, // question 4 is left to its default
	}), f.url("0/form%09%09?"), fetch.Request{Form: map[string]string{"2": "s3cret", "Colour": "blue", "5": "one\ntwo\nthree"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "thanks\n" { // text, in local line ends
		t.Errorf("body %q", body)
	}
	reqs := f.requests()
	if len(reqs) != 3 || string(reqs[0]) != "/form\t!+ASK\r\n" || string(reqs[1]) != "/form\t!\r\n" {
		t.Fatalf("requests %q", reqs)
	}
	const want = "/form\t+\t1\r\n+-1\r\nAnn\r\ns3cret\r\nblue\r\n1\r\n3\r\none\r\ntwo\r\nthree\r\n.\r\n"
	if string(reqs[2]) != want {
		t.Errorf("form sent %q, want %q", reqs[2], want)
	}
	if strings.Contains(tr.String(), "s3cret") || !strings.Contains(tr.String(), "> ****") {
		t.Errorf("password in trace:\n%s", tr)
	}
	// With a password answered, the result URL does not carry the form.
	if res.URL.String() != f.url("0/form%09%09?") {
		t.Errorf("result URL %s", res.URL)
	}
}

func TestAskFormURL(t *testing.T) {
	f := formServer(t, " Ask: Name?\r\n Choose: Colour\tred\tgreen\r\n", false)
	c := client(fetch.Options{})
	res, _, err := getWith(t, c, f.url("0/form%09%09?"), fetch.Request{Form: map[string]string{"Name?": "Ann", "Colour": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	// The result URL is the §3.4.9 form URL; fetching it sends the same bytes.
	want := f.url("0/form%09%09+%091%0D%0A+-1%0D%0AAnn%0D%0Agreen%0D%0A.%0D%0A")
	if res.URL.String() != want {
		t.Fatalf("result URL %s, want %s", res.URL, want)
	}
	if _, _, err := get(t, c, res.URL.String()); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 3 || string(reqs[1]) != string(reqs[2]) {
		t.Errorf("requests %q", reqs)
	}
}

func TestAskFormErrors(t *testing.T) {
	cases := []struct {
		name string
		ask  string
		req  fetch.Request
		kind fetch.Kind
		is   error
	}{
		{"no answer", " AskP: Password?\r\n", fetch.Request{}, fetch.KindUsage, fetch.ErrNoAnswer},
		{"bad choice", " Choose: C\ta\tb\r\n", fetch.Request{Form: map[string]string{"1": "c"}}, fetch.KindUsage, nil},
		{"unsafe answer", " Ask: Q\r\n", fetch.Request{Form: map[string]string{"1": "a\rb"}}, fetch.KindPolicy, fetch.ErrUnsafeLine},
		{"lone dot", " Ask: Q\r\n", fetch.Request{Form: map[string]string{"1": "."}}, fetch.KindUsage, nil},
		{"file upload", " ChooseF: File\r\n", fetch.Request{}, fetch.KindUsage, nil},
		{"no form", " \r\n", fetch.Request{}, fetch.KindServer, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := formServer(t, tc.ask, false)
			_, _, err := getWith(t, client(fetch.Options{}), f.url("0/form%09%09?"), tc.req)
			if fetch.KindOf(err) != tc.kind || (tc.is != nil && !errors.Is(err, tc.is)) {
				t.Fatalf("err %v (kind %v), want kind %v", err, fetch.KindOf(err), tc.kind)
			}
			for _, r := range f.requests() {
				if strings.Contains(string(r), "+-1") {
					t.Errorf("sent a form: %q", r)
				}
			}
		})
	}
}

// TestMenuLineTooLong: a menu line past the 64 KiB bound, in a plain or a
// Gopher+ menu, before the listing is returned or while it streams, is
// refused as a size bound (exit 4) whose message names the bound and the
// menu line, as the README says of every driver; it was the server's
// fault (exit 6).
func TestMenuLineTooLong(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ name, path, reply string }{
		{"first line", "1/", "1" + long + "\t/a\th\t70\r\n.\r\n"},
		{"streamed", "1/", "1dir\t/d\th\t70\r\n0" + long + "\t/a\th\t70\r\n.\r\n"},
		{"gopher+ menu", "1/%09%09+", "+-1\r\n1dir\t/d\th\t70\r\ni" + long + "\r\n.\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, answerWith(tc.reply))
			_, _, err := get(t, client(fetch.Options{}), f.url(tc.path))
			k := fetch.KindOf(err)
			if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
				t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
			}
			for _, want := range []string{"menu line", "more than 65536 bytes"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

// Hostile servers: every failure is an error of the right kind, never a
// short document reported as complete, and nothing hangs.
func TestHostile(t *testing.T) {
	endless := func(_ int, _ string, c net.Conn) {
		buf := []byte(strings.Repeat("x", 32<<10))
		for i := 0; i < 64; i++ { // 2 MiB with no line end
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}
	stall := func(_ int, _ string, c net.Conn) {
		io.WriteString(c, "+-2\r\n0partial\t/p\th\t70\r\n")
		io.Copy(io.Discard, c) // until the client gives up
	}
	cases := []struct {
		name   string
		path   string
		answer func(int, string, net.Conn)
		opts   fetch.Options
		is     error
		kind   fetch.Kind
	}{
		{"endless menu line", "1/", endless, fetch.Options{}, fetch.ErrLineTooLong, fetch.KindPolicy},
		{"menu too large", "1/", func(_ int, _ string, c net.Conn) {
			buf := []byte(strings.Repeat("iflood\r\n", 4<<10))
			for i := 0; i < 64; i++ {
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}, fetch.Options{MaxSize: 100 << 10}, fetch.ErrTooLarge, fetch.KindPolicy},
		{"endless attributes", "0/x%09%09!", func(i int, s string, c net.Conn) {
			io.WriteString(c, "+-2\r\n")
			buf := []byte(strings.Repeat("+X:\r\n", 1<<12))
			for i := 0; i < 300; i++ {
				if _, err := c.Write(buf); err != nil {
					return
				}
			}
		}, fetch.Options{}, fetch.ErrTooLarge, fetch.KindPolicy},
		{"stall in menu", "1/%09%09+", stall, fetch.Options{IdleTimeout: 200 * time.Millisecond}, fetch.ErrTimeout, fetch.KindNetwork},
		{"stall in text", "0/t", func(_ int, _ string, c net.Conn) {
			io.WriteString(c, "some text\r\n")
			io.Copy(io.Discard, c) // until the client gives up
		}, fetch.Options{IdleTimeout: 200 * time.Millisecond}, fetch.ErrTimeout, fetch.KindNetwork},
		{"stall before reply", "9/b", func(_ int, _ string, c net.Conn) { io.Copy(io.Discard, c) },
			fetch.Options{IdleTimeout: 200 * time.Millisecond}, fetch.ErrTimeout, fetch.KindNetwork},
		{"plus length short", "9/b%09%09+", answerWith("+1000\r\nonly this"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"plus length short text", "0/t%09%09+", answerWith("+20\r\nshort\r\n.\r\n"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"plus dot missing", "0/t%09%09+", answerWith("+-1\r\nno terminator\r\n"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"plus dot missing mid line", "0/t%09%09+", answerWith("+-1\r\nno terminator"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"plus menu short", "1/%09%09+", answerWith("+500\r\n0a\t/a\th\t70\r\n"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"plus attributes short", "0/x%09%09!", answerWith("+500\r\n+INFO: 0a\t/a\th\t70\r\n"), fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"document too large", "9/b", endless, fetch.Options{MaxSize: 1000}, fetch.ErrTooLarge, fetch.KindPolicy},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, tc.answer)
			start := time.Now()
			_, _, err := get(t, client(tc.opts), f.url(tc.path))
			if !errors.Is(err, tc.is) || fetch.KindOf(err) != tc.kind {
				t.Fatalf("err %v (kind %v), want %v of kind %v", err, fetch.KindOf(err), tc.is, tc.kind)
			}
			if time.Since(start) > 10*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	f := newFake(t, func(_ int, _ string, c net.Conn) {
		io.WriteString(c, "start\r\n")
		io.Copy(io.Discard, c)
	})
	ctx, cancel := context.WithCancel(context.Background())
	res, err := client(fetch.Options{}).Fetch(ctx, f.url("0/t"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err = io.ReadAll(res.Document.Body)
	if err == nil || time.Since(start) > 2*time.Second {
		t.Fatalf("read after cancel: %v after %v", err, time.Since(start))
	}
}

func TestPortPolicy(t *testing.T) {
	// The client refuses another scheme's port before the driver runs.
	_, _, err := get(t, client(fetch.Options{}), "gopher://127.0.0.1:25/0x")
	if !errors.Is(err, fetch.ErrPortRefused) {
		t.Fatalf("err %v", err)
	}
}

func TestMalformedURL(t *testing.T) {
	for _, u := range []string{"gopher:/0x", "gopher://user@127.0.0.1:7070/0x", "gopher://127.0.0.1:7070/0%zz"} {
		_, _, err := get(t, client(fetch.Options{}), u)
		if fetch.KindOf(err) != fetch.KindMalformed {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestMenuItemBound: a menu within the byte bound but over the item bound
// is refused. The bound is lowered so that the test's work is a few
// thousand lines, whatever the machine's speed (issue #12, finding 8).
func TestMenuItemBound(t *testing.T) {
	old := maxMenuEntries
	maxMenuEntries = 1000
	t.Cleanup(func() { maxMenuEntries = old })
	f := newFake(t, func(_ int, _ string, c net.Conn) {
		io.WriteString(c, strings.Repeat("ix\r\n", 4*1000))
	})
	_, _, err := get(t, client(fetch.Options{}), f.url("1/"))
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), "1000 items") {
		t.Fatalf("err %v (kind %v), want %v of kind policy naming the bound", err, fetch.KindOf(err), fetch.ErrTooLarge)
	}
}

// TestMenuByteBoundReadAhead: the byte bound counts the menu's own lines,
// through its "." line, not what the reader fetched ahead: a short menu
// followed by other bytes is read, and a menu over the bound is refused.
func TestMenuByteBoundReadAhead(t *testing.T) {
	menu := "0a\t/a\th\t70\r\n.\r\n" // 15 bytes
	f := newFake(t, answerWith(menu+strings.Repeat("x", 200)))
	res, _, err := get(t, client(fetch.Options{MaxSize: 100}), f.url("1/"))
	if err != nil || res.Listing == nil {
		t.Fatalf("a 15-byte menu under a 100-byte bound: %v", err)
	}
	long := strings.Repeat("0a\t/a\th\t70\r\n", 10) + ".\r\n" // 133 bytes
	f = newFake(t, answerWith(long))
	if _, _, err := get(t, client(fetch.Options{MaxSize: 100}), f.url("1/")); !errors.Is(err, fetch.ErrTooLarge) {
		t.Errorf("a 133-byte menu under a 100-byte bound: %v, want %v", err, fetch.ErrTooLarge)
	}
}

// TestMenuStreams: a menu's entries reach the caller while the server is
// still sending, and closing the result mid-way releases the connection.
func TestMenuStreams(t *testing.T) {
	more := make(chan struct{})
	release := sync.OnceFunc(func() { close(more) })
	t.Cleanup(release) // registered after newFake's: runs before it waits
	gone := make(chan struct{})
	f := newFake(t, func(_ int, _ string, c net.Conn) {
		for i := range 300 {
			fmt.Fprintf(c, "0doc %d\t/d%d\th\t70\r\n", i, i)
		}
		<-more // the rest only after the client has read the first entries
		for i := range 100 {
			if _, err := fmt.Fprintf(c, "0late %d\t/l%d\th\t70\r\n", i, i); err != nil {
				break
			}
		}
		c.SetReadDeadline(time.Now().Add(time.Minute))
		io.Copy(io.Discard, c) // returns when the client closes
		close(gone)
	})
	res, err := client(fetch.Options{}).Fetch(context.Background(), f.url("1/"))
	if err != nil {
		t.Fatal(err)
	}
	l := res.Listing
	if !l.Streaming() {
		t.Fatal("the menu was read whole before the fetch returned")
	}
	for i := range 300 {
		if !l.Next() {
			t.Fatalf("entry %d: %v", i, l.Err())
		}
		if want := fmt.Sprintf("doc %d", i); l.Entry().Name != want {
			t.Fatalf("entry %d is %q, want %q", i, l.Entry().Name, want)
		}
	}
	release()
	if !l.Next() || l.Entry().Name != "late 0" {
		t.Fatalf("after the pause: %+v %v", l.Entry(), l.Err())
	}
	if err := res.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("the server's connection is still open after Result.Close")
	}
	if l.Next() {
		t.Error("Next after Close gave an entry")
	}
}

// TestAskFormOneWrite: a form's request reaches the server in one piece,
// however long its answers, for a server that reads once and answers
// from what it got (pygopherd answers from the selector line and closes).
func TestAskFormOneWrite(t *testing.T) {
	long := strings.Repeat("x", 10000) // past a 4 KiB write buffer
	var mu sync.Mutex
	var got []string
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			buf := make([]byte, 64<<10)
			n, _ := c.Read(buf) // one read, as the server answers from it
			req := string(buf[:n])
			line, _, _ := strings.Cut(req, "\r\n")
			switch {
			case strings.HasSuffix(line, "\t!+ASK"), strings.HasSuffix(line, "\t!"):
				io.WriteString(c, "+-2\r\n+INFO: 0form\t/form\th\t70\t?\r\n+ASK:\r\n Ask: Name?\r\n")
			default:
				mu.Lock()
				got = append(got, req)
				mu.Unlock()
				io.WriteString(c, "+-1\r\nthanks\r\n.\r\n")
			}
			c.Close()
		}
	})
	u := "gopher://" + ln.Addr().String() + "/0/form%09%09?"
	_, body, err := getWith(t, client(fetch.Options{}), u, fetch.Request{Form: map[string]string{"Name?": long}})
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "thanks\n" {
		t.Errorf("body %q", body)
	}
	want := "/form\t+\t1\r\n+-1\r\n" + long + "\r\n.\r\n"
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != want {
		n := 0
		if len(got) > 0 {
			n = len(got[0])
		}
		t.Errorf("the server's one read held %d bytes of the form request (%d requests), want all %d", n, len(got), len(want))
	}
}
