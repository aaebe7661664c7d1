package fetch

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// parseCase is one URL and the parts Parse must find in it.
type parseCase struct {
	in   string
	want URL
	str  string // String(); "" means the input itself
}

// parseCases are the spec's own examples first, then the edges.
var parseCases = []parseCase{
	// RFC 1738 §3.1: "<URL:ftp://@host.com/> has an empty user name and no
	// password, <URL:ftp://host.com/> has no user name, while
	// <URL:ftp://foo:@host.com/> has a user name of "foo" and an empty
	// password."
	{in: "<URL:ftp://@host.com/>", str: "ftp://@host.com/",
		want: URL{Scheme: "ftp", Slashes: true, HasUser: true, Host: "host.com", HasPath: true}},
	{in: "<URL:ftp://host.com/>", str: "ftp://host.com/",
		want: URL{Scheme: "ftp", Slashes: true, Host: "host.com", HasPath: true}},
	{in: "<URL:ftp://foo:@host.com/>", str: "ftp://foo:@host.com/",
		want: URL{Scheme: "ftp", Slashes: true, User: "foo", HasUser: true, HasPassword: true, Host: "host.com", HasPath: true}},
	// RFC 1738 §3.2.2: "<URL:ftp://myname@host.dom/%2Fetc/motd> is
	// interpreted by ... executing "CWD /etc" and then "RETR motd"."
	{in: "<URL:ftp://myname@host.dom/%2Fetc/motd>", str: "ftp://myname@host.dom/%2Fetc/motd",
		want: URL{Scheme: "ftp", Slashes: true, User: "myname", HasUser: true, Host: "host.dom", Path: "%2Fetc/motd", HasPath: true}},
	{in: "ftp://myname@host.dom/etc/motd",
		want: URL{Scheme: "ftp", Slashes: true, User: "myname", HasUser: true, Host: "host.dom", Path: "etc/motd", HasPath: true}},
	// "<URL:ftp://myname@host.dom//etc/motd>, would "CWD " with a null
	// argument, then "CWD etc", and then "RETR motd"."
	{in: "ftp://myname@host.dom//etc/motd",
		want: URL{Scheme: "ftp", Slashes: true, User: "myname", HasUser: true, Host: "host.dom", Path: "/etc/motd", HasPath: true}},
	// RFC 1738 references: "<URL:ftp://ds.internic.net/rfc/rfc1436.txt;type=a>"
	{in: "<URL:ftp://ds.internic.net/rfc/rfc1436.txt;type=a>", str: "ftp://ds.internic.net/rfc/rfc1436.txt;type=a",
		want: URL{Scheme: "ftp", Slashes: true, Host: "ds.internic.net", Path: "rfc/rfc1436.txt;type=a", HasPath: true}},
	{in: "ftp://user:pa%3Ass%40w@ftp.example.com:2121/pub/",
		want: URL{Scheme: "ftp", Slashes: true, User: "user", Password: "pa:ss@w", HasUser: true, HasPassword: true,
			Host: "ftp.example.com", Port: 2121, Path: "pub/", HasPath: true}},
	// RFC 1738 §3.3: http://<host>:<port>/<path>?<searchpart>
	{in: "http://info.cern.ch:8000/imaginary/test", // RFC 1630
		want: URL{Scheme: "http", Slashes: true, Host: "info.cern.ch", Port: 8000, Path: "imaginary/test", HasPath: true}},
	{in: "http://www.myu.edu/org/admin/people#andy", // RFC 1630: "#andy" is not sent
		want: URL{Scheme: "http", Slashes: true, Host: "www.myu.edu", Path: "org/admin/people", HasPath: true, Fragment: "andy", HasFragment: true}},
	{in: "http://info.my.org/AboutUs/Index/Phonebook?dobbins", // RFC 1630
		want: URL{Scheme: "http", Slashes: true, Host: "info.my.org", Path: "AboutUs/Index/Phonebook?dobbins", HasPath: true}},
	{in: "http://www.library.my.town.va.us/Catalogue/76523471236%2Fwen44--4.98", // RFC 1630
		want: URL{Scheme: "http", Slashes: true, Host: "www.library.my.town.va.us", Path: "Catalogue/76523471236%2Fwen44--4.98", HasPath: true}},
	{in: "http://www.my.org/462F4F2D4241522A314159265358979323846", // RFC 1630
		want: URL{Scheme: "http", Slashes: true, Host: "www.my.org", Path: "462F4F2D4241522A314159265358979323846", HasPath: true}},
	{in: "HTTP://WWW.My.Work.COM/", str: "http://www.my.work.com/",
		want: URL{Scheme: "http", Slashes: true, Host: "www.my.work.com", HasPath: true}},
	{in: "http://h", want: URL{Scheme: "http", Slashes: true, Host: "h"}},
	{in: "http://h?q=1", want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "?q=1"}},
	{in: "http://h:/", str: "http://h/", want: URL{Scheme: "http", Slashes: true, Host: "h", HasPath: true}},
	{in: "http://h:80/", want: URL{Scheme: "http", Slashes: true, Host: "h", Port: 80, HasPath: true}},
	{in: "http://h:65535/", want: URL{Scheme: "http", Slashes: true, Host: "h", Port: 65535, HasPath: true}},
	{in: "http://h:00080/", str: "http://h:80/", want: URL{Scheme: "http", Slashes: true, Host: "h", Port: 80, HasPath: true}},
	{in: "http://10.0.0.1/", want: URL{Scheme: "http", Slashes: true, Host: "10.0.0.1", HasPath: true}},
	{in: "http://3com.com/", want: URL{Scheme: "http", Slashes: true, Host: "3com.com", HasPath: true}},
	{in: "http://example.com./", want: URL{Scheme: "http", Slashes: true, Host: "example.com.", HasPath: true}},
	// IPv6 literals, stored without brackets, in canonical form.
	{in: "http://[::1]:8080/x", want: URL{Scheme: "http", Slashes: true, Host: "::1", Port: 8080, Path: "x", HasPath: true}},
	{in: "http://[2001:DB8:0:0::1]/", str: "http://[2001:db8::1]/",
		want: URL{Scheme: "http", Slashes: true, Host: "2001:db8::1", HasPath: true}},
	// Internationalized names, raw or %-encoded UTF-8, become A-labels.
	{in: "http://bücher.example/", str: "http://xn--bcher-kva.example/",
		want: URL{Scheme: "http", Slashes: true, Host: "xn--bcher-kva.example", HasPath: true}},
	{in: "http://B%C3%BCcher.example/", str: "http://xn--bcher-kva.example/",
		want: URL{Scheme: "http", Slashes: true, Host: "xn--bcher-kva.example", HasPath: true}},
	{in: "http://XN--BCHER-KVA.example/", str: "http://xn--bcher-kva.example/",
		want: URL{Scheme: "http", Slashes: true, Host: "xn--bcher-kva.example", HasPath: true}},
	{in: "http://例え.テスト/", str: "http://xn--r8jz45g.xn--zckzah/",
		want: URL{Scheme: "http", Slashes: true, Host: "xn--r8jz45g.xn--zckzah", HasPath: true}},
	// Unsafe characters are tolerated and stored encoded; escapes are kept
	// as written (lower-case hex stays).
	{in: "http://h/~joe/{x}|^`[]\"", str: "http://h/%7Ejoe/%7Bx%7D%7C%5E%60%5B%5D%22",
		want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "%7Ejoe/%7Bx%7D%7C%5E%60%5B%5D%22", HasPath: true}},
	{in: "http://h/caf\xc3\xa9/%2f", str: "http://h/caf%C3%A9/%2f",
		want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "caf%C3%A9/%2f", HasPath: true}},
	{in: "http://h/a#b#c", str: "http://h/a#b%23c",
		want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "a", HasPath: true, Fragment: "b%23c", HasFragment: true}},
	{in: "http://h/#", want: URL{Scheme: "http", Slashes: true, Host: "h", HasPath: true, HasFragment: true}},
	// Wrappers and whitespace (RFC 1738 Appendix).
	{in: "  \tURL:http://h/x\n", str: "http://h/x", want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "x", HasPath: true}},
	{in: "<http://h/x>", str: "http://h/x", want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "x", HasPath: true}},
	{in: "< URL: http://h/x >", str: "http://h/x", want: URL{Scheme: "http", Slashes: true, Host: "h", Path: "x", HasPath: true}},
	// RFC 1738 §3.4 gopher, with the gopher+ forms of §3.4.4-3.4.9.
	{in: "gopher://gopher.micro.umn.edu/00/Information%20About%20Gopher/About%20Gopher", // RFC 1630 reference
		want: URL{Scheme: "gopher", Slashes: true, Host: "gopher.micro.umn.edu", Path: "00/Information%20About%20Gopher/About%20Gopher", HasPath: true}},
	{in: "gopher://h", want: URL{Scheme: "gopher", Slashes: true, Host: "h"}},
	{in: "gopher://h:7070/7search%09dogs", want: URL{Scheme: "gopher", Slashes: true, Host: "h", Port: 7070, Path: "7search%09dogs", HasPath: true}},
	{in: "gopher://h/1sel%09%09+", want: URL{Scheme: "gopher", Slashes: true, Host: "h", Path: "1sel%09%09+", HasPath: true}},
	{in: "gopher://h/0sel%09%09!+ABSTRACT%20+SMELL", want: URL{Scheme: "gopher", Slashes: true, Host: "h", Path: "0sel%09%09!+ABSTRACT%20+SMELL", HasPath: true}},
	{in: "gopher://h/1sel%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0Ano%0D%0A.%0D%0A",
		want: URL{Scheme: "gopher", Slashes: true, Host: "h", Path: "1sel%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0Ano%0D%0A.%0D%0A", HasPath: true}},
	// RFC 1738 §3.5-3.11
	{in: "mailto:joe@example.com", want: URL{Scheme: "mailto", Opaque: "joe@example.com"}},
	{in: "MAILTO:Joe%25gw@example.com", str: "mailto:Joe%25gw@example.com", want: URL{Scheme: "mailto", Opaque: "Joe%25gw@example.com"}},
	{in: "<URL:news:*>", str: "news:*", want: URL{Scheme: "news", Opaque: "*"}}, // §3.6
	{in: "news:comp.infosystems.www.misc", want: URL{Scheme: "news", Opaque: "comp.infosystems.www.misc"}},
	{in: "news:12345667123@info.cern.ch", want: URL{Scheme: "news", Opaque: "12345667123@info.cern.ch"}},
	{in: "nntp://news.example.com:119/comp.lang.go/1234",
		want: URL{Scheme: "nntp", Slashes: true, Host: "news.example.com", Port: 119, Path: "comp.lang.go/1234", HasPath: true}},
	{in: "telnet://guest:guest@bbs.example.com:2323/",
		want: URL{Scheme: "telnet", Slashes: true, User: "guest", Password: "guest", HasUser: true, HasPassword: true, Host: "bbs.example.com", Port: 2323, HasPath: true}},
	{in: "telnet://bbs.example.com", want: URL{Scheme: "telnet", Slashes: true, Host: "bbs.example.com"}},
	{in: "wais://quake.think.com/wais-discussion-archives?lynch", // RFC 1630 reference
		want: URL{Scheme: "wais", Slashes: true, Host: "quake.think.com", Path: "wais-discussion-archives?lynch", HasPath: true}},
	{in: "wais://h:210/db/TEXT/0-1234", want: URL{Scheme: "wais", Slashes: true, Host: "h", Port: 210, Path: "db/TEXT/0-1234", HasPath: true}},
	// RFC 1738 §3.10: "<URL:file://vms.host.edu/disk$user/my/notes/note12345.txt>"
	{in: "<URL:file://vms.host.edu/disk$user/my/notes/note12345.txt>", str: "file://vms.host.edu/disk$user/my/notes/note12345.txt",
		want: URL{Scheme: "file", Slashes: true, Host: "vms.host.edu", Path: "disk$user/my/notes/note12345.txt", HasPath: true}},
	{in: "file:///etc/motd", want: URL{Scheme: "file", Slashes: true, Path: "etc/motd", HasPath: true}},
	{in: "file://localhost/etc/motd", want: URL{Scheme: "file", Slashes: true, Host: "localhost", Path: "etc/motd", HasPath: true}},
	{in: "file:/etc/motd", want: URL{Scheme: "file", Opaque: "/etc/motd"}},
	// RFC 1738 §3.11: "<URL:prospero://host.dom//pros/name> designates a
	// <hsoname> of "/pros/name"."
	{in: "<URL:prospero://host.dom//pros/name>", str: "prospero://host.dom//pros/name",
		want: URL{Scheme: "prospero", Slashes: true, Host: "host.dom", Path: "/pros/name", HasPath: true}},
	{in: "prospero://host.dom:1525/pros/name;OBJECT-VERSION=3",
		want: URL{Scheme: "prospero", Slashes: true, Host: "host.dom", Port: 1525, Path: "pros/name;OBJECT-VERSION=3", HasPath: true}},
	// Other schemes: RFC 1738 §4, RFC 1630.
	{in: "x-foo:bar", want: URL{Scheme: "x-foo", Opaque: "bar"}},
	{in: "urn:/iana/dns/ch/cern/cn/techdoc/94/1642-3", want: URL{Scheme: "urn", Opaque: "/iana/dns/ch/cern/cn/techdoc/94/1642-3"}},
	{in: "magic://a/b/c//d/e/f", want: URL{Scheme: "magic", Slashes: true, Host: "a", Path: "b/c//d/e/f", HasPath: true}},
	{in: "x-foo:///bar", want: URL{Scheme: "x-foo", Slashes: true, Path: "bar", HasPath: true}},
	{in: "z39.50+x-y:q", want: URL{Scheme: "z39.50+x-y", Opaque: "q"}},
	{in: "mailto:", want: URL{Scheme: "mailto"}},
}

