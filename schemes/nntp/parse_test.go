package nntp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
)

func TestParseStatus(t *testing.T) {
	tests := []struct {
		line string
		code int
		text string
		bad  bool
	}{
		// RFC 3977 §3.2 examples and their neighbours.
		{line: "200 news.example.com server ready", code: 200, text: "news.example.com server ready"},
		{line: "211 1234 3000234 3002322 misc.test", code: 211, text: "1234 3000234 3002322 misc.test"},
		{line: "205", code: 205},
		{line: "480 ", code: 480},
		{line: "101\tlist", code: 101, text: "list"},
		{line: "20", bad: true},
		{line: "2000 ready", bad: true},
		{line: "abc ready", bad: true},
		{line: "600 too big", bad: true},
		{line: "099 too small", bad: true},
		{line: "", bad: true},
		{line: "/usr/lib/news/bin/nnrpd: error while loading shared libraries", bad: true},
	}
	for _, tc := range tests {
		code, text, err := parseStatus(tc.line)
		if tc.bad {
			if err == nil {
				t.Errorf("%q: no error (got %d %q)", tc.line, code, text)
			}
			continue
		}
		if err != nil || code != tc.code || text != tc.text {
			t.Errorf("%q: got %d %q %v, want %d %q", tc.line, code, text, err, tc.code, tc.text)
		}
	}
}

