package nntp

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func urlMustParse(t *testing.T, s string) *fetch.URL {
	t.Helper()
	return fetchtest.MustParse(t, s, Schemes(Config{})...)
}

func TestParseNewsURL(t *testing.T) {
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
		n, err := ParseNewsURL(urlMustParse(t, c.in))
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
		_, err := ParseNewsURL(urlMustParse(t, c.in))
		fetchtest.WantViewError(t, c.in, err, c.part, c.offset)
	}
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		in   string
		want URL
	}{
		{"nntp://news.example.com/comp.lang.go/1234", URL{Group: "comp.lang.go", Article: 1234, HasArticle: true}},
		{"nntp://h/comp.lang.go", URL{Group: "comp.lang.go"}},
		{"nntp://h/comp.lang.go/", URL{Group: "comp.lang.go"}},
		{"nntp://h/a/9223372036854775807", URL{Group: "a", Article: 9223372036854775807, HasArticle: true}},
	}
	for _, c := range cases {
		n, err := ParseURL(urlMustParse(t, c.in))
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
		_, err := ParseURL(urlMustParse(t, c.in))
		fetchtest.WantViewError(t, c.in, err, c.part, c.offset)
	}
}
