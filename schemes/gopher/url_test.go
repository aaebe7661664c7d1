package gopher

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
		In   string
		Want URL
	}{
		// §3.4.1: "The entire <gopher-path> may also be empty, in which
		// case the delimiting "/" is also optional and the <gophertype>
		// defaults to "1"."
		{"gopher://h", URL{Type: '1'}},
		{"gopher://h/", URL{Type: '1'}},
		{"gopher://h/1", URL{Type: '1'}},
		// "some Gopher <selector> strings begin with a copy of the
		// <gophertype> character"
		{"gopher://gopher.micro.umn.edu/00/Information%20About%20Gopher/About%20Gopher",
			URL{Type: '0', Selector: "0/Information About Gopher/About Gopher"}},
		// §3.4.2 search
		{"gopher://h/7/search%09dogs%20cats", URL{Type: '7', Selector: "/search", Search: "dogs cats", HasSearch: true}},
		{"gopher://h/7/s%09", URL{Type: '7', Selector: "/s", HasSearch: true}},
		// §3.4.3-3.4.4: "+" is the default view, "?" an item with a form.
		{"gopher://h/0doc%09%09+", URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "+", HasPlus: true}},
		{"gopher://h/0doc%09%09?", URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "?", HasPlus: true}},
		// §3.4.6-3.4.7 attributes
		{"gopher://h/0doc%09%09!", URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!", HasPlus: true}},
		{"gopher://h/1dir%09%09$", URL{Type: '1', Selector: "dir", HasSearch: true, Plus: "$", HasPlus: true}},
		{"gopher://h/0doc%09%09!+ABSTRACT", URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!+ABSTRACT", HasPlus: true}},
		{"gopher://h/0doc%09%09!+ABSTRACT%20+SMELL", URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "!+ABSTRACT +SMELL", HasPlus: true}},
		// §3.4.8 alternate view
		{"gopher://h/0doc%09%09+application/postscript%20Es_ES",
			URL{Type: '0', Selector: "doc", HasSearch: true, Plus: "+application/postscript Es_ES", HasPlus: true}},
		// §3.4.9 a filled-in form: the gopher+ string holds an encoded tab
		// and CR LF; it is split on the first two %09 only.
		{"gopher://h/1form%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0Ano%0D%0A.%0D%0A",
			URL{Type: '1', Selector: "form", HasSearch: true, Plus: "+\t1\r\n+-1\r\nyes\r\nno\r\n.\r\n", HasPlus: true}},
		// No characters are reserved in a gopher-path.
		{"gopher://h/0a/b;c?d=e&f:g@h", URL{Type: '0', Selector: "a/b;c?d=e&f:g@h"}},
		{"gopher://h/%31sel", URL{Type: '1', Selector: "sel"}},
		{"gopher://h/0a%0D%0Ab", URL{Type: '0', Selector: "a\r\nb"}}, // refused later, by the driver
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"gopher://u@h/", "user", 9},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}

func TestURLString(t *testing.T) {
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
		got := URLString(c.host, c.port, c.typ, c.sel, c.search, c.hasS, c.plus, c.hasP)
		if got != c.want {
			t.Errorf("URLString(%q, %q) = %q, want %q", c.host, c.sel, got, c.want)
			continue
		}
		g, err := ParseURL(urlMustParse(t, got))
		typ := c.typ
		if typ == 0 {
			typ = '1'
		}
		want := URL{Type: typ, Selector: c.sel, Search: c.search, HasSearch: c.hasS || c.hasP, Plus: c.plus, HasPlus: c.hasP}
		if err != nil || *g != want {
			t.Errorf("Gopher(%q) = %+v, %v; want %+v", got, g, err, want)
		}
	}
}
