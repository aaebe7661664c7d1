package gopher

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// TestOneTabGopherPlus: "gopher://h/0sel%09+" and
// "gopher://h/0sel%09%09+" put the same bytes on the wire ("sel<tab>+",
// the empty search of the second being left out by sendsSearch), and a
// Gopher+ server answers both with a length line. The one-tab form was
// read as plain Gopher: the "+N" line went into the document as data,
// a "!" reply was returned as a document of raw bytes and a "$" reply
// was parsed as a menu of garbage.
func TestOneTabGopherPlus(t *testing.T) {
	for _, tc := range []struct {
		path, reply, sent, want string
	}{
		{"0/about.txt%09+", "+6\r\nhello\n", "/about.txt\t+\r\n", "hello\n"},
		{"9/b%09+", "+3\r\nbinEXTRA", "/b\t+\r\n", "bin"},
		{"0/about.txt%09!", "+-2\r\n+INFO: 0About\t/about.txt\th\t70\t+\r\n+ABSTRACT:\r\n Abs.\r\n", "/about.txt\t!\r\n", "+INFO: 0About\t/about.txt\th\t70\t+\r\n+ABSTRACT:\r\n Abs.\r\n"},
	} {
		f := newFake(t, answerWith(tc.reply))
		res, body, err := get(t, client(fetch.Options{}), f.url(tc.path))
		if err != nil {
			t.Errorf("%s: %v", tc.path, err)
			continue
		}
		if reqs := f.requests(); len(reqs) != 1 || string(reqs[0]) != tc.sent {
			t.Errorf("%s: sent %q, want %q", tc.path, reqs, tc.sent)
		}
		if string(body) != tc.want {
			t.Errorf("%s: body %q, want %q (the Gopher+ length line is not data)", tc.path, body, tc.want)
		}
		if strings.HasSuffix(tc.path, "!") && res.Document.MIMEType != AttributesMIMEType {
			t.Errorf("%s: MIME type %q, want %q", tc.path, res.Document.MIMEType, AttributesMIMEType)
		}
	}
	// A directory's "$" is attribute blocks, not a menu.
	f := newFake(t, answerWith("+-1\r\n+INFO: 1Main menu\t\t127.0.0.1\t70\r\n+VIEWS:\r\n application/gopher+-menu: <512b>\r\n.\r\n"))
	res, _, err := get(t, client(fetch.Options{}), f.url("1%09$"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.KindDocument || res.Document.MIMEType != AttributesMIMEType {
		t.Errorf("1%%09$: kind %s, want the attribute blocks as a document", res.Kind)
	}
	// A search keeps its words, whatever they start with.
	f = newFake(t, answerWith("0hit\t/hit\th\t70\r\n.\r\n"))
	res, _, err = get(t, client(fetch.Options{}), f.url("7/s%09+word"))
	if err != nil || res.Kind != fetch.KindListing || string(f.requests()[0]) != "/s\t+word\r\n" {
		t.Errorf("search +word: %v %v %q", err, res.Kind, f.requests())
	}
}

// TestTabInDisplayString: servers that put a tab in an item's
// display string send five or more fields with the port out of place.
// A selector can hold no tab (it ends the request's selector), so the
// fields are host, port and selector counted from the right (with the
// Gopher+ "+" or "?" last when present), the display string the rest.
// The link was lost: the item became a raw line with no URL, and an
// info line lost the text after its tab.
func TestTabInDisplayString(t *testing.T) {
	const menu = "0Name\twith tab\t/sel\th.example\t70\r\n" +
		"1Two\ttabs\there\t/dir\th.example\t7070\t+\r\n" +
		"iinfo\tsecond column\t\terror.host\t1\r\n" +
		"0Normal\t/n\th.example\t70\t+\textra field\r\n" +
		".\r\n"
	f := newFake(t, answerWith(menu))
	res, _, err := get(t, client(fetch.Options{}), f.url("1/"))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind      fetch.EntryKind
		name, url string
	}{
		{fetch.EntryFile, "Name\twith tab", "gopher://h.example/0/sel"},
		{fetch.EntryDir, "Two\ttabs\there", "gopher://h.example:7070/1/dir%09%09+"},
		{fetch.EntryText, "info\tsecond column", ""},
		{fetch.EntryFile, "Normal", "gopher://h.example/0/n%09%09+"},
	}
	es := res.Listing.Entries
	if len(es) != len(want) {
		t.Fatalf("%d entries: %+v", len(es), es)
	}
	for i, w := range want {
		if es[i].Kind != w.kind || es[i].Name != w.name || es[i].URL != w.url {
			t.Errorf("entry %d = %s %q %q, want %s %q %q", i, es[i].Kind, es[i].Name, es[i].URL, w.kind, w.name, w.url)
		}
	}
}

// TestDataFlagWithoutBlock: a Gopher+ string "+<tab>1" (a §3.4.9
// form URL cut after its request part) announces a data block
// (Gopher+ §2.4) that never follows. It was sent as is: a Gopher+ server
// waits for the block, the fetch waits for the reply, and the user gets
// a network timeout after the idle timeout instead of being told the URL
// is incomplete. It is refused before connecting.
func TestDataFlagWithoutBlock(t *testing.T) {
	// Like UMN gopherd, the fake reads the data block a request line
	// announces before it answers.
	f := newFake(t, answerWith("+5\r\nhello"))
	// (the flag is the field after the view, whatever follows it)
	for _, path := range []string{"0/form%09%09+%091", "0/form%09%09+text/plain%091", "0/form%09%09+%091%09x"} {
		_, _, err := get(t, client(fetch.Options{IdleTimeout: 2 * time.Second}), f.url(path))
		var fe *fetch.Error
		if err == nil || !errors.As(err, &fe) || fe.Kind != fetch.KindMalformed {
			t.Errorf("%s: %v, want a malformed URL refused before connecting", path, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
