package wais

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
	}{
		{"wais://h/db", URL{Database: "db"}},
		{"wais://quake.think.com/wais-discussion-archives?lynch", URL{Database: "wais-discussion-archives", Search: "lynch", HasSearch: true}},
		{"wais://h/db?a%20b", URL{Database: "db", Search: "a b", HasSearch: true}},
		// RFC 1630: "+" in a search is a space, a real plus is "%2B"
		{"wais://h/db?c%2B%2B+code", URL{Database: "db", Search: "c++ code", HasSearch: true}},
		{"wais://h:210/db/TEXT/0%2F1%3B2", URL{Database: "db", WType: "TEXT", WPath: "0/1;2", IsDoc: true}},
	}
	for _, c := range cases {
		w, err := ParseURL(urlMustParse(t, c.in))
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.in, err)
			continue
		}
		if *w != c.want {
			t.Errorf("ParseURL(%q) = %+v, want %+v", c.in, *w, c.want)
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
		_, err := ParseURL(urlMustParse(t, c.in))
		fetchtest.WantViewError(t, c.in, err, c.part, c.offset)
	}
}
