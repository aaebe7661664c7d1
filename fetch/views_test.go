package fetch

import (
	"errors"
	"reflect"
	"testing"
)

func mustParse(t *testing.T, s string) *URL {
	t.Helper()
	u, err := testParse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// wantViewErr checks err is a Malformed *Error for part at offset (an
// offset in the URL's Redacted form).
func wantViewErr(t *testing.T, in string, err error, part string, offset int) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%q: got %v, want a %s error", in, err, part)
		return
	}
	if e.Kind != KindMalformed || e.Part != part || e.Offset != offset {
		t.Errorf("%q: got part %q offset %d (%v), want part %q offset %d", in, e.Part, e.Offset, err, part, offset)
	}
}

func TestWAIS(t *testing.T) {
	cases := []struct {
		in   string
		want WAISURL
	}{
		{"wais://h/db", WAISURL{Database: "db"}},
		{"wais://quake.think.com/wais-discussion-archives?lynch", WAISURL{Database: "wais-discussion-archives", Search: "lynch", HasSearch: true}},
		{"wais://h/db?a%20b", WAISURL{Database: "db", Search: "a b", HasSearch: true}},
		{"wais://h:210/db/TEXT/0%2F1%3B2", WAISURL{Database: "db", WType: "TEXT", WPath: "0/1;2", IsDoc: true}},
	}
	for _, c := range cases {
		w, err := mustParse(t, c.in).WAIS()
		if err != nil {
			t.Errorf("WAIS(%q): %v", c.in, err)
			continue
		}
		if *w != c.want {
			t.Errorf("WAIS(%q) = %+v, want %+v", c.in, *w, c.want)
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
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).WAIS()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}

func TestProspero(t *testing.T) {
	cases := []struct {
		in   string
		want ProsperoURL
	}{
		// RFC 1738 §3.11: "<URL:prospero://host.dom//pros/name> designates
		// a <hsoname> of "/pros/name"."
		{"prospero://host.dom//pros/name", ProsperoURL{HSOName: "/pros/name"}},
		{"prospero://host.dom/pros/name", ProsperoURL{HSOName: "pros/name"}},
		{"prospero://h//a%3Bb;OBJECT-VERSION=3;x%3Dy=z%20w",
			ProsperoURL{HSOName: "/a;b", Fields: []HeaderField{{"OBJECT-VERSION", "3"}, {"x=y", "z w"}}}},
		// RFC 1630: "the version number is separated from the host specific
		// object name by the characters "%00""
		{"prospero://h//pros/name%0012", ProsperoURL{HSOName: "/pros/name", Version: "12"}},
		// The 1993 draft: attributes after a further %00.
		{"prospero://h//n%00%00attr", ProsperoURL{HSOName: "/n", Fields: []HeaderField{{"", "attr"}}}},
	}
	for _, c := range cases {
		p, err := mustParse(t, c.in).Prospero()
		if err != nil {
			t.Errorf("Prospero(%q): %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*p, c.want) {
			t.Errorf("Prospero(%q) = %+v, want %+v", c.in, *p, c.want)
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
	}
	for _, c := range bad {
		_, err := mustParse(t, c.in).Prospero()
		wantViewErr(t, c.in, err, c.part, c.offset)
	}
}
