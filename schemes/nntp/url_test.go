package nntp

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseNewsURL(t *testing.T) {
	cases := []struct {
		In   string
		Want NewsURL
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
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"news:", "group", 5},
		{"news:1comp", "group", 5},
		{"news:comp/lang", "group", 9},
		{"news:comp%20lang", "group", 9},
		{"news:@host", "message-id", 5},
		{"news:id@", "message-id", 5},
		{"news:a%20b@h", "message-id", 6},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseNewsURL, cases, refused)
}

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		{"nntp://news.example.com/comp.lang.go/1234", URL{Group: "comp.lang.go", Article: 1234, HasArticle: true}},
		{"nntp://h/comp.lang.go", URL{Group: "comp.lang.go"}},
		{"nntp://h/comp.lang.go/", URL{Group: "comp.lang.go"}},
		{"nntp://h/a/9223372036854775807", URL{Group: "a", Article: 9223372036854775807, HasArticle: true}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"nntp://h", "group", 8},
		{"nntp://h/", "group", 9},
		{"nntp://h/g/12x", "article", 13},
		{"nntp://h/g/9223372036854775808", "article", 11},
		{"nntp://h/g/1/2", "article", 12},
		{"nntp://h/9g/1", "group", 9},
		{"nntp://u@h/g", "user", 7},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
