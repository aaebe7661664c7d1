package fetchtest

import (
	"errors"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// MustParse parses s by the grammar of recs, a scheme package's records,
// and fails t when s does not parse: for the table tests of each scheme's
// URL view.
func MustParse(t testing.TB, s string, recs ...fetch.Scheme) *fetch.URL {
	t.Helper()
	u, err := fetch.NewRegistry(recs...).Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// WantViewError checks that err is a malformed-URL *fetch.Error about part
// at offset, an offset in the URL's Redacted form.
func WantViewError(t testing.TB, in string, err error, part string, offset int) {
	t.Helper()
	var e *fetch.Error
	if !errors.As(err, &e) {
		t.Errorf("%q: got %v, want a %s error", in, err, part)
		return
	}
	if e.Kind != fetch.KindMalformed || e.Part != part || e.Offset != offset {
		t.Errorf("%q: got part %q offset %d (%v), want part %q offset %d", in, e.Part, e.Offset, err, part, offset)
	}
}
