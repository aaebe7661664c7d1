package prospero

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
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
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"prospero://h/n;field", "field", 15},
		{"prospero://h/n;a=b=c", "field", 18},
		{"prospero://u:p@h/n", "user", 11},
		{"prospero://h", "hsoname", 12},
		{"prospero://h/", "hsoname", 13},
		{"prospero://h/%00", "hsoname", 13},
		{"prospero://h/;OBJECT-VERSION=1", "hsoname", 13},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
