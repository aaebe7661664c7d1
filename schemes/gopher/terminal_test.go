package gopher

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// TestTextLineEnds: a text item is the same bytes whether the server ends
// lines with CR LF (gophernicus) or LF (pygopherd); Raw keeps the wire's.
func TestTextLineEnds(t *testing.T) {
	crlf := newFake(t, answerWith("one\r\ntwo\r\n.\r\n"))
	lf := newFake(t, answerWith("one\ntwo\n"))
	_, a, err := get(t, client(fetch.Options{}), crlf.url("0/t"))
	if err != nil {
		t.Fatal(err)
	}
	_, b, err := get(t, client(fetch.Options{}), lf.url("0/t"))
	if err != nil {
		t.Fatal(err)
	}
	if string(a) != "one\ntwo\n" || string(a) != string(b) {
		t.Errorf("CR LF server gave %q, LF server %q; want both %q", a, b, "one\ntwo\n")
	}
	_, raw, err := getWith(t, client(fetch.Options{}), crlf.url("0/t"), fetch.Request{Raw: true})
	if err != nil || string(raw) != "one\r\ntwo\r\n.\r\n" {
		t.Errorf("raw: %q, %v", raw, err)
	}
	// Binary items are never touched.
	bin := newFake(t, answerWith("a\r\nb"))
	if _, got, err := get(t, client(fetch.Options{}), bin.url("9/b")); err != nil || string(got) != "a\r\nb" {
		t.Errorf("binary: %q, %v", got, err)
	}
}

// onlyBang answers like pygopherd: "!" and "$" with attribute blocks, a
// request naming blocks with the document itself.
func onlyBang(doc, attrs string) func(int, string, net.Conn) {
	return func(_ int, req string, c net.Conn) {
		line := strings.TrimRight(req, "\r\n")
		if strings.HasSuffix(line, "\t!") || strings.HasSuffix(line, "\t$") {
			c.Write([]byte("+-2\r\n" + attrs))
			return
		}
		c.Write([]byte(doc))
	}
}

const fallbackAttrs = "+INFO: 0About\t/about.txt\thost\t70\t+\r\n" +
	"+ADMIN:\r\n Admin: A <a@b.c>\r\n" +
	"+ABSTRACT:\r\n The abstract.\r\n" +
	"+INFO: 0Other\t/other\thost\t70\t+\r\n" +
	"+ABSTRACT:\r\n Other abstract.\r\n"

// TestAttributeFallback: a server that answers "!+ABSTRACT" with the
// document is asked for "!" and the block is chosen here; the same for "$".
func TestAttributeFallback(t *testing.T) {
	for _, tc := range []struct{ path, plain, want string }{
		{"0/about.txt%09%09!+ABSTRACT", "/about.txt\t!\r\n", "+INFO: 0About\t/about.txt\thost\t70\t+\r\n+ABSTRACT:\r\n The abstract.\r\n+INFO: 0Other\t/other\thost\t70\t+\r\n+ABSTRACT:\r\n Other abstract.\r\n"},
		{"1/%09%09$+ADMIN", "/\t$\r\n", "+INFO: 0About\t/about.txt\thost\t70\t+\r\n+ADMIN:\r\n Admin: A <a@b.c>\r\n+INFO: 0Other\t/other\thost\t70\t+\r\n"},
	} {
		f := newFake(t, onlyBang("This is the document, not its abstract.\r\n", fallbackAttrs))
		var log traceLog
		res, body, err := get(t, client(fetch.Options{Tracer: &log}), f.url(tc.path))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if string(body) != tc.want || res.Document.MIMEType != AttributesMIMEType {
			t.Errorf("%s: body %q (%s), want %q", tc.path, body, res.Document.MIMEType, tc.want)
		}
		reqs := f.requests()
		if len(reqs) != 2 || string(reqs[1]) != tc.plain {
			t.Errorf("%s: requests %q, want the named one then the plain one", tc.path, reqs)
		}
		if !strings.Contains(log.String(), "not an attribute block") {
			t.Errorf("%s: no trace of the fallback:\n%s", tc.path, log.String())
		}
	}

	// A server that ignores the names and sends every block (gophernicus):
	// one request, the named blocks kept.
	f := newFake(t, answerWith("+-2\r\n"+fallbackAttrs))
	_, body, err := get(t, client(fetch.Options{}), f.url("0/about.txt%09%09!+ABSTRACT"))
	if err != nil || strings.Contains(string(body), "+ADMIN") || !strings.Contains(string(body), "The abstract.") || len(f.requests()) != 1 {
		t.Errorf("all blocks sent: %q, %v, %d requests", body, err, len(f.requests()))
	}

	// A server with no attributes at all for the item: an error, not the
	// document passed off as attributes.
	f = newFake(t, answerWith("just the document\r\n"))
	_, _, err = get(t, client(fetch.Options{}), f.url("0/about.txt%09%09!+ABSTRACT"))
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "attribute") {
		t.Errorf("no attributes: %v", err)
	}
	_, _, err = get(t, client(fetch.Options{}), f.url("0/about.txt%09%09!"))
	if fetch.KindOf(err) != fetch.KindServer {
		t.Errorf("no attributes for !: %v", err)
	}
}

// TestEmptyReply: a server that sends nothing gives a warning, or an
// error with FailEmpty.
func TestEmptyReply(t *testing.T) {
	f := newFake(t, answerWith(""))
	var log traceLog
	_, body, err := get(t, client(fetch.Options{Tracer: &log}), f.url("0/t"))
	if err != nil || len(body) != 0 {
		t.Fatalf("empty reply: %q, %v", body, err)
	}
	if !strings.Contains(log.String(), "warning: "+f.url("0/t")+": the server sent nothing") {
		t.Errorf("no warning:\n%s", log.String())
	}
	c := fetch.NewClient(fetch.Options{})
	c.Register("gopher", New(Config{FailEmpty: true}))
	_, err = c.Fetch(context.Background(), f.url("1/menu"))
	if !errors.Is(err, ErrEmpty) || fetch.KindOf(err) != fetch.KindServer {
		t.Errorf("FailEmpty: %v", err)
	}
	// A reply of one byte is not empty.
	f = newFake(t, answerWith("x"))
	var log2 traceLog
	if _, body, err := get(t, client(fetch.Options{Tracer: &log2}), f.url("0/t")); err != nil || string(body) != "x" || strings.Contains(log2.String(), "warning") {
		t.Errorf("one byte: %q, %v, %s", body, err, log2.String())
	}
}
