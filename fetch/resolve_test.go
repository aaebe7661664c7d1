package fetch

import "testing"

func TestResolve(t *testing.T) {
	// RFC 1630, "Partial (relative) form": "In the context of URI
	// magic://a/b/c//d/e/f the partial URIs would expand as follows ...
	// and in the context of the URI magic://a/b/c//d/e/ the results would
	// be exactly the same."
	rfc := []struct{ ref, want string }{
		{"g", "magic://a/b/c//d/e/g"},
		{"/g", "magic://a/g"},
		{"//g", "magic://g"},
		{"../g", "magic://a/b/c//d/g"},
		{"g:h", "g:h"},
	}
	for _, base := range []string{"magic://a/b/c//d/e/f", "magic://a/b/c//d/e/"} {
		b := mustParse(t, base)
		for _, c := range rfc {
			u, err := Resolve(b, c.ref)
			if err != nil {
				t.Errorf("Resolve(%q, %q): %v", base, c.ref, err)
				continue
			}
			if got := u.String(); got != c.want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", base, c.ref, got, c.want)
			}
		}
	}

	more := []struct{ base, ref, want string }{
		// Several consecutive slashes: the first run of exactly as many.
		{"magic://a/b/c//d/e/f", "//x/y", "magic://x/y"},
		{"magic://a/b/c///d/e/f", "///g", "magic://a/b/c///g"},
		{"magic://a/b/c//d/e/f", "///g", "magic:///g"},
		// Dot segments: "xxx/../" and "/." go.
		{"http://h/a/b/c", "./g", "http://h/a/b/g"},
		{"http://h/a/b/c", ".", "http://h/a/b/"},
		{"http://h/a/b/c", "..", "http://h/a/"},
		{"http://h/a/b/c", "../../g", "http://h/g"},
		{"http://h/a/b/c", "../../../g", "http://h/../g"},
		{"http://h/a/b/c", "g/./h/../i", "http://h/a/b/g/i"},
		{"http://h/a/b/c", "g?x=/../y", "http://h/a/b/g?x=/../y"},
		{"http://h/a/b/c?q=/x/y", "g", "http://h/a/b/g"},
		{"http://h/a/b/c?q=/x/y", "/g", "http://h/g"},
		{"http://h", "g", "http://h/g"},
		{"http://h?q", "g", "http://h/g"},
		{"http://h?q", "/g", "http://h/g"},
		{"http://h/a/b#f", "", "http://h/a/b"},
		{"http://h/a/b#f", "#g", "http://h/a/b#g"},
		{"http://h/a/b", "g#x", "http://h/a/g#x"},
		{"http://u:p@h:81/a/b", "c", "http://u:p@h:81/a/c"},
		{"http://h/a/b", "https://k/", "https://k/"},
		{"http://h/a/b", "<URL:ftp://k/x>", "ftp://k/x"},
		{"ftp://h/pub/", "README", "ftp://h/pub/README"},
		{"gopher://h/1/a/b", "c", "gopher://h/1/a/c"},
		{"file:/a/b/c", "../d", "file:/a/d"},
		{"news:comp.lang.go", "comp.lang.c", "news:comp.lang.c"},
		{"http://h/a%20b/", "c", "http://h/a%20b/c"},
		{"http://h/~a/", "c", "http://h/%7Ea/c"},
	}
	for _, c := range more {
		u, err := Resolve(mustParse(t, c.base), c.ref)
		if err != nil {
			t.Errorf("Resolve(%q, %q): %v", c.base, c.ref, err)
			continue
		}
		if got := u.String(); got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", c.base, c.ref, got, c.want)
		}
	}
	if _, err := Resolve(mustParse(t, "http://h/"), "a%zz"); err == nil {
		t.Error("Resolve of a malformed ref: no error")
	}
	if u, err := Resolve(nil, "http://h/x"); err != nil || u.String() != "http://h/x" {
		t.Errorf("Resolve(nil, abs) = %v, %v", u, err)
	}
}

// TestResolveOpaqueLeadingSlashes: Resolve removes "xxx/../" from a
// slash-short path (file:/a/b); when that leaves it starting with "//",
// the URL is still the one its String names ("file://x" would name the
// host x).
func TestResolveOpaqueLeadingSlashes(t *testing.T) {
	u, err := Resolve(mustParse(t, "file:/a/b"), "..//x")
	if err != nil {
		t.Fatal(err)
	}
	v, err := Parse(u.String())
	if err != nil {
		t.Fatalf("Resolve = %+v, String %q: %v", *u, u.String(), err)
	}
	if *v != *u {
		t.Errorf("Resolve(file:/a/b, ..//x) = %+v, but its String %q parses to %+v", *u, u.String(), *v)
	}
}

// TestResolveEmptyAuthority: a relative path never names a host. In the
// context of file:// (an empty host, no path: the generic syntax allows
// it), "g" and "/g" replace the empty path (they were made the host,
// file://g).
func TestResolveEmptyAuthority(t *testing.T) {
	for _, ref := range []string{"g", "/g"} {
		u, err := testSchemes.Resolve(mustParse(t, "file://"), ref)
		if err != nil {
			t.Errorf("Resolve(file://, %q): %v", ref, err)
			continue
		}
		if u.Host != "" || u.Path != "g" {
			t.Errorf("Resolve(file://, %q) = %q (host %q, path %q), want file:///g", ref, u.String(), u.Host, u.Path)
		}
	}
}
