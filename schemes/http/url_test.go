package http

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func urlMustParse(t *testing.T, s string) *fetch.URL {
	t.Helper()
	return fetchtest.MustParse(t, s, Schemes(Config{})...)
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
	fetchtest.WantViewError(t, "http://u:p@h/", err, "user", 7)
	_, err = ParseURL(urlMustParse(t, "http:/x"))
	fetchtest.WantViewError(t, "http:/x", err, "host", 5)
}
