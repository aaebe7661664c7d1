package http

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
		ruri string
	}{
		{"http://h", URL{Path: "/"}, "/"},
		{"http://h/", URL{Path: "/"}, "/"},
		{"http://info.my.org/AboutUs/Index/Phonebook?dobbins", URL{Path: "/AboutUs/Index/Phonebook", Search: "dobbins", HasSearch: true},
			"/AboutUs/Index/Phonebook?dobbins"},
		{"http://h/a?", URL{Path: "/a", HasSearch: true}, "/a?"},
		{"http://h?q=1&r=%2F", URL{Path: "/", Search: "q=1&r=%2F", HasSearch: true}, "/?q=1&r=%2F"},
		{"https://h/x;p=1?a?b", URL{Path: "/x;p=1", Search: "a?b", HasSearch: true}, "/x;p=1?a?b"},
		{"http://h/~u/{x}", URL{Path: "/%7Eu/%7Bx%7D"}, "/%7Eu/%7Bx%7D"},
	}
	for _, c := range cases {
		h, err := ParseURL(urlMustParse(t, c.in))
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
	built := URL{Path: "/a b\r\n", Search: "x y", HasSearch: true}
	if got := built.RequestURI(); got != "/a%20b%0D%0A?x%20y" {
		t.Errorf("RequestURI of built = %q", got)
	}
	// RFC 1738 §3.3: "No user name or password is allowed."
	_, err := ParseURL(urlMustParse(t, "http://u:p@h/"))
	urlWantViewErr(t, "http://u:p@h/", err, "user", 7)
	_, err = ParseURL(urlMustParse(t, "http:/x"))
	urlWantViewErr(t, "http:/x", err, "host", 5)
}
