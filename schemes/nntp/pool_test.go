package nntp

import (
	"fmt"
	"io"
	"net"
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

// TestPoolLineSentWhileIdle: a server may write to a session while it
// waits in the pool, with no command outstanding: a 400 before it closes
// an idle session (RFC 3977 §3.2.1 allows one at any time), or a line no
// command asked for. The check before reuse must not take that line for
// DATE's reply: a 5xx passes the check (an older server's "unknown
// command"), and the request's first command then read DATE's 111 as its
// reply, or the end of a connection closed after the line, and failed.
// Each fetch must succeed, the second on a new session.
func TestPoolLineSentWhileIdle(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		close      bool
	}{
		{"400 then closed", "400 idle timeout", true},
		{"400, left open", "400 idle timeout", false},
		{"stray 500", "500 What?", false},
		{"502 then closed", "502 Connection closing", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conns := make(chan net.Conn, 4)
			f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
				if line == "" { // a new connection, before its greeting
					conns <- c.conn
				}
				return false
			}})
			c, _ := pooledClient(t, fetch.Options{}, Config{Server: f.addr()})
			if _, _, err := get(t, c, "news:hello.1@fetch.test"); err != nil {
				t.Fatal(err)
			}
			// The fake's handler waits for a command; the line is
			// written as a server's timer would write it.
			idle := <-conns
			fmt.Fprintf(idle, "%s\r\n", tc.line)
			if tc.close {
				idle.Close()
			}
			// Time for the line to reach the client (on loopback it has
			// by the time the write returns; the wait is slack).
			time.Sleep(100 * time.Millisecond)
			for i := range 2 {
				if _, body, err := get(t, c, "news:hello.1@fetch.test"); err != nil || !strings.Contains(string(body), "Hello, news") {
					t.Fatalf("fetch %d after the line: %q, %v", i+1, body, err)
				}
			}
			if n := len(conns); n != 1 {
				t.Errorf("%d new sessions after the line, want 1", n)
			}
		})
	}
}
