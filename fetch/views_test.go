package fetch

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) *URL {
	t.Helper()
	u, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// wantViewErr checks err is a Malformed *Error for part at offset (an
// offset in the URL's Redacted form).
func wantViewErr(t *testing.T, in string, err error, part string, offset int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%q: got %v, want a %s error", in, err, part)
		return
	}
	if e.Kind != KindMalformed || e.Part != part || e.Offset != offset {
		t.Errorf("%q: got part %q offset %d (%v), want part %q offset %d", in, e.Part, e.Offset, err, part, offset)
	}
}

func TestFTP(t *testing.T) {
	cases := []struct {
		in   string
		want FTPURL
	}{
		{"ftp://h", FTPURL{}},
		{"ftp://h/", FTPURL{}},
		// RFC 1738 §3.2.2: "CWD etc" and then "RETR motd".
		{"ftp://myname@host.dom/etc/motd", FTPURL{Dirs: []string{"etc"}, Name: "motd"}},
		// "CWD /etc" and then "RETR motd".
		{"ftp://myname@host.dom/%2Fetc/motd", FTPURL{Dirs: []string{"/etc"}, Name: "motd"}},
		// "CWD " with a null argument, then "CWD etc", and then "RETR motd".
		{"ftp://myname@host.dom//etc/motd", FTPURL{Dirs: []string{"", "etc"}, Name: "motd"}},
		// RFC 1738 Appendix: <URL:ftp://info.cern.ch/pub/www/doc;type=d>
		{"ftp://info.cern.ch/pub/www/doc;type=d", FTPURL{Dirs: []string{"pub", "www"}, Name: "doc", Type: 'd'}},
		{"ftp://ds.internic.net/rfc/rfc1436.txt;type=a", FTPURL{Dirs: []string{"rfc"}, Name: "rfc1436.txt", Type: 'a'}},
		{"ftp://h/a/b.bin;TYPE=I", FTPURL{Dirs: []string{"a"}, Name: "b.bin", Type: 'i'}},
		{"ftp://h/pub/", FTPURL{Dirs: []string{"pub"}}},
		{"ftp://h/pub/;type=d", FTPURL{Dirs: []string{"pub"}, Type: 'd'}},
		{"ftp://h/;type=d", FTPURL{Type: 'd'}},
		{"ftp://h/a%3Bb/c%20d%0D", FTPURL{Dirs: []string{"a;b"}, Name: "c d\r"}},
		{"ftp://h/?:@&=", FTPURL{Name: "?:@&="}},
	}
	for _, c := range cases {
		f, err := mustParse(t, c.in).FTP()
		if err != nil {
			t.Errorf("FTP(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*f, c.want) {
			t.Errorf("FTP(%q) = %+v, want %+v", c.in, *f, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"ftp://h/a;type=x", "type", 15},
		{"ftp://h/a;type=", "type", 15},
		{"ftp://h/a;type=ii", "type", 15},
		{"ftp://h/a;b", "path", 9},
		{"ftp://h/a;type=i/b", "path", 9},
		{"ftp://h/a;mode=i", "path", 9},
		{"ftp:/h/a", "host", 4},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).FTP()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestHTTP(t *testing.T) {
	cases := []struct {
		in   string
		want HTTPURL
		ruri string
	}{
		{"http://h", HTTPURL{Path: "/"}, "/"},
		{"http://h/", HTTPURL{Path: "/"}, "/"},
		{"http://info.my.org/AboutUs/Index/Phonebook?dobbins", HTTPURL{Path: "/AboutUs/Index/Phonebook", Search: "dobbins", HasSearch: true},
			"/AboutUs/Index/Phonebook?dobbins"},
		{"http://h/a?", HTTPURL{Path: "/a", HasSearch: true}, "/a?"},
		{"http://h?q=1&r=%2F", HTTPURL{Path: "/", Search: "q=1&r=%2F", HasSearch: true}, "/?q=1&r=%2F"},
		{"https://h/x;p=1?a?b", HTTPURL{Path: "/x;p=1", Search: "a?b", HasSearch: true}, "/x;p=1?a?b"},
		{"http://h/~u/{x}", HTTPURL{Path: "/%7Eu/%7Bx%7D"}, "/%7Eu/%7Bx%7D"},
	}
	for _, c := range cases {
		h, err := mustParse(t, c.in).HTTP()
		if err != nil {
			t.Errorf("HTTP(%q): %v", c.in, err)
			continue
		}
		if *h != c.want {
			t.Errorf("HTTP(%q) = %+v, want %+v", c.in, *h, c.want)
		}
		if got := h.RequestURI(); got != c.ruri {
			t.Errorf("RequestURI(%q) = %q, want %q", c.in, got, c.ruri)
		}
	}
	built := HTTPURL{Path: "/a b\r\n", Search: "x y", HasSearch: true}
	if got := built.RequestURI(); got != "/a%20b%0D%0A?x%20y" {
		t.Errorf("RequestURI of built = %q", got)
	}
	// RFC 1738 §3.3: "No user name or password is allowed."
	_, err := mustParse(t, "http://u:p@h/").HTTP()
	wantViewErr(t, "http://u:p@h/", err, "user", 7)
	_, err = mustParse(t, "http:/x").HTTP()
	wantViewErr(t, "http:/x", err, "host", 5)
}

func TestGopher(t *testing.T) {
	cases := []struct {
		in   string
		want GopherURL
	}{
		// §3.4.1: "The entire <gopher-path> may also be empty, in which
		// case the delimiting "/" is also optional and the <gophertype>
		// defaults to "1"."
		{"gopher://h", GopherURL{Type: '1'}},
		{"gopher://h/", GopherURL{Type: '1'}},
		{"gopher://h/1", GopherURL{Type: '1'}},
		// "some Gopher <selector> strings begin with a copy of the
		// <gophertype> character"
		{"gopher://gopher.micro.umn.edu/00/Information%20About%20Gopher/About%20Gopher",
			GopherURL{Type: '0', Selector: "0/Information About Gopher/About Gopher"}},
		// §3.4.2 search
		{"gopher://h/7/search%09dogs%20cats", GopherURL{Type: '7', Selector: "/search", Search: "dogs cats", HasSearch: true}},
		{"gopher://h/7/s%09", GopherURL{Type: '7', Selector: "/s", HasSearch: true}},
		// §3.4.3-3.4.4: "+" is the default view, "?" an item with a form.
		{"gopher://h/0doc%09%09+", GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "+", HasPlus: true}},
		{"gopher://h/0doc%09%09?", GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "?", HasPlus: true}},
		// §3.4.6-3.4.7 attributes
		{"gopher://h/0doc%09%09!", GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!", HasPlus: true}},
		{"gopher://h/1dir%09%09$", GopherURL{Type: '1', Selector: "dir", HasSearch: true, Plus: "$", HasPlus: true}},
		{"gopher://h/0doc%09%09!+ABSTRACT", GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!+ABSTRACT", HasPlus: true}},
		{"gopher://h/0doc%09%09!+ABSTRACT%20+SMELL", GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!+ABSTRACT +SMELL", HasPlus: true}},
		// §3.4.8 alternate view
		{"gopher://h/0doc%09%09+application/postscript%20Es_ES",
			GopherURL{Type: '0', Selector: "doc", HasSearch: true, Plus: "+application/postscript Es_ES", HasPlus: true}},
		// §3.4.9 a filled-in form: the gopher+ string holds an encoded tab
		// and CR LF; it is split on the first two %09 only.
		{"gopher://h/1form%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0Ano%0D%0A.%0D%0A",
			GopherURL{Type: '1', Selector: "form", HasSearch: true, Plus: "+\t1\r\n+-1\r\nyes\r\nno\r\n.\r\n", HasPlus: true}},
		// No characters are reserved in a gopher-path.
		{"gopher://h/0a/b;c?d=e&f:g@h", GopherURL{Type: '0', Selector: "a/b;c?d=e&f:g@h"}},
		{"gopher://h/%31sel", GopherURL{Type: '1', Selector: "sel"}},
		{"gopher://h/0a%0D%0Ab", GopherURL{Type: '0', Selector: "a\r\nb"}}, // refused later, by the driver
	}
	for _, c := range cases {
		g, err := mustParse(t, c.in).Gopher()
		if err != nil {
			t.Errorf("Gopher(%q): %v", c.in, err)
			continue
		}
		if *g != c.want {
			t.Errorf("Gopher(%q) = %+v, want %+v", c.in, *g, c.want)
		}
	}
	_, err := mustParse(t, "gopher://u@h/").Gopher()
	wantViewErr(t, "gopher://u@h/", err, "user", 9)
}

func TestGopherURLString(t *testing.T) {
	cases := []struct {
		host              string
		port              int
		typ               byte
		sel, search, plus string
		hasS, hasP        bool
		want              string
	}{
		{"h", 70, '1', "", "", "", false, false, "gopher://h/1"},
		{"H.Example", 7070, '0', "/docs/a file.txt", "", "", false, false, "gopher://h.example:7070/0/docs/a%20file.txt"},
		{"h", 0, '7', "/search", "dogs & cats", "", true, false, "gopher://h/7/search%09dogs%20&%20cats"},
		{"h", 70, '0', "doc", "", "+", false, true, "gopher://h/0doc%09%09+"},
		{"::1", 70, '1', "a b%c#d?e", "", "", false, false, "gopher://[::1]/1a%20b%25c%23d%3Fe"},
		{"h", 70, 0, "", "", "", false, false, "gopher://h/1"},
		{"h", 70, '?', "x", "", "", false, false, "gopher://h/%3Fx"},
		{"h", 70, '+', "x", "", "", false, false, "gopher://h/+x"},
	}
	for _, c := range cases {
		got := GopherURLString(c.host, c.port, c.typ, c.sel, c.search, c.hasS, c.plus, c.hasP)
		if got != c.want {
			t.Errorf("GopherURLString(%q, %q) = %q, want %q", c.host, c.sel, got, c.want)
			continue
		}
		g, err := mustParse(t, got).Gopher()
		typ := c.typ
		if typ == 0 {
			typ = '1'
		}
		want := GopherURL{Type: typ, Selector: c.sel, Search: c.search, HasSearch: c.hasS || c.hasP, Plus: c.plus, HasPlus: c.hasP}
		if err != nil || *g != want {
			t.Errorf("Gopher(%q) = %+v, %v; want %+v", got, g, err, want)
		}
	}
}

func TestMailto(t *testing.T) {
	cases := []struct {
		in   string
		want MailtoURL
	}{
		{"mailto:joe@example.com", MailtoURL{To: []string{"joe@example.com"}}},
		// RFC 1738 §3.5: "the percent sign ... must be encoded"
		{"mailto:joe%25relay@example.com", MailtoURL{To: []string{"joe%relay@example.com"}}},
		{"mailto:a@x.org,b@y.org", MailtoURL{To: []string{"a@x.org", "b@y.org"}}},
		{"mailto:%22not%40me%22@example.org", MailtoURL{To: []string{"\"not@me\"@example.org"}}},            // RFC 6068 §6.1
		{"mailto:%22a,b%22@example.org,c@d.org", MailtoURL{To: []string{"\"a,b\"@example.org", "c@d.org"}}}, // comma in quotes
		{"mailto:user@[10.0.0.1]", MailtoURL{To: []string{"user@[10.0.0.1]"}}},
		{"mailto:infobot@example.com?subject=current-issue", MailtoURL{To: []string{"infobot@example.com"}, Subject: "current-issue"}}, // RFC 6068
		{"mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index", // RFC 6068
			MailtoURL{To: []string{"infobot@example.com"}, Body: "send current-issue\r\nsend index"}},
		{"mailto:?to=joe@example.com&cc=bob@example.com&body=hello", // RFC 6068
			MailtoURL{To: []string{"joe@example.com"}, Cc: []string{"bob@example.com"}, Body: "hello"}},
		{"mailto:a@b.c?BCC=x@y.z,w@v.u&In-Reply-To=%3C3469A91.D10AF4C@example.com%3E&keywords=k&X-Mailer=fetch&subject=1&subject=2",
			MailtoURL{To: []string{"a@b.c"}, Bcc: []string{"x@y.z", "w@v.u"}, InReplyTo: "<3469A91.D10AF4C@example.com>", Keywords: "k",
				Subject: "1", Other: []HeaderField{{"X-Mailer", "fetch"}, {"subject", "2"}}}},
		{"mailto:a@b.c?subject=a+b", MailtoURL{To: []string{"a@b.c"}, Subject: "a+b"}},
		{"mailto:user@%E4%BE%8B.jp", MailtoURL{To: []string{"user@例.jp"}}},
	}
	for _, c := range cases {
		m, err := mustParse(t, c.in).Mailto()
		if err != nil {
			t.Errorf("Mailto(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*m, c.want) {
			t.Errorf("Mailto(%q)\n got %+v\nwant %+v", c.in, *m, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"mailto:", "address", 7},
		{"mailto:joe", "address", 7},
		{"mailto:joe@", "address", 11},
		{"mailto:@example.com", "address", 7},
		{"mailto:a..b@example.com", "address", 9},
		{"mailto:a@b,,c@d", "address", 11},
		{"mailto:a(b)@c", "address", 8},
		{"mailto:%22abc@d", "address", 7},
		{"mailto:a@b?subject", "header", 11},
		{"mailto:a@b?=x", "header", 11},
		{"mailto:a@b?cc=bad", "address", 14},
		{"mailto:?subject=x", "address", 7},
		{"mailto://a@b", "address", 7},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).Mailto()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestNews(t *testing.T) {
	cases := []struct {
		in   string
		want NewsURL
	}{
		{"news:*", NewsURL{All: true}}, // RFC 1738 §3.6
		{"news:comp.infosystems.www.misc", NewsURL{Group: "comp.infosystems.www.misc"}},
		{"news:alt.fan.x-files_2+", NewsURL{Group: "alt.fan.x-files_2+"}},
		{"news:123@host.com", NewsURL{MessageID: "123@host.com"}},
		{"news:%3C123@host.com%3E", NewsURL{MessageID: "123@host.com"}},
		{"news:<123@host.com>", NewsURL{MessageID: "123@host.com"}},
		{"news:a.b/c?d@host.com", NewsURL{MessageID: "a.b/c?d@host.com"}},
		{"news:comp.lang.*", NewsURL{Group: "comp.lang.*", Wildmat: true}}, // RFC 5538
		{"news:*.test", NewsURL{Group: "*.test", Wildmat: true}},
		{"news://news.example.com/comp.lang.go", NewsURL{Group: "comp.lang.go"}}, // RFC 5538
	}
	for _, c := range cases {
		n, err := mustParse(t, c.in).News()
		if err != nil {
			t.Errorf("News(%q): %v", c.in, err)
			continue
		}
		if *n != c.want {
			t.Errorf("News(%q) = %+v, want %+v", c.in, *n, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"news:", "group", 5},
		{"news:1comp", "group", 5},
		{"news:comp/lang", "group", 9},
		{"news:comp%20lang", "group", 9},
		{"news:@host", "message-id", 5},
		{"news:id@", "message-id", 5},
		{"news:a%20b@h", "message-id", 6},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).News()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestNNTP(t *testing.T) {
	cases := []struct {
		in   string
		want NNTPURL
	}{
		{"nntp://news.example.com/comp.lang.go/1234", NNTPURL{Group: "comp.lang.go", Article: 1234, HasArticle: true}},
		{"nntp://h/comp.lang.go", NNTPURL{Group: "comp.lang.go"}},
		{"nntp://h/comp.lang.go/", NNTPURL{Group: "comp.lang.go"}},
		{"nntp://h/a/9223372036854775807", NNTPURL{Group: "a", Article: 9223372036854775807, HasArticle: true}},
	}
	for _, c := range cases {
		n, err := mustParse(t, c.in).NNTP()
		if err != nil {
			t.Errorf("NNTP(%q): %v", c.in, err)
			continue
		}
		if *n != c.want {
			t.Errorf("NNTP(%q) = %+v, want %+v", c.in, *n, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"nntp://h", "group", 8},
		{"nntp://h/", "group", 9},
		{"nntp://h/g/12x", "article", 13},
		{"nntp://h/g/9223372036854775808", "article", 11},
		{"nntp://h/g/1/2", "article", 12},
		{"nntp://h/9g/1", "group", 9},
		{"nntp://u@h/g", "user", 7},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).NNTP()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestTelnet(t *testing.T) {
	cases := []struct {
		in   string
		want TelnetURL
	}{
		{"telnet://bbs.example.com", TelnetURL{}},
		{"telnet://bbs.example.com/", TelnetURL{}},
		{"telnet://guest@h:2323/", TelnetURL{User: "guest", HasUser: true}},
		{"telnet://guest:pw@h", TelnetURL{User: "guest", Password: "pw", HasUser: true, HasPassword: true}},
		{"telnet://guest:@h", TelnetURL{User: "guest", HasUser: true, HasPassword: true}},
	}
	for _, c := range cases {
		v, err := mustParse(t, c.in).Telnet()
		if err != nil {
			t.Errorf("Telnet(%q): %v", c.in, err)
			continue
		}
		if *v != c.want {
			t.Errorf("Telnet(%q) = %+v, want %+v", c.in, *v, c.want)
		}
	}
	_, err := mustParse(t, "telnet://h/x").Telnet()
	wantViewErr(t, "telnet://h/x", err, "path", 11)
}

func TestWAIS(t *testing.T) {
	cases := []struct {
		in   string
		want WAISURL
	}{
		{"wais://h/db", WAISURL{Database: "db"}},
		{"wais://quake.think.com/wais-discussion-archives?lynch", WAISURL{Database: "wais-discussion-archives", Search: "lynch", HasSearch: true}},
		{"wais://h/db?a%20b", WAISURL{Database: "db", Search: "a b", HasSearch: true}},
		{"wais://h:210/db/TEXT/0%2F1%3B2", WAISURL{Database: "db", WType: "TEXT", WPath: "0/1;2", IsDoc: true}},
	}
	for _, c := range cases {
		w, err := mustParse(t, c.in).WAIS()
		if err != nil {
			t.Errorf("WAIS(%q): %v", c.in, err)
			continue
		}
		if *w != c.want {
			t.Errorf("WAIS(%q) = %+v, want %+v", c.in, *w, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"wais://h/db/TEXT", "wpath", 16},
		{"wais://h/db/T/a/b", "wpath", 15},
		{"wais://h/d;b", "database", 10},
		{"wais://h/db/T=1/x", "wtype", 13},
		{"wais://h", "database", 8},
		{"wais://h/", "database", 9},
		{"wais://h/?words", "database", 9},
		{"wais://h//TEXT/x", "database", 9},
		{"wais://h/db/TEXT/", "wpath", 17},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).WAIS()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestFile(t *testing.T) {
	cases := []struct {
		in   string
		want FileURL
	}{
		// RFC 1738 §3.10: DISK$USER:[MY.NOTES]NOTE123456.TXT might become
		// <URL:file://vms.host.edu/disk$user/my/notes/note12345.txt>
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", FileURL{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"}},
		// "<host> can be the string "localhost" or the empty string"
		{"file:///etc/motd", FileURL{Path: "/etc/motd"}},
		{"file://localhost/etc/motd", FileURL{Path: "/etc/motd"}},
		{"file://LocalHost/etc/motd", FileURL{Path: "/etc/motd"}},
		{"file:///tmp/a%20b%3Bc?d", FileURL{Path: "/tmp/a b;c?d"}},
		{"file:/etc/motd", FileURL{Path: "/etc/motd"}},
		{"file://", FileURL{Path: "/"}},
		{"file:///", FileURL{Path: "/"}},
	}
	for _, c := range cases {
		f, err := mustParse(t, c.in).File()
		if err != nil {
			t.Errorf("File(%q): %v", c.in, err)
			continue
		}
		if *f != c.want {
			t.Errorf("File(%q) = %+v, want %+v", c.in, *f, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"file:///etc%2Fpasswd", "path", 11},
		{"file:///etc/pass%00wd", "path", 16},
		{"file:etc/motd", "path", 5},
		{"file://u@h/x", "user", 7},
		{"file://h:21/x", "port", 8},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).File()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestProspero(t *testing.T) {
	cases := []struct {
		in   string
		want ProsperoURL
	}{
		// RFC 1738 §3.11: "<URL:prospero://host.dom//pros/name> designates
		// a <hsoname> of "/pros/name"."
		{"prospero://host.dom//pros/name", ProsperoURL{HSOName: "/pros/name"}},
		{"prospero://host.dom/pros/name", ProsperoURL{HSOName: "pros/name"}},
		{"prospero://h//a%3Bb;OBJECT-VERSION=3;x%3Dy=z%20w",
			ProsperoURL{HSOName: "/a;b", Fields: []HeaderField{{"OBJECT-VERSION", "3"}, {"x=y", "z w"}}}},
		// RFC 1630: "the version number is separated from the host specific
		// object name by the characters "%00""
		{"prospero://h//pros/name%0012", ProsperoURL{HSOName: "/pros/name", Version: "12"}},
		// The 1993 draft: attributes after a further %00.
		{"prospero://h//n%00%00attr", ProsperoURL{HSOName: "/n", Fields: []HeaderField{{"", "attr"}}}},
	}
	for _, c := range cases {
		p, err := mustParse(t, c.in).Prospero()
		if err != nil {
			t.Errorf("Prospero(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*p, c.want) {
			t.Errorf("Prospero(%q) = %+v, want %+v", c.in, *p, c.want)
		}
	}
	bad := []struct {
		in     string
		part   string
		offset int
	}{
		{"prospero://h/n;field", "field", 15},
		{"prospero://h/n;a=b=c", "field", 18},
		{"prospero://u:p@h/n", "user", 11},
		{"prospero://h", "hsoname", 12},
		{"prospero://h/", "hsoname", 13},
		{"prospero://h/%00", "hsoname", 13},
		{"prospero://h/;OBJECT-VERSION=1", "hsoname", 13},
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).Prospero()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestView(t *testing.T) {
	cases := map[string]any{
		"ftp://h/":       &FTPURL{},
		"http://h/":      &HTTPURL{Path: "/"},
		"https://h/":     &HTTPURL{Path: "/"},
		"gopher://h/":    &GopherURL{Type: '1'},
		"mailto:a@b":     &MailtoURL{To: []string{"a@b"}},
		"news:*":         &NewsURL{All: true},
		"nntp://h/g":     &NNTPURL{Group: "g"},
		"telnet://h":     &TelnetURL{},
		"wais://h/db":    &WAISURL{Database: "db"},
		"file:///x":      &FileURL{Path: "/x"},
		"prospero://h/n": &ProsperoURL{HSOName: "n"},
		"x-foo:bar":      nil,
	}
	for in, want := range cases {
		v, err := mustParse(t, in).View()
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("View(%q) = %#v, %v; want %#v", in, v, err, want)
		}
	}
	v, err := mustParse(t, "ftp://h/a;type=z").View()
	if v != nil || err == nil {
		t.Errorf("View of a bad ftp URL = %#v, %v", v, err)
	}
}

func TestJSON(t *testing.T) {
	u := mustParse(t, "ftp://joe:secret@Host.com:2121/pub/a.txt;type=i#top")
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Contains(got, "secret") {
		t.Errorf("JSON shows the password: %s", got)
	}
	for _, want := range []string{`"scheme":"ftp"`, `"user":"joe"`, `"password":"****"`, `"host":"host.com"`, `"port":2121`,
		`"path":"pub/a.txt;type=i"`, `"fragment":"top"`, `"canonical":"ftp://joe:****@host.com:2121/pub/a.txt;type=i#top"`} {
		if !strings.Contains(got, want) {
			t.Errorf("JSON %s lacks %s", got, want)
		}
	}
	v, _ := u.View()
	b, _ = json.Marshal(v)
	if string(b) != `{"dirs":["pub"],"name":"a.txt","type":"i"}` {
		t.Errorf("FTP view JSON = %s", b)
	}
	v, _ = mustParse(t, "gopher://h/7s%09q").View()
	b, _ = json.Marshal(v)
	if string(b) != `{"selector":"s","search":"q","has_search":true,"plus":"","has_plus":false,"type":"7"}` {
		t.Errorf("gopher view JSON = %s", b)
	}
	v, _ = mustParse(t, "telnet://u:pw@h").View()
	b, _ = json.Marshal(v)
	if strings.Contains(string(b), "pw") || !strings.Contains(string(b), `"password":"****"`) {
		t.Errorf("telnet view JSON = %s", b)
	}
	b, _ = json.Marshal(mustParse(t, "mailto:a@b?subject=x%26y"))
	if !strings.Contains(string(b), `"opaque":"a@b?subject=x%26y"`) {
		t.Errorf("mailto JSON = %s", b)
	}
}
