package telnet

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
		{"telnet://bbs.example.com", URL{}},
		{"telnet://bbs.example.com/", URL{}},
		{"telnet://guest@h:2323/", URL{User: "guest", HasUser: true}},
		{"telnet://guest:pw@h", URL{User: "guest", Password: "pw", HasUser: true, HasPassword: true}},
		{"telnet://guest:@h", URL{User: "guest", HasUser: true, HasPassword: true}},
	}
	for _, c := range cases {
		v, err := ParseURL(urlMustParse(t, c.in))
		if err != nil {
			t.Errorf("Telnet(%q): %v", c.in, err)
			continue
		}
		if *v != c.want {
			t.Errorf("Telnet(%q) = %+v, want %+v", c.in, *v, c.want)
		}
	}
	_, err := ParseURL(urlMustParse(t, "telnet://h/x"))
	urlWantViewErr(t, "telnet://h/x", err, "path", 11)
}