func TestParse(t *testing.T) {
	for _, c := range parseCases {
		u, err := testParse(c.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if *u != c.want {
			t.Errorf("Parse(%q)\n got %+v\nwant %+v", c.in, *u, c.want)
		}
		want := c.str
		if want == "" {
			want = c.in
		}
		if got := u.String(); got != want {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got, want)
		}
	}
}

// TestRoundTrip: the canonical form parses back to the same parts.
func TestRoundTrip(t *testing.T) {
	for _, c := range parseCases {
		u, err := testParse(c.in)
		if err != nil {
			continue
		}
		v, err := testParse(u.String())
		if err != nil {
			t.Errorf("Parse(%q) of String of %q: %v", u.String(), c.in, err)
			continue
		}
		if *u != *v {
			t.Errorf("round trip of %q\n got %+v\nwant %+v", c.in, *v, *u)
		}
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		in     string
		part   string
		offset int
	}{
		{"", "scheme", 0},
		{"no-scheme-here", "scheme", 0},
		{":foo", "scheme", 0},
		{"URL:URL:a:b", "scheme", 4},
		{"url:foo", "scheme", 0},
		{"1http://h/", "scheme", 0},
		{"ht_tp://h/", "scheme", 2},
		{"  ht tp://h/", "scheme", 4},
		// Ports: 0 and 65536 are not ports (offset of the port's digits).
		{"http://h:0/", "port", 9},
		{"http://h:65536/", "port", 9},
		{"http://h:99999999999999999999/", "port", 9},
		{"http://h:8a/", "port", 10},
		{"http://h:-1/", "port", 9},
		{"http://[::1]:0/", "port", 13},
		{"<URL:http://h:0/>", "port", 14},
		// Bad escapes (RFC 1630 Example 3 and truncated ones), at the "%".
		{"http://h/%", "path", 9},
		{"http://h/%4", "path", 9},
		{"http://h/a%zz", "path", 10},
		{"fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", "opaque", 36},
		{"news:12345667123%asdghfh@info.cern.ch", "opaque", 16},
		{"http://info.cern.ch/RDB/EMP?*%20where%20name%%3Ddobbins", "path", 44}, // RFC 1630's "%%3D"
		{"http://h/x#a%g1", "fragment", 12},
		{"ftp://us%er@h/", "user", 8},
		{"ftp://u:p%@h/", "password", 8}, // the start of the mask, "ftp://u:****@h/"
		// Bare space and controls.
		{"http://h/a b", "path", 10},
		{"http://h/a\x01b", "path", 10},
		{"http://h/a\x7fb", "path", 10},
		{"http://h/a\tb", "path", 10},
		{"mailto:a b@c", "opaque", 8},
		{"http://h/#a b", "fragment", 11},
		// Hosts.
		{"http:///path", "host", 7},
		{"http://", "host", 7},
		{"ftp://u@/x", "host", 8},
		{"x-foo://u@/x", "host", 10},
		{"http://h_h/", "host", 8},
		{"http://-h.com/", "host", 7},
		{"http://h-.com/", "host", 7},
		{"http://a..b/", "host", 9},
		{"http://example.123/", "host", 15},
		{"http://1.2.3/", "host", 7},
		{"http://256.1.1.1/", "host", 7},
		{"http://01.1.1.1/", "host", 7},
		{"http://h%zz/", "host", 8},
		{"http://h%20x/", "host", 7},
		{"http://[::1/", "host", 7},
		{"http://[1.2.3.4]/", "host", 8},
		{"http://[fe80::1%25eth0]/", "host", 8},
		{"http://[::1]x/", "host", 12},
		{"http://a:b:c/", "port", 9},
		{"http://" + strings.Repeat("a", 64) + ".com/", "host", 7},
		{"http://xn--a.com/", "host", 7},
		{"http://\xff.com/", "host", 7},
		{"ftp://a@b@h/", "user", 7},
		{"ftp://a:b:c@d@h/", "password", 8}, // the start of the mask, "ftp://a:****@h/"
		// Two faults: the first in the URL's order is the one reported,
		// though the fragment and the path are read before the host.
		{"http://h/a # c", "path", 10},
		{"http://h:x/a b#c d", "port", 9},
		{"http://a@b@h/a b", "user", 8},
		{"news:a b#c d", "opaque", 6},
		{"http://h/a#c d", "fragment", 12},
	}
	for _, c := range cases {
		u, err := testParse(c.in)
		if err == nil {
			t.Errorf("Parse(%q) = %+v, want a %s error", c.in, *u, c.part)
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q): %T is not *Error", c.in, err)
			continue
		}
		if e.Kind != KindMalformed || e.Op != "parse" || e.Part != c.part || e.Offset != c.offset {
			t.Errorf("Parse(%q): kind %v op %q part %q offset %d (%v); want part %q offset %d",
				c.in, e.Kind, e.Op, e.Part, e.Offset, err, c.part, c.offset)
		}
	}
}

