package prospero

import (
	"reflect"
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
		// RFC 1738 §3.11: "<URL:prospero://host.dom//pros/name> designates
		// a <hsoname> of "/pros/name"."
		{"prospero://host.dom//pros/name", URL{HSOName: "/pros/name"}},
		{"prospero://host.dom/pros/name", URL{HSOName: "pros/name"}},
		{"prospero://h//a%3Bb;OBJECT-VERSION=3;x%3Dy=z%20w",
			URL{HSOName: "/a;b", Fields: []fetch.HeaderField{{Name: "OBJECT-VERSION", Value: "3"}, {Name: "x=y", Value: "z w"}}}},
		// RFC 1630: "the version number is separated from the host specific
		// object name by the characters "%00""
		{"prospero://h//pros/name%0012", URL{HSOName: "/pros/name", Version: "12"}},
		// The 1993 draft: attributes after a further %00.
		{"prospero://h//n%00%00attr", URL{HSOName: "/n", Fields: []fetch.HeaderField{{Name: "", Value: "attr"}}}},
	}
	for _, c := range cases {
		p, err := ParseURL(urlMustParse(t, c.in))
		if err != nil {
			t.Errorf("ParseURL(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*p, c.want) {
			t.Errorf("ParseURL(%q) = %+v, want %+v", c.in, *p, c.want)
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
		_, err := ParseURL(urlMustParse(t, c.in))
		fetchtest.WantViewError(t, c.in, err, c.part, c.offset)
	}
}
