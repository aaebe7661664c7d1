//go:build integration

package integration

import (
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The batch tests give the fetch command the 200 small files of the
// content tree's batch/ directory on one command line and count, in front
// of the real server, the TCP connections it opens: one FTP login and one
// HTTP connection serve them all (issue 13's reused sessions).

const batchFiles = 200

// batchURLs are the batch files under base, in order, and the bytes the
// command prints for them.
func batchURLs(base string) ([]string, string) {
	var urls []string
	var want strings.Builder
	for i := range batchFiles {
		urls = append(urls, fmt.Sprintf("%s/batch/f%03d.txt", base, i))
		fmt.Fprintf(&want, "batch file %03d\n", i)
	}
	return urls, want.String()
}

// countingRelay forwards every TCP connection it accepts on loopback to
// target and counts them: the connections the real server is given.
type countingRelay struct {
	ln    net.Listener
	n     atomic.Int32
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns []net.Conn
}

func newCountingRelay(t *testing.T, target string) *countingRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &countingRelay{ln: ln}
	r.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.n.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, up)
			r.mu.Unlock()
			pipe := func(dst, src net.Conn) {
				io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
			}
			r.wg.Go(func() { pipe(up, c) })
			r.wg.Go(func() { pipe(c, up) })
		}
	})
	t.Cleanup(func() {
		ln.Close()
		r.mu.Lock()
		for _, c := range r.conns {
			c.Close()
		}
		r.mu.Unlock()
		r.wg.Wait()
	})
	return r
}

func (r *countingRelay) addr() string { return r.ln.Addr().String() }

// TestBatchFTPOneLogin: 200 files from each real FTP server, anonymously
// and as the named user, in one invocation log in once.
func TestBatchFTPOneLogin(t *testing.T) {
	eachFTPNamed(t, func(t *testing.T, server, addr string) {
		for _, login := range []string{"", ftpUserinfo(t)} {
			relay := newCountingRelay(t, addr)
			urls, want := batchURLs("ftp://" + login + relay.addr())
			code, out, stderr := runCLI(t, "", append([]string{"-q"}, urls...)...)
			if code != 0 || string(out) != want {
				t.Fatalf("fetch of %d files from %s: exit %d, %d bytes (want %d)\n%s", batchFiles, server, code, len(out), len(want), stderr)
			}
			if n := relay.n.Load(); n != 1 {
				t.Errorf("%s (named user %v): %d control connections for %d files, want 1", server, login != "", n, batchFiles)
			}
		}
	})
}

// TestBatchHTTPKeepAlive: 200 files from nginx in one invocation use a
// handful of connections at most (one, unless nginx closes an idle one).
func TestBatchHTTPKeepAlive(t *testing.T) {
	wantServer(t, "nginx")
	relay := newCountingRelay(t, serverAddr(t, "FETCH_HTTP_ADDR"))
	urls, want := batchURLs("http://" + relay.addr())
	code, out, stderr := runCLI(t, "", append([]string{"-q"}, urls...)...)
	if code != 0 || string(out) != want {
		t.Fatalf("fetch of %d files: exit %d, %d bytes (want %d)\n%s", batchFiles, code, len(out), len(want), stderr)
	}
	if n := relay.n.Load(); n < 1 || n > 2 {
		t.Errorf("%d TCP connections for %d files, want 1 (2 at most)", n, batchFiles)
	}
	t.Logf("%d TCP connection(s) for %d files", relay.n.Load(), batchFiles)
}

// TestBatchNewsOneSession: articles and a group from INN in one invocation
// share one session (greeting, MODE READER once).
func TestBatchNewsOneSession(t *testing.T) {
	wantServer(t, "inn")
	relay := newCountingRelay(t, serverAddr(t, "FETCH_NNTP_ADDR"))
	t.Setenv("NNTPSERVER", relay.addr())
	args := []string{"-q", "news:alpha-2-dots@fetch.test", "news:fetch.test.alpha", "news:alpha-3-large@fetch.test", "news:alpha-4-utf8@fetch.test"}
	code, out, stderr := runCLI(t, "", args...)
	if code != 0 || !strings.Contains(string(out), "alpha-4-utf8@fetch.test") {
		t.Fatalf("fetch %v: exit %d\n%s\n%s", args[1:], code, out, stderr)
	}
	if n := relay.n.Load(); n != 1 {
		t.Errorf("%d NNTP connections for %d URLs, want 1", n, len(args)-1)
	}
}
