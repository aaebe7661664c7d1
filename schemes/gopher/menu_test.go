package gopher

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// TestSessionURLHost: a type 8 or T item's host field is written into its
// telnet:// or tn3270:// URL encoded, as a gopher URL's is: "a#b" read
// back as host "a" (and fragment "b/") would send a user who pastes the
// listing's URL to another host.
func TestSessionURLHost(t *testing.T) {
	for _, host := range []string{"a#b", "a/b", "a?b", "a@b", "::1", "bbs.example"} {
		for _, typ := range []byte{'8', 'T'} {
			it := Item{Type: typ, Name: "n", Selector: "guest", Host: host, Port: 23}
			s := it.URL("", 0)
			if s == "" {
				continue // no URL at all is safe too
			}
			u, err := fetch.Parse(s)
			if err != nil {
				t.Errorf("%c %q: %q does not parse: %v", typ, host, s, err)
				continue
			}
			if u.Host != host || u.HasFragment {
				t.Errorf("%c %q: %q names host %q (fragment %q)", typ, host, s, u.Host, u.Fragment)
			}
		}
	}
}
