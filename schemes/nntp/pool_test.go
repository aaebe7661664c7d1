package nntp

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// pooledClient is a client whose driver keeps sessions; Close runs before
// the fake's cleanup waits for its connections.
func pooledClient(t *testing.T, opts fetch.Options, cfg Config) (*fetch.Client, *Driver) {
	d := New(cfg)
	c := fetch.NewClient(opts)
	c.Register("news", d)
	c.Register("nntp", d)
	t.Cleanup(func() { c.Close() })
	return c, d
}

// TestPoolReuse: articles, a group and an nntp: URL on the configured
// server share one session, which greets, authenticates and (for a
// transit-mode server) switches to reader mode once; DATE checks it
// before each reuse. The exact bytes are in testdata/pool-reuse.golden.
func TestPoolReuse(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, transitCaps: []string{"MODE-READER"}, modeSwitch: true,
		user: "reader", pass: "s3cret", authAll: true, groups: defaultGroups()})
	c, d := pooledClient(t, fetch.Options{}, Config{Server: f.addr(), User: "reader", Password: "s3cret"})
	for _, raw := range []string{
		"news:hello.1@fetch.test",
		"news:fetch.test.beta",
		"nntp://" + f.addr() + "/fetch.test.alpha/4",
		"news:hello.1@fetch.test",
	} {
		if _, _, err := get(t, c, raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	if n := d.pool.Len(); n != 1 {
		t.Errorf("%d idle sessions, want 1", n)
	}
	c.Close()
	got := f.transcript(t)
	if strings.Count(got, "AUTHINFO PASS") != 1 || strings.Count(got, "MODE READER") != 1 {
		t.Errorf("authenticated or switched mode more than once:\n%s", got)
	}
	golden(t, "pool-reuse", got)
	f.noConnection(t)
}

// TestPoolReplacesDroppedSession: a server that hung up on an idle
// session costs a new greeting, and the fetch still succeeds.
func TestPoolReplacesDroppedSession(t *testing.T) {
	drop := true
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		if line == "DATE" && drop {
			drop = false
			c.printf("400 idle too long, goodbye")
			c.flush()
			c.conn.Close()
			return true
		}
		return false
	}})
	c, _ := pooledClient(t, fetch.Options{}, Config{Server: f.addr()})
	for range 2 {
		if _, body, err := get(t, c, "news:hello.1@fetch.test"); err != nil || !strings.Contains(string(body), "Hello, news") {
			t.Fatalf("fetch: %q, %v", body, err)
		}
	}
	first := f.transcript(t)
	if !strings.HasSuffix(first, "DATE\r\n") {
		t.Errorf("the first session did not end at the check:\n%s", first)
	}
	c.Close()
	if second := f.transcript(t); !strings.HasPrefix(second, "CAPABILITIES\r\n") || !strings.HasSuffix(second, "QUIT\r\n") {
		t.Errorf("second session:\n%s", second)
	}
}

// TestPoolIdleExpiry: an idle session says QUIT after IdleSessionTimeout.
func TestPoolIdleExpiry(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups()})
	c, d := pooledClient(t, fetch.Options{IdleSessionTimeout: 50 * time.Millisecond}, Config{Server: f.addr()})
	if _, _, err := get(t, c, "news:hello.1@fetch.test"); err != nil {
		t.Fatal(err)
	}
	if got := f.transcript(t); !strings.HasSuffix(got, "QUIT\r\n") {
		t.Errorf("expired session:\n%s", got)
	}
	if d.pool.Len() != 0 {
		t.Errorf("%d idle after expiry", d.pool.Len())
	}
}

// TestPoolKeysOnCredentials: a session authenticated as one user never
// serves a URL that names another.
func TestPoolKeysOnCredentials(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, user: "reader", pass: "s3cret", groups: defaultGroups()})
	c, _ := pooledClient(t, fetch.Options{}, Config{})
	base := "nntp://reader:s3cret@" + f.addr() + "/fetch.test.secret/1"
	if _, _, err := get(t, c, base); err != nil {
		t.Fatal(err)
	}
	_, _, err := get(t, c, "nntp://reader:wrong@"+f.addr()+"/fetch.test.secret/1")
	if fetch.KindOf(err) != fetch.KindServer {
		t.Fatalf("a wrong password on a pooled server: %v", err)
	}
	if got := f.transcript(t); !strings.Contains(got, "AUTHINFO PASS wrong") {
		// the failed session ends first; the good one is still pooled
		t.Errorf("the wrong password was not tried on its own session:\n%s", got)
	}
}

// TestPoolArticleClosedTwice: closing an article's body a second time
// (an io.Closer's Close may be called again) does not give its session
// back to the pool a second time, where two requests would share it.
func TestPoolArticleClosedTwice(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups()})
	c, d := pooledClient(t, fetch.Options{}, Config{Server: f.addr()})
	res, err := c.Fetch(t.Context(), "news:hello.1@fetch.test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(res.Document.Body); err != nil {
		t.Fatal(err)
	}
	res.Document.Body.Close()
	res.Document.Body.Close()
	if n := d.pool.Len(); n != 1 {
		t.Errorf("%d idle sessions after one article, want 1", n)
	}
}
