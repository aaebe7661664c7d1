package telnet

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
	fetchtest.WantViewError(t, "telnet://h/x", err, "path", 11)
}
