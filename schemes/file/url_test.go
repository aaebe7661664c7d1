package file

import (
	"errors"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// urlMustParse parses s with the grammar of this package's schemes.
func urlMustParse(t *testing.T, s string) *fetch.URL {
	t.Helper()
	u, err := fetch.NewRegistry(Schemes(Config{})...).Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// urlWantViewErr checks err is a Malformed *fetch.Error for part at offset
// (an offset in the URL's Redacted form).
func urlWantViewErr(t *testing.T, in string, err error, part string, offset int) {
	t.Helper()
	var e *fetch.Error
	if !errors.As(err, &e) {
		t.Errorf("%q: got %v, want a %s error", in, err, part)
		return
	}
	if e.Kind != fetch.KindMalformed || e.Part != part || e.Offset != offset {
		t.Errorf("%q: got part %q offset %d (%v), want part %q offset %d", in, e.Part, e.Offset, err, part, offset)
	}
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		in   string
		want URL
	}{
		// RFC 1738 §3.10: DISK$USER:[MY.NOTES]NOTE123456.TXT might become
		// <URL:file://vms.host.edu/disk$user/my/notes/note12345.txt>
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", URL{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"}},
		// "<host> can be the string "localhost" or the empty string"
		{"file:///etc/motd", URL{Path: "/etc/motd"}},
		{"file://localhost/etc/motd", URL{Path: "/etc/motd"}},
		{"file://LocalHost/etc/motd", URL{Path: "/etc/motd"}},
		{"file:///tmp/a%20b%3Bc?d", URL{Path: "/tmp/a b;c?d"}},
		{"file:/etc/motd", URL{Path: "/etc/motd"}},
		{"file://", URL{Path: "/"}},
		{"file:///", URL{Path: "/"}},
	}
	for _, c := range cases {
		f, err := ParseURL(urlMustParse(t, c.in))
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
		_, err := ParseURL(urlMustParse(t, c.in))
		urlWantViewErr(t, c.in, err, c.part, c.offset)
	}
}
