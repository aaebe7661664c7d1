package ftp

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		{"ftp://h", URL{}},
		{"ftp://h/", URL{}},
		// RFC 1738 §3.2.2: "CWD etc" and then "RETR motd".
		{"ftp://myname@host.dom/etc/motd", URL{Dirs: []string{"etc"}, Name: "motd"}},
		// "CWD /etc" and then "RETR motd".
		{"ftp://myname@host.dom/%2Fetc/motd", URL{Dirs: []string{"/etc"}, Name: "motd"}},
		// "CWD " with a null argument, then "CWD etc", and then "RETR motd".
		{"ftp://myname@host.dom//etc/motd", URL{Dirs: []string{"", "etc"}, Name: "motd"}},
		// RFC 1738 Appendix: <URL:ftp://info.cern.ch/pub/www/doc;type=d>
		{"ftp://info.cern.ch/pub/www/doc;type=d", URL{Dirs: []string{"pub", "www"}, Name: "doc", Type: 'd'}},
		{"ftp://ds.internic.net/rfc/rfc1436.txt;type=a", URL{Dirs: []string{"rfc"}, Name: "rfc1436.txt", Type: 'a'}},
		{"ftp://h/a/b.bin;TYPE=I", URL{Dirs: []string{"a"}, Name: "b.bin", Type: 'i'}},
		{"ftp://h/pub/", URL{Dirs: []string{"pub"}}},
		{"ftp://h/pub/;type=d", URL{Dirs: []string{"pub"}, Type: 'd'}},
		{"ftp://h/;type=d", URL{Type: 'd'}},
		{"ftp://h/a%3Bb/c%20d%0D", URL{Dirs: []string{"a;b"}, Name: "c d\r"}},
		{"ftp://h/?:@&=", URL{Name: "?:@&="}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"ftp://h/a;type=x", "type", 15},
		{"ftp://h/a;type=", "type", 15},
		{"ftp://h/a;type=ii", "type", 15},
		{"ftp://h/a;b", "path", 9},
		{"ftp://h/a;type=i/b", "path", 9},
		{"ftp://h/a;mode=i", "path", 9},
		{"ftp:/h/a", "host", 4},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
