package ftp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// TestRestNotLeftOnPooledConnection: a resumed fetch whose RETR is
// refused (550) after the server accepted REST leaves the restart marker
// set on servers that keep it for the next transfer command (RFC 3659
// §5.3 allows that, and says the client should then send REST 0 before
// the next transfer that is not to be restarted). The connection goes
// back to the pool; the next URL on it, fetched from the start, must get
// the whole file, not the file from the stale offset.
func TestRestNotLeftOnPooledConnection(t *testing.T) {
	s := rfcServer(t)
	s.add("/top.txt", "at the top\n")
	// The fake keeps the REST offset until a transfer succeeds, as a
	// server that saves it for the next transfer command does.
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	if _, _, err := getAt(t, c, "ftp://"+host+"/missing.txt", 3); err == nil {
		t.Fatal("resumed fetch of a missing file succeeded")
	}
	// ASCII: no SIZE to catch a short transfer.
	got, _, err := get(t, c, "ftp://"+host+"/top.txt;type=a")
	if err != nil || got != "at the top\n" {
		t.Errorf("next URL on the pooled connection: %q, %v; want %q", got, err, "at the top\n")
	}
	got, _, err = get(t, c, "ftp://"+host+"/top.txt")
	if err != nil || got != "at the top\n" {
		t.Errorf("binary fetch: %q, %v; want %q", got, err, "at the top\n")
	}
	t.Logf("control connections: %q", s.controls())
	if cs := s.controls(); len(cs) == 1 && !strings.Contains(strings.Join(cs[0], "\n"), "REST 0") {
		t.Errorf("connection reused after a REST left pending, without REST 0: %q", cs[0])
	}
}

// TestIdleCapIsPerServer: Options.MaxIdlePerHost bounds the unused
// sessions kept per server, whatever login each one has: a batch that
// fetches as two users from one server (its transfers capped with
// --per-host, often because the server refuses more connections from
// one address) must not keep MaxIdlePerHost idle control connections for
// each user.
func TestIdleCapIsPerServer(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, d := pooledClient(fetch.Options{MaxIdlePerHost: 1})
	defer c.Close()
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	wantBody(t, c, "ftp://myname:secret@"+host+"/etc/motd", "message of the day\n")
	wantBody(t, c, "ftp://fetchuser:fetchpass@"+host+"/etc/motd", "message of the day\n")
	if n := d.pool.Len(); n > 1 {
		t.Errorf("%d idle control connections to %s, want at most MaxIdlePerHost (1)", n, host)
	}
	// The latest login is the one kept.
	wantBody(t, c, "ftp://fetchuser:fetchpass@"+host+"/etc/motd", "message of the day\n")
	if n := len(s.controls()); n != 3 {
		t.Errorf("%d control connections, want 3 (the last login reused)", n)
	}
}

// TestTransientEPSVRefusalNotRemembered: a 4xx reply to EPSV is a
// transient failure (RFC 959 §4.2: "the error condition is temporary"),
// not a server without EPSV. The connection goes back to the pool after
// the failed request; the next URL on it must ask EPSV again rather than
// only PASV, which a server on IPv6 never grants.
func TestTransientEPSVRefusalNotRemembered(t *testing.T) {
	s := rfcServer(t)
	epsvs := 0
	s.hook = func(c *fakeConn, verb, arg string) bool {
		switch verb {
		case "EPSV":
			if epsvs++; epsvs == 1 {
				c.reply("425 No free passive ports, try again later.")
				return true
			}
		case "PASV":
			// as a server whose control connection is on IPv6
			c.reply("500 PASV not available on IPv6, use EPSV.")
			return true
		}
		return false
	}
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	if _, _, err := get(t, c, "ftp://"+host+"/etc/motd"); err == nil {
		t.Fatal("first fetch succeeded despite the 425")
	}
	got, _, err := get(t, c, "ftp://"+host+"/etc/motd")
	if err != nil || got != "message of the day\n" {
		t.Errorf("next URL on the pooled connection: %q, %v", got, err)
	}
	t.Logf("control connections: %q", s.controls())
}

// TestPoolLineSentWhileIdle: a server may write to a control connection
// while it waits in the pool, with no command outstanding: a "421
// Timeout." before it closes an idle session (vsftpd, pyftpdlib), or a
// line no command asked for while it stays open. The next request must
// not take that line for the reply to its first command (the NOOP of the
// check, or the first command of a connection reused without one): every
// reply after it would then answer the command before (the EPSV's 229
// read as PASV's), which failed the fetch. It must succeed, on a new
// login.
func TestPoolLineSentWhileIdle(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		close      bool
	}{
		{"421 then closed", "421 Timeout.", true},
		{"421, left open", "421 Timeout.", false},
		{"stray 200", "200 Still here.", false},
		{"stray 226", "226 Transfer complete.", false},
	} {
		for _, checkAfter := range []time.Duration{0, time.Hour} {
			t.Run(fmt.Sprintf("%s, check after %v", tc.name, checkAfter), func(t *testing.T) {
				s := rfcServer(t)
				s.add("/top.txt", "top\n")
				conns := make(chan *fakeConn, 4)
				s.hook = func(c *fakeConn, verb, arg string) bool {
					if verb == "USER" {
						conns <- c
					}
					return false
				}
				host := s.addr()
				c, d := pooledClient(fetch.Options{})
				d.checkAfter = checkAfter
				defer c.Close()
				wantBody(t, c, "ftp://"+host+"/top.txt", "top\n")
				// The fake's handler waits for a command; the line is
				// written as a server's timer would write it.
				idle := <-conns
				idle.reply("%s", tc.line)
				if tc.close {
					idle.c.Close()
				}
				// Time for the line to reach the client (on loopback it
				// has by the time the write returns; the wait is slack).
				time.Sleep(100 * time.Millisecond)
				for i := range 2 {
					got, _, err := get(t, c, "ftp://"+host+"/top.txt")
					if err != nil || got != "top\n" {
						t.Fatalf("fetch %d after the line: %q, %v; want %q", i+1, got, err, "top\n")
					}
				}
				if cs := s.controls(); len(cs) != 2 {
					t.Errorf("control connections %q, want 2 (the second a new login, reused)", cs)
				}
			})
		}
	}
}
