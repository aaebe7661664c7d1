package fetchtest

import (
	"errors"
	"reflect"
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

// CheckViews is the table test of a scheme's URL view: each URL of cases,
// parsed by the grammar of recs, must give view the value it wants
// (compared with reflect.DeepEqual), and each of refused the
// malformed-URL error about its part at its offset (WantViewError). The
// tables are the callers' own struct types, with these fields.
func CheckViews[V any](t *testing.T, recs []fetch.Scheme, view func(*fetch.URL) (*V, error),
	cases []struct {
		In   string
		Want V
	},
	refused []struct {
		In     string
		Part   string
		Offset int
	}) {
	t.Helper()
	for _, c := range cases {
		v, err := view(MustParse(t, c.In, recs...))
		if err != nil {
			t.Errorf("%q: %v", c.In, err)
			continue
		}
		if !reflect.DeepEqual(*v, c.Want) {
			t.Errorf("%q:\n got %+v\nwant %+v", c.In, *v, c.Want)
		}
	}
	for _, c := range refused {
		_, err := view(MustParse(t, c.In, recs...))
		WantViewError(t, c.In, err, c.Part, c.Offset)
	}
}
