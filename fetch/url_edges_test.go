package fetch

import (
	"strings"
	"testing"
)

// RFC 1808 §5.1 (and RFC 3986 §5.4.1): a reference that is only a
// "?search" keeps the base's whole path and replaces only its search part.
func TestResolveQueryOnly(t *testing.T) {
	for _, tc := range []struct{ base, ref, want string }{
		{"http://a/b/c/d;p?q#f", "?y", "http://a/b/c/d;p?y"},
		{"http://a/b/c/d", "?y", "http://a/b/c/d?y"},
		{"http://a/b/c/d;p?q#f", "?y#s", "http://a/b/c/d;p?y#s"},
		{"http://a", "?y", "http://a/?y"},
	} {
		base, err := Parse(tc.base)
		if err != nil {
			t.Fatal(err)
		}
		u, err := Resolve(base, tc.ref)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", tc.base, tc.ref, err)
			continue
		}
		if got := u.String(); got != tc.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", tc.base, tc.ref, got, tc.want)
		}
	}
}

// A "URL:" prefix followed by a "<...>" wrapper (or by anything Parse does
// not unwrap) left the password in RedactedText and so in Parse's error.
func TestRedactedTextURLPrefix(t *testing.T) {
	for _, raw := range []string{
		"URL: <ftp://u:secret@h/>",
		"<URL: <ftp://u:secret@h/>>",
		"URL:x ftp://u:secret@h/",
	} {
		if got := RedactedText(raw); strings.Contains(got, "secret") {
			t.Errorf("RedactedText(%q) = %q shows the password", raw, got)
		}
		if _, err := Parse(raw); err == nil {
			t.Errorf("Parse(%q) succeeded", raw)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("Parse(%q) error %q shows the password", raw, err)
		}
	}
}

// A URL in parentheses whose path has its own "(...)": the closing ")"
// of the prose was kept in the URL.
func TestExtractURLsParenthesis(t *testing.T) {
	for text, want := range map[string]string{
		"(see URL:http://a/(b))": "http://a/(b)",
		"(URL:http://a/(b)).":    "http://a/(b)",
		"URL:http://a/(b)":       "http://a/(b)",
		"(URL:http://a/b)":       "http://a/b",
	} {
		got := ExtractURLs(text)
		if len(got) != 1 || got[0] != want {
			t.Errorf("ExtractURLs(%q) = %q, want [%q]", text, got, want)
		}
	}
}
