package fetch

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorOffsetMaskedParse: a parse error's Offset indexes its URL as
// shown, with the password masked, whether the password is shorter than
// the mask, longer, empty or %-escaped; a fault inside the password is
// shown at the start of the mask, and the password is never shown.
func TestErrorOffsetMaskedParse(t *testing.T) {
	cases := []struct {
		in       string
		password []string // as written and decoded: in neither URL nor Error()
		at       string   // what URL[Offset:] starts with
	}{
		// Faults after the password.
		{"ftp://joe:Q7@h%zz/", []string{"Q7"}, "%zz/"},
		{"ftp://joe:correct-horse-battery@host:99999/", []string{"correct-horse-battery"}, "99999/"},
		{"ftp://joe:abcd@h/a b", []string{"abcd"}, " b"},
		{"ftp://joe:@host/a b", nil, " b"},
		{"ftp://joe:s%65cr%40t@host/a b", []string{"s%65cr%40t", "secr@t"}, " b"},
		{"http://joe:hunter2@h/x#a b", []string{"hunter2"}, " b"},
		{"http://joe:hunter2@h:8x/", []string{"hunter2"}, "x/"},
		{"<URL:ftp://joe:hunter2@h/a b>", []string{"hunter2"}, " b>"},
		{"ftp:/joe:hunter2@h/a b", []string{"hunter2"}, " b"}, // a slash short
		// Faults before the password.
		{"ft_p://joe:hunter2@h/", []string{"hunter2"}, "_p://"},
		{"ftp://j%zz:hunter2@h/", []string{"hunter2"}, "%zz:"},
		{"ftp://a@b:hunter2@h/", []string{"hunter2"}, "@b:****@h/"},
		// Faults inside the password: the start of the mask.
		{"ftp://joe:hun%zzter2@h/", []string{"hun%zzter2", "ter2"}, "****@h/"},
		{"ftp://joe:hun ter2@h/", []string{"hun ter2", "ter2"}, "****@h/"},
		{"ftp://joe:hun@ter2@h/", []string{"hun@ter2", "ter2"}, "****@h/"},
		{"ftp://joe:%zz@h/", []string{"%zz"}, "****@h/"},
		{"ftp://joe:s%65%zz@h/", []string{"s%65%zz", "%zz"}, "****@h/"},
		// "?" ends an HTTP host, so the parser sees a port "pa" where
		// RedactedText sees the password "pa?ss".
		{"http://joe:pa?ss@h/", []string{"pa?ss"}, "****@h/"},
	}
	for _, c := range cases {
		_, err := testParse(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want an *Error", c.in, err)
			continue
		}
		checkMaskedOffset(t, c.in, e, c.password, c.at)
	}
}

// TestErrorOffsetMaskedView: a view's error about a URL without "//"
// counts in its opaque part as written; the offset it gives moves with
// the password Redacted masks there. The "//" form counts in Redacted
// already.
func TestErrorOffsetMaskedView(t *testing.T) {
	// A view of a scheme of our own that refuses "!" in its path.
	bang := func(u *URL) (any, error) {
		part := u.Opaque
		if u.Slashes {
			part = u.Path
		}
		if i := strings.IndexByte(part, '!'); i >= 0 {
			return nil, u.ViewError("path", u.PathOffset()+i, "\"!\" is not allowed")
		}
		return nil, nil
	}
	reg := NewRegistry(Scheme{Name: "ftp", View: bang})
	for _, in := range []string{
		"ftp:joe:Q7@h/a!b",
		"ftp:joe:correct-horse-battery@h/a!b",
		"ftp://joe:Q7@h/a!b",
		"ftp://joe:correct-horse-battery@h/a!b",
		"ftp://joe:@h/a!b",
	} {
		u, err := reg.Parse(in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		_, err = reg.View(u)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("View(%q) = %v, want an *Error", in, err)
			continue
		}
		checkMaskedOffset(t, in, e, []string{"Q7", "correct-horse-battery"}, "!b")
	}
}

// checkMaskedOffset checks that e.URL[e.Offset:] starts with at and that
// neither e.URL nor e.Error() holds any of password.
func checkMaskedOffset(t *testing.T, in string, e *Error, password []string, at string) {
	t.Helper()
	for _, pw := range password {
		if strings.Contains(e.URL, pw) || strings.Contains(e.Error(), pw) {
			t.Errorf("%q: error %q (URL %q) shows the password %q", in, e.Error(), e.URL, pw)
		}
	}
	if e.Offset < 0 || e.Offset > len(e.URL) {
		t.Errorf("%q: offset %d outside the URL %q", in, e.Offset, e.URL)
		return
	}
	if !strings.HasPrefix(e.URL[e.Offset:], at) {
		t.Errorf("%q: offset %d points at %q in %q, want %q", in, e.Offset, e.URL[e.Offset:], e.URL, at)
	}
}

// TestSchemeOf: the scheme as Parse reads it, through the wrappers it
// takes off, and none where raw starts with no scheme.
func TestSchemeOf(t *testing.T) {
	for in, want := range map[string]string{
		"news:1@h":                 "news",
		" <URL:News:1@h> ":         "news",
		"URL:joe:pw@h/":            "joe",
		"URL: gopher://h/":         "gopher",
		"<mailto:joe@example.com>": "mailto",
		"host/a":                   "",
		"1x:y":                     "",
		":x":                       "",
		"":                         "",
	} {
		if got := SchemeOf(in); got != want {
			t.Errorf("SchemeOf(%q) = %q, want %q", in, got, want)
		}
	}
}
