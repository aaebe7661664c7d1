package fetch

import "testing"

func mustParse(t *testing.T, s string) *URL {
	t.Helper()
	u, err := testParse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}
