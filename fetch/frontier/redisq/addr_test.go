package redisq

import (
	"strings"
	"testing"
)

func TestParseAddr(t *testing.T) {
	t.Setenv(PasswordEnv, "from-env")
	cases := []struct {
		raw  string
		want Addr
	}{
		{"redis://127.0.0.1:18379/crawl", Addr{Host: "127.0.0.1:18379", Name: "crawl", Password: "from-env"}},
		{"redis://h/crawl", Addr{Host: "h:6379", Name: "crawl", Password: "from-env"}},
		{"rediss://u:p%40ss@[::1]:7000/c?db=3", Addr{TLS: true, Host: "[::1]:7000", User: "u", Password: "p@ss", Name: "c", DB: 3}},
	}
	for _, c := range cases {
		a, err := ParseAddr(c.raw)
		if err != nil {
			t.Errorf("ParseAddr(%q): %v", c.raw, err)
			continue
		}
		a.raw = nil
		if *a != c.want {
			t.Errorf("ParseAddr(%q) = %+v, want %+v", c.raw, *a, c.want)
		}
	}
	for _, bad := range []string{
		"http://h/crawl", "redis:///crawl", "redis://h:0/crawl", "redis://h/", "redis://h/a/b",
		"redis://h/crawl?db=x", "redis://h/crawl?dbx=1", "redis://u:secret@h:99999/c", "redis://u:secret@h/c%zz",
		// a password with an unencoded "/", "#", "?" or "%": net/url's
		// reason quoted its start
		"redis://u:secret/x@h/c", "redis://u:secret#x@h/c", "redis://u:secret?x@h/c", "redis://u:se%cret@h/c",
	} {
		_, err := ParseAddr(bad)
		if err == nil {
			t.Errorf("ParseAddr(%q): no error", bad)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("ParseAddr(%q): the error shows the password: %v", bad, err)
		}
	}
}