func TestParseOverview(t *testing.T) {
	// RFC 3977 §8.3.3's example line, and variants seen in the wild.
	ov, err := parseOverview("3000234\tI am just a test article\t\"Demo User\" <nobody@example.com>\t6 Oct 1998 04:38:40 -0500\t<45223423@example.com>\t<45454@example.net>\t1234\t17\tXref: news.example.com misc.test:3000363")
	if err != nil {
		t.Fatal(err)
	}
	want := overview{Number: 3000234, Subject: "I am just a test article", From: "\"Demo User\" <nobody@example.com>",
		Date: "6 Oct 1998 04:38:40 -0500", MessageID: "45223423@example.com", References: "<45454@example.net>", Bytes: 1234, Lines: 17}
	if ov != want {
		t.Errorf("got %+v\nwant %+v", ov, want)
	}
	if d := parseDate(ov.Date); !d.Equal(time.Date(1998, 10, 6, 9, 38, 40, 0, time.UTC)) {
		t.Errorf("date %v", d)
	}
	ov, err = parseOverview("7\tS\tF\tD\t<id@x>\t\tBytes: 99\t")
	if err != nil || ov.Bytes != 99 || ov.Lines != -1 {
		t.Errorf("got %+v %v", ov, err)
	}
	ov, err = parseOverview("8\tS\tF\tD\t<id@x>")
	if err != nil || ov.Bytes != -1 || ov.MessageID != "id@x" {
		t.Errorf("short line: %+v %v", ov, err)
	}
	for _, bad := range []string{"", "x\ta\tb\tc\td", "1\ta\tb\tc", "-1\ta\tb\tc\td"} {
		if _, err := parseOverview(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseActive(t *testing.T) {
	g, err := parseActive("misc.test 3002322 3000234 y")
	if err != nil || g != (activeGroup{Name: "misc.test", High: 3002322, Low: 3000234, Status: "y"}) {
		t.Errorf("got %+v %v", g, err)
	}
	g, err = parseActive("alt.old 0000000010 0000000001") // RFC 977 LIST without status
	if err != nil || g.High != 10 || g.Low != 1 {
		t.Errorf("got %+v %v", g, err)
	}
	for _, bad := range []string{"", "one two", "a x 1 y", "bad*name 1 1 y", "a 1 -1 y"} {
		if _, err := parseActive(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	name, desc, ok := parseNewsgroups("misc.test\tGeneral  testing.")
	if !ok || name != "misc.test" || desc != "General  testing." {
		t.Errorf("got %q %q %v", name, desc, ok)
	}
}

func TestEscapeMessageID(t *testing.T) {
	tests := []struct{ id, want string }{
		{"hello.1@fetch.test", "hello.1@fetch.test"},
		{"odd$id/with#chars@fetch.test", "odd$id%2Fwith%23chars@fetch.test"},
		{"a b%c?d@x", "a%20b%25c%3Fd@x"},
		{"x:y;z=w&v@x", "x:y;z=w&v@x"},
	}
	for _, tc := range tests {
		got := escapeMessageID(tc.id)
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.id, got, tc.want)
		}
		u, err := fetch.Parse("news:" + got)
		if err != nil {
			t.Errorf("%s does not parse: %v", got, err)
			continue
		}
		if n, err := ParseNewsURL(u); err == nil && n.MessageID != tc.id {
			t.Errorf("%s reads back as %q", got, n.MessageID)
		}
	}
}

// seedLines adds each line of testdata/name to f's corpus.
func seedLines(f *testing.F, name string) {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		f.Add(strings.TrimSuffix(l, "\r"))
	}
}

func FuzzParseStatus(f *testing.F) {
	seedLines(f, "status.txt")
	f.Fuzz(func(t *testing.T, line string) {
		code, _, err := parseStatus(line)
		if err == nil && (code < 100 || code > 599) {
			t.Fatalf("%q: code %d accepted", line, code)
		}
	})
}

func FuzzParseOverview(f *testing.F) {
	seedLines(f, "overview.txt")
	f.Fuzz(func(t *testing.T, line string) {
		ov, err := parseOverview(line)
		if err != nil {
			return
		}
		if ov.Number < 0 || ov.Bytes < -1 || ov.Lines < -1 {
			t.Fatalf("%q: %+v", line, ov)
		}
		// Whatever the id, the URL made of it must parse and read back.
		if ov.MessageID != "" && strings.Contains(ov.MessageID, "@") {
			u, err := fetch.Parse("news:" + escapeMessageID(ov.MessageID))
			if err != nil {
				t.Fatalf("%q: URL %v", ov.MessageID, err)
			}
			if n, err := ParseNewsURL(u); err == nil && n.MessageID != "" && n.MessageID != ov.MessageID {
				t.Fatalf("%q reads back as %q", ov.MessageID, n.MessageID)
			}
		}
		parseDate(ov.Date)
		decodeWords(ov.Subject)
	})
}

func FuzzParseActive(f *testing.F) {
	seedLines(f, "active.txt")
	f.Fuzz(func(t *testing.T, line string) {
		g, err := parseActive(line)
		if err == nil {
			if !validGroupName(g.Name) || g.High < 0 || g.Low < 0 {
				t.Fatalf("%q: %+v", line, g)
			}
			u, err := fetch.Parse("news:" + fetch.Escape(g.Name, ""))
			if err != nil {
				t.Fatalf("%q: URL %v", g.Name, err)
			}
			_ = u
		}
		parseNewsgroups(line)
	})
}

// FuzzArticle serves arbitrary bytes as the reply to ARTICLE: the driver
// must return an error or a document, never hang or panic, and a body
// read to its end must have come from a block closed by ".".
func FuzzArticle(f *testing.F) {
	f.Add([]byte("220 0 <a@b>\r\nSubject: x\r\n\r\nbody\r\n.\r\n"))
	f.Add([]byte("220 0 <a@b>\r\nSubject: x\r\n\r\nbody\r\n"))
	f.Add([]byte("220 0 <a@b>\r\n.\r\n"))
	f.Add([]byte("220 0 <a@b>\r\nX: y\r\n\tz\r\n..\r\n.\r\n"))
	f.Add([]byte("430 no\r\n"))
	f.Add([]byte("480 auth\r\n"))
	f.Add([]byte("2"))
	f.Fuzz(func(t *testing.T, reply []byte) {
		cconn, server := net.Pipe()
		go func() {
			defer server.Close()
			br := bufio.NewReader(server)
			io.WriteString(server, "200 fuzz\r\n")
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				switch {
				case strings.HasPrefix(line, "CAPABILITIES"):
					io.WriteString(server, "500 no\r\n")
				case strings.HasPrefix(line, "ARTICLE"):
					server.Write(reply)
					return
				default:
					io.WriteString(server, "500 no\r\n")
				}
			}
		}()
		c := client(fetch.Options{Dialer: pipeDialer{cconn}, IdleTimeout: time.Second}, Config{Server: "127.0.0.1:1119"})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := c.Fetch(ctx, "news:a@b")
		if err != nil {
			return
		}
		defer res.Close()
		body, err := io.ReadAll(res.Document.Body)
		if err == nil && !bytes.Contains(reply, []byte("\n.")) && !bytes.HasPrefix(reply, []byte(".")) {
			t.Fatalf("body %q read to its end without a \".\" line in %q", body, reply)
		}
	})
}

type pipeDialer struct{ c net.Conn }

func (p pipeDialer) DialContext(context.Context, string, string) (net.Conn, error) { return p.c, nil }

// TestParseHeaderFoldedLinear: a header of many continuation lines (an
// article's header is read up to maxHeaderBytes, and the HEAD fallback of
// a listing reads one per article) costs memory in proportion to its
// size. Appending each continuation to the value copied the value every
// time: 32,768 two-byte lines allocated a GiB and took seconds.
func TestParseHeaderFoldedLinear(t *testing.T) {
	const n = 1 << 15
	lines := []string{"Subject: s"}
	for range n {
		lines = append(lines, "\ta")
	}
	lines = append(lines, "From: f", " g")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := parseHeader(lines)
	runtime.ReadMemStats(&after)
	if got, want := h.Get("Subject"), "s"+strings.Repeat(" a", n); got != want {
		t.Errorf("Subject of %d bytes, want %d", len(got), len(want))
	}
	if got := h.Get("From"); got != "f g" {
		t.Errorf("From %q, want %q", got, "f g")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("parsing a header of %d bytes allocated %d MiB", 3*n, alloc>>20)
	}
}

// TestHeadFields: the fields a listing keeps of an article's header are
// unfolded as parseHeader unfolds them, the first of each name is kept,
// a long one is cut at maxHeadField on a character boundary, and a
// Message-ID that long is dropped rather than cut.
func TestHeadFields(t *testing.T) {
	long := "x" + strings.Repeat("é", maxHeadField) // "é" is two bytes: the bound falls within one
	var h headFields
	for _, l := range []string{
		"subject:  Hello", "\tnews ", "X-Other: x", " folded",
		"Subject: second", "From: " + long, "Message-ID: <" + long + "@x>",
		"Date: Mon, 02 Nov 2026 10:00:00 +0000", "bytes: 42", "Lines: x",
	} {
		h.line(l)
	}
	ov := h.overview(7)
	if ov.Number != 7 || ov.Subject != "Hello news" || ov.Date != "Mon, 02 Nov 2026 10:00:00 +0000" || ov.Bytes != 42 || ov.Lines != -1 {
		t.Errorf("overview %+v", ov)
	}
	if ov.From != long[:maxHeadField-1] {
		t.Errorf("From of %d bytes (valid UTF-8: %v), want the first %d", len(ov.From), utf8.ValidString(ov.From), maxHeadField-1)
	}
	if ov.MessageID != "" {
		t.Errorf("a Message-ID cut to %d bytes was kept", len(ov.MessageID))
	}

	// Past maxHeaderBytes of header, no more fields are read.
	h = headFields{}
	h.line("X-Pad: " + strings.Repeat("p", maxHeaderBytes))
	h.line("Subject: late")
	if ov := h.overview(1); ov.Subject != "" {
		t.Errorf("a Subject past %d bytes of header was read: %q", maxHeaderBytes, ov.Subject)
	}
}
