package telnet

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		{"telnet://bbs.example.com", URL{}},
		{"telnet://bbs.example.com/", URL{}},
		{"telnet://guest@h:2323/", URL{User: "guest", HasUser: true}},
		{"telnet://guest:pw@h", URL{User: "guest", Password: "pw", HasUser: true, HasPassword: true}},
		{"telnet://guest:@h", URL{User: "guest", HasUser: true, HasPassword: true}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"telnet://h/x", "path", 11},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