// TestParseErrorMasksPassword: an error never shows the password.
func TestParseErrorMasksPassword(t *testing.T) {
	_, err := testParse("ftp://joe:secret@host.com:0/")
	if err == nil {
		t.Fatal("want an error")
	}
	var e *Error
	if !errors.As(err, &e) || e.URL != "ftp://joe:****@host.com:0/" || strings.Contains(err.Error(), "secret") {
		t.Errorf("error %q (URL %q) shows the password", err, e.URL)
	}
}

// TestRedactedText: the text of a URL that does not parse loses its
// password too.
func TestRedactedText(t *testing.T) {
	for in, want := range map[string]string{
		"ftp://joe:secret@host.com:99999/x": "ftp://joe:****@host.com:99999/x",
		"ftp://joe:secret@[::1/x":           "ftp://joe:****@[::1/x",
		"ftp://joe:se/cr?et@host/x":         "ftp://joe:****@host/x",
		"http://joe:secret@h/x\tmore":       "http://joe:****@h/x\tmore",
		"ftp://joe@host/x":                  "ftp://joe@host/x",
		"ftp://joe:@host/x":                 "ftp://joe:@host/x",
		"news:joe:secret@host":              "news:joe:secret@host", // a message-id, no password
		"ftp:/joe:secret@host/x":            "ftp:/joe:****@host/x",
		"http:joe:secret@host/x":            "http:joe:****@host/x",
		"not a url":                         "not a url",
	} {
		if got := RedactedText(in); got != want {
			t.Errorf("RedactedText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRedactedUnknown: the text of a URL of a scheme no driver has hides
// curl's "user:password@host/path" too, and what RedactedText hides; an
// "@" further on than the first "/" is no login's.
func TestRedactedUnknown(t *testing.T) {
	for in, want := range map[string]string{
		"joe:secret@host/x":          "joe:****@host/x",
		"joe:se@cr?et@host/x":        "joe:****@host/x",
		"joe:secret@host":            "joe:****@host",
		"sftp:joe:pw@h/x":            "sftp:****@h/x",
		"joe:x/y@host":               "joe:x/y@host",
		"joe://u:secret@h/a@b":       "joe://u:****@h/a@b",
		"joe:pw@h/r?to=http://x/a@b": "joe:****@h/r?to=http://x/a@b",
		"not a url":                  "not a url",
	} {
		if got := RedactedUnknown(in); got != want {
			t.Errorf("RedactedUnknown(%q) = %q, want %q", in, got, want)
		}
	}
	// the error for a URL whose scheme no driver has
	_, err := NewClient(Options{}).Fetch(context.Background(), "joe:SECRETpw@127.0.0.1/x")
	if err == nil || strings.Contains(err.Error(), "SECRET") || !errors.Is(err, ErrUnknownScheme) {
		t.Errorf("error %v: shows the password, or is not ErrUnknownScheme", err)
	}
}

func TestRedacted(t *testing.T) {
	cases := map[string]string{
		"ftp://joe:secret@host.com/x": "ftp://joe:****@host.com/x",
		"ftp://joe:@host.com/":        "ftp://joe:@host.com/",
		"ftp://joe@host.com/":         "ftp://joe@host.com/",
		"http://host.com/":            "http://host.com/",
		// a slash short: no authority by the generic grammar, but a
		// password all the same
		"http:/joe:secret@host.com/": "http:/joe:****@host.com/",
		"ftp:joe:secret@host.com/x":  "ftp:joe:****@host.com/x",
		"news:joe:secret@host":       "news:joe:secret@host", // a message-id
		"mailto:joe@host.com":        "mailto:joe@host.com",
	}
	for in, want := range cases {
		u, err := testParse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Redacted(); got != want {
			t.Errorf("Redacted(%q) = %q, want %q", in, got, want)
		}
		if u.String() != in {
			t.Errorf("String(%q) = %q", in, u.String())
		}
	}
}

func TestHostPort(t *testing.T) {
	cases := []struct {
		in   string
		def  int
		want string
		port int
	}{
		{"http://h/", 80, "h:80", 80},
		{"http://h:8080/", 80, "h:8080", 8080},
		{"http://[::1]/", 80, "[::1]:80", 80},
		{"http://[2001:db8::1]:81/", 80, "[2001:db8::1]:81", 81},
		{"gopher://bücher.example/", 70, "xn--bcher-kva.example:70", 70},
	}
	for _, c := range cases {
		u, err := testParse(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.HostPort(c.def); got != c.want {
			t.Errorf("HostPort(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := u.PortOr(c.def); got != c.port {
			t.Errorf("PortOr(%q) = %d, want %d", c.in, got, c.port)
		}
	}
}

func TestClone(t *testing.T) {
	u, _ := testParse("ftp://a:b@h/x#f")
	c := u.Clone()
	c.Path = "y"
	if u.Path != "x" || c.Host != "h" {
		t.Errorf("Clone shares state: %+v %+v", u, c)
	}
	var n *URL
	if n.Clone() != nil {
		t.Error("nil Clone")
	}
}

func TestStringOfBuiltURL(t *testing.T) {
	cases := []struct {
		u    URL
		want string
	}{
		{URL{Scheme: "FTP", Slashes: true, User: "a:b@c/d", HasUser: true, Password: "p w", HasPassword: true, Host: "H", HasPath: true, Path: "a b"},
			"ftp://a%3Ab%40c%2Fd:p%20w@h/a%20b"},
		{URL{Scheme: "http", Slashes: true, Host: "::1", Port: 80, Path: "x"}, "http://[::1]:80/x"},
		{URL{Scheme: "news", Opaque: "a\nb%"}, "news:a%0Ab%25"},
		{URL{Scheme: "http", Slashes: true, Host: "h", Fragment: "a#b", HasFragment: true}, "http://h#a%23b"},
	}
	for _, c := range cases {
		if got := c.u.String(); got != c.want {
			t.Errorf("String(%+v) = %q, want %q", c.u, got, c.want)
		}
	}
}

func TestEscapeUnescape(t *testing.T) {
	if got := Escape("a b/c;d~é", "/"); got != "a%20b/c%3Bd%7E%C3%A9" {
		t.Errorf("Escape = %q", got)
	}
	if got := Escape("$-_.+!*'(),", ""); got != "$-_.+!*'()," {
		t.Errorf("Escape of unreserved = %q", got)
	}
	for in, want := range map[string]string{"a%20b": "a b", "%2f%2F": "//", "a+b": "a+b", "%00": "\x00", "": ""} {
		if got, err := Unescape(in); err != nil || got != want {
			t.Errorf("Unescape(%q) = %q, %v", in, got, err)
		}
	}
	for in, off := range map[string]int{"%": 0, "ab%4": 2, "%zz": 0, "a%%41": 1} {
		_, err := Unescape(in)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindMalformed || e.Offset != off {
			t.Errorf("Unescape(%q) error %v, want Malformed at %d", in, err, off)
		}
	}
}

// TestRedactedOpaqueLaterSlashes: a URL a slash short keeps its password
// masked (TestRedacted's "ftp:joe:secret@host.com/x") when a "//"
// appears later in its path or fragment, which RedactedText once took for
// the authority's start.
func TestRedactedOpaqueLaterSlashes(t *testing.T) {
	for _, in := range []string{
		"ftp:joe:secret@host.com/a//b",
		"ftp:/joe:secret@host.com/x#//",
		"http:joe:secret@host.com/x?u=//y",
	} {
		u, err := testParse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		if got := u.Redacted(); strings.Contains(got, "secret") {
			t.Errorf("Parse(%q).Redacted() = %q shows the password", in, got)
		}
		if got := RedactedText(in); strings.Contains(got, "secret") {
			t.Errorf("RedactedText(%q) = %q shows the password", in, got)
		}
	}
}

// TestParseErrorWrappedMasksPassword: Parse strips white space, "URL:"
// and "<...>" before parsing, and so does RedactedText for the error's
// URL: a slash-short URL's password is masked when wrapped too.
func TestParseErrorWrappedMasksPassword(t *testing.T) {
	// Bare, the password is masked (as TestRedactedText expects).
	if _, err := testParse("ftp:joe:secret@host/%zz"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Fatalf("bare: %v", err)
	}
	for _, in := range []string{
		"<URL:ftp:joe:secret@host/%zz>",
		"URL:ftp:joe:secret@host/%zz",
		" ftp:joe:secret@host/%zz",
		"<ftp:joe:secret@host/%zz>",
	} {
		_, err := testParse(in)
		if err == nil {
			t.Fatalf("Parse(%q): no error", in)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q) error %q shows the password", in, err)
		}
	}
}

// TestStringUserinfoQuestionMark: String writes a "?" of the user or
// password %3F: in a scheme whose "?" ends the host (http, https),
// http://evil.example?@good.example/ would name the host evil.example.
func TestStringUserinfoQuestionMark(t *testing.T) {
	for _, in := range []string{
		"http://evil.example%3F@good.example/",
		"https://u:p%3Fx@good.example/x",
	} {
		u, err := testParse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		s := u.String()
		v, err := testParse(s)
		if err != nil {
			t.Errorf("Parse(%q).String() = %q, which does not parse: %v", in, s, err)
			continue
		}
		if *v != *u {
			t.Errorf("Parse(%q) = host %q user %q, but its String %q parses to host %q user %q",
				in, u.Host, u.User, s, v.Host, v.User)
		}
	}
}

// TestLongIDNHostLinear: a long host of distinct non-ASCII characters is
// refused before the UTS #46 / Punycode conversion, which is quadratic (a
// 48 KB URL took seconds to be refused).
func TestLongIDNHostLinear(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 16000; i++ {
		b.WriteRune(rune(0x4E00 + i))
	}
	raw := "http://" + b.String() + ".com/"
	start := time.Now()
	_, err := testParse(raw)
	if err == nil {
		t.Fatal("a host of 48000 octets parsed")
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("refusing a %d-byte host took %v", len(raw), d)
	}
}
