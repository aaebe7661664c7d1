package fetch

import (
	"mime"
	"strings"
	"testing"
)

func TestTypeByExtension(t *testing.T) {
	for _, c := range []struct{ ext, want string }{
		{".gz", "application/gzip"},
		{".GZ", "application/gzip"}, // any case
		{".Tar", "application/x-tar"},
		{".Z", "application/x-compress"}, // compress(1), not a case of .z's absence
		{".txt", "text/plain; charset=utf-8"},
		{"", ""},
		{".", ""},
		{"gz", ""}, // the dot belongs to the extension
	} {
		if got := TypeByExtension(c.ext); got != c.want {
			t.Errorf("TypeByExtension(%q) = %q, want %q", c.ext, got, c.want)
		}
	}
}

// Extensions outside the table get the standard library's answer.
func TestTypeByExtensionFallsBack(t *testing.T) {
	for _, ext := range []string{".wasm", ".mjs", ".avif", ".no-such-extension"} {
		if _, ok := commonTypes[ext]; ok {
			t.Fatalf("%s is in the table; pick another extension for this test", ext)
		}
		if got, want := TypeByExtension(ext), mime.TypeByExtension(ext); got != want {
			t.Errorf("TypeByExtension(%q) = %q, mime.TypeByExtension says %q", ext, got, want)
		}
	}
}

// Every entry is a lower-case extension with its dot and a well-formed
// media type, so that lookups find it and callers can parse what they get.
func TestCommonTypesWellFormed(t *testing.T) {
	for ext, typ := range commonTypes {
		if !strings.HasPrefix(ext, ".") || len(ext) < 2 || ext != strings.ToLower(ext) {
			t.Errorf("table key %q: want a lower-case extension with its dot", ext)
		}
		if _, _, err := mime.ParseMediaType(typ); err != nil {
			t.Errorf("table type for %s, %q: %v", ext, typ, err)
		}
	}
}
