package nntp

import (
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// TestIdleCapIsPerServer: Options.MaxIdlePerHost bounds the unused
// sessions kept per server, whatever credentials each has: a URL with a
// user and one without keep at most MaxIdlePerHost sessions with the
// server between them.
func TestIdleCapIsPerServer(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, user: "reader", pass: "s3cret", groups: defaultGroups()})
	c, d := pooledClient(t, fetch.Options{MaxIdlePerHost: 1}, Config{})
	if _, _, err := get(t, c, "nntp://reader:s3cret@"+f.addr()+"/fetch.test.secret/1"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := get(t, c, "nntp://"+f.addr()+"/fetch.test.alpha/1"); err != nil {
		t.Fatal(err)
	}
	if n := d.pool.Len(); n > 1 {
		t.Errorf("%d idle sessions with %s, want at most MaxIdlePerHost (1)", n, f.addr())
	}
}
