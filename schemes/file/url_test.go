package file

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		// RFC 1738 §3.10: DISK$USER:[MY.NOTES]NOTE123456.TXT might become
		// <URL:file://vms.host.edu/disk$user/my/notes/note12345.txt>
		{"file://vms.host.edu/disk$user/my/notes/note12345.txt", URL{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"}},
		// "<host> can be the string "localhost" or the empty string"
		{"file:///etc/motd", URL{Path: "/etc/motd"}},
		{"file://localhost/etc/motd", URL{Path: "/etc/motd"}},
		{"file://LocalHost/etc/motd", URL{Path: "/etc/motd"}},
		{"file:///tmp/a%20b%3Bc?d", URL{Path: "/tmp/a b;c?d"}},
		{"file:/etc/motd", URL{Path: "/etc/motd"}},
		{"file://", URL{Path: "/"}},
		{"file:///", URL{Path: "/"}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"file:///etc%2Fpasswd", "path", 11},
		{"file:///etc/pass%00wd", "path", 16},
		{"file:etc/motd", "path", 5},
		{"file://u@h/x", "user", 7},
		{"file://h:21/x", "port", 8},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}
