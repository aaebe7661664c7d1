package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestErrorOffsetMaskedCommand: the offset the command prints for a
// malformed URL indexes the URL it prints, with the password masked,
// after the library's masking and the command's own (a login without a
// scheme, bytes that are not UTF-8), and the password is never printed.
func TestErrorOffsetMaskedCommand(t *testing.T) {
	cases := []struct {
		in, password, at string
	}{
		{"ftp://joe:hunter2@host:99999/", "hunter2", "99999/"},
		{"ftp://joe:Q7@h%zz/", "Q7", "%zz/"},
		{"ftp://joe:hun%zzter2@host/", "ter2", "****@host/"},
		{"FTP://joe:hun%zzter2@HOST/", "ter2", "****@host/"}, // shown in canonical form
		{"http://joe:hunter2@h/\xff a", "hunter2", " a"},     // shown with %FF
		{"joe:hun ter2@host/", "ter2", "****@host/"},         // curl's form, masked by the command
		{"joe:Q7@host/a b", "Q7", " b"},
	}
	for _, c := range cases {
		code, _, stderr := runFetch(t, "", c.in)
		if code != 3 {
			t.Errorf("fetch %q exited %d, want 3 (stderr %q)", c.in, code, stderr)
		}
		if strings.Contains(stderr, c.password) {
			t.Errorf("fetch %q: stderr %q shows the password", c.in, stderr)
		}
		// fetch: URL: parse: part (at offset N): why
		url, rest, ok := strings.Cut(strings.TrimPrefix(stderr, "fetch: "), ": parse: ")
		_, n, _ := strings.Cut(rest, "(at offset ")
		n, _, _ = strings.Cut(n, ")")
		off, err := strconv.Atoi(n)
		if !ok || err != nil || off < 0 || off > len(url) {
			t.Errorf("fetch %q: no offset inside the URL in stderr %q", c.in, stderr)
			continue
		}
		if !strings.HasPrefix(url[off:], c.at) {
			t.Errorf("fetch %q: offset %d points at %q in %q, want %q", c.in, off, url[off:], url, c.at)
		}
	}
}
