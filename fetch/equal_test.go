package fetch

import (
	"errors"
	"testing"
)

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		// RFC 1630 Example 1: "are identical, as the %2D encodes a hyphen".
		{"http://info.cern.ch/albert/bertram/marie-claude", "http://info.cern.ch/albert/bertram/marie%2Dclaude", true},
		// Example 2: "are NOT identical, as in the second case the encoded
		// slash does not have hierarchical significance."
		{"http://info.cern.ch/albert/bertram/marie-claude", "http://info.cern.ch/albert/bertram%2Fmarie-claude", false},
		{"HTTP://Info.CERN.ch/a", "http://info.cern.ch/a", true},
		{"http://h:80/", "http://h/", true},
		{"http://h:80/", "http://h", true},
		{"http://h:8080/", "http://h/", false},
		{"https://h:443/x", "https://h/x", true},
		{"ftp://h:21/x", "ftp://h/x", true},
		{"gopher://h:70/", "gopher://h", true},
		// RFC 1738 §3.4: an empty gopher path is type 1, an empty selector
		{"gopher://h/1", "gopher://h", true},
		{"gopher://h:70/%31", "gopher://h/", true},
		{"gopher://h/1/", "gopher://h/", false},
		{"gopher://h/11", "gopher://h/1", false},
		{"ftp://h/1", "ftp://h/", false},
		{"http://h?q", "http://h/?q", true},
		{"http://h/%7e", "http://h/~", true},
		{"http://h/%7E", "http://h/%7e", true},
		{"http://h/%41", "http://h/A", true},
		{"http://h/%3b", "http://h/;", false},
		{"http://h/%3b", "http://h/%3B", true},
		{"http://h/a+b", "http://h/a%2Bb", true},
		{"http://h/?a+b", "http://h/?a%2Bb", false},
		{"http://h/x#a%2D", "http://h/x#a-", true},
		{"http://h/x#a", "http://h/x#b", false},
		{"http://h/x#a", "http://h/x", false},
		{"ftp://u@h/", "ftp://%75@h/", true},
		{"ftp://@h/", "ftp://h/", false},
		{"http://bücher.example/", "http://xn--bcher-kva.example/", true},
		{"http://[::1]/", "http://[0:0::1]/", true},
		{"mailto:a@b", "mailto:%61@b", true},
		{"mailto:A@b", "mailto:a@b", false},
		{"<URL:news:*>", "news:*", true},
	}
	for _, c := range cases {
		// Key agrees with Equal: a seen set of Keys de-duplicates by
		// the same rules.
		if ua, err := testSchemes.Parse(c.a); err == nil {
			if ub, err := testSchemes.Parse(c.b); err == nil {
				if same := testSchemes.Key(ua) == testSchemes.Key(ub); same != c.want {
					t.Errorf("Key(%q) == Key(%q) is %v, want %v", c.a, c.b, same, c.want)
				}
			}
		}
		got, err := testSchemes.Equal(c.a, c.b)
		if err != nil {
			t.Errorf("Equal(%q, %q): %v", c.a, c.b, err)
			continue
		}
		if got != c.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	// Example 3: "are illegal, as all % characters imply encodings, and
	// there is no decoding defined for "%*" or "%as"".
	for _, bad := range []string{"fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", "news:12345667123%asdghfh@info.cern.ch"} {
		_, err := testSchemes.Equal(bad, bad)
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindMalformed {
			t.Errorf("Equal(%q): %v, want a malformed URL error", bad, err)
		}
		if _, err := testSchemes.Equal("http://h/", bad); err == nil {
			t.Errorf("Equal(ok, %q): no error", bad)
		}
	}
}
