package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// pooledClient is a client whose driver keeps control connections and
// checks each one (NOOP or CWD) before reuse, however soon.
func pooledClient(opts fetch.Options) (*fetch.Client, *Driver) {
	d := New(Config{AnonymousPassword: "a@b"})
	d.checkAfter = 0
	c := fetch.NewClient(opts)
	c.Register("ftp", d)
	return c, d
}

// wantBody fetches raw and fails unless the body is want.
func wantBody(t *testing.T, c *fetch.Client, raw, want string) {
	t.Helper()
	got, _, err := get(t, c, raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	if got != want {
		t.Fatalf("%s: got %q, want %q", raw, got, want)
	}
}

// TestPoolReuse: URLs on one server share one control connection, and
// each request starts from the login directory again: the exact commands
// are pinned in testdata/pool-reuse.golden (CWD / restores, NOOP checks
// a connection that never moved).
func TestPoolReuse(t *testing.T) {
	s := rfcServer(t)
	s.add("/top.txt", "at the top\n")
	host := s.addr()
	c, d := pooledClient(fetch.Options{})
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	wantBody(t, c, "ftp://"+host+"/pub/file.txt", "line one\r\nline two\r\n")
	wantBody(t, c, "ftp://"+host+"/top.txt", "at the top\n")
	wantBody(t, c, "ftp://"+host+"/top.txt", "at the top\n")
	if got, _, err := get(t, c, "ftp://"+host+"/pub/"); err != nil || !strings.Contains(got, "file.txt") {
		t.Fatalf("listing: %q, %v", got, err)
	}
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	if n := d.pool.Len(); n != 1 {
		t.Errorf("%d idle connections, want 1", n)
	}
	c.Close()
	if n := d.pool.Len(); n != 0 {
		t.Errorf("%d idle connections after Close, want 0", n)
	}
	waitQuit(t, s, 0)
	if n := len(s.controls()); n != 1 {
		t.Fatalf("%d control connections, want 1", n)
	}
	golden(t, "pool-reuse", s.transcript())
}

// waitQuit waits until control connection i has sent QUIT.
func waitQuit(t *testing.T, s *fakeServer, i int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cs := s.controls(); len(cs) > i && len(cs[i]) > 0 && cs[i][len(cs[i])-1] == "QUIT" {
			return
		}
	}
	t.Fatalf("control connection %d never said QUIT: %q", i, s.controls())
}

// TestPoolRestoresLoginDirectory: RFC 1738 §3.2.2 paths are relative to
// the login directory, so after a request has moved to /pub a reused
// connection must go back to /etc (myname's login directory) before
// "motd" means /etc/motd again.
func TestPoolRestoresLoginDirectory(t *testing.T) {
	s := rfcServer(t)
	s.homes = map[string]string{"myname": "/etc"}
	s.add("/etc/sub/deep.txt", "deep\n")
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	base := "ftp://myname:secret@" + host
	wantBody(t, c, base+"/motd", "message of the day\n")
	wantBody(t, c, base+"/%2Fpub/file.txt", "line one\r\nline two\r\n")
	wantBody(t, c, base+"/motd", "message of the day\n")
	wantBody(t, c, base+"/sub/deep.txt", "deep\n")
	wantBody(t, c, base+"/motd", "message of the day\n")
	c.Close()
	waitQuit(t, s, 0)
	cs := s.controls()
	if len(cs) != 1 {
		t.Fatalf("%d control connections, want 1: %q", len(cs), cs)
	}
	golden(t, "pool-login-directory", s.transcript())
}

// TestPoolReplacesDroppedConnection: a server that closed the idle
// connection costs nothing but a new login.
func TestPoolReplacesDroppedConnection(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	s.drop()
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	cs := s.controls()
	if len(cs) != 2 {
		t.Fatalf("%d control connections, want 2: %q", len(cs), cs)
	}
	if cs[1][0] != "USER anonymous" {
		t.Errorf("the replacement did not log in: %q", cs[1])
	}
}

// TestPoolReplacesTimedOutConnection: a server that said 421 before
// closing (vsftpd's idle timeout) is noticed at the NOOP.
func TestPoolReplacesTimedOutConnection(t *testing.T) {
	s := rfcServer(t)
	s.add("/top.txt", "top\n")
	timedOut := false
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "NOOP" && !timedOut {
			timedOut = true
			c.reply("421 Timeout.")
			c.c.Close()
			return true
		}
		return false
	}
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n")
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n")
	if cs := s.controls(); len(cs) != 2 || cs[0][len(cs[0])-1] != "NOOP" {
		t.Fatalf("control connections %q, want the first to end at NOOP", cs)
	}
}

// TestPoolIdleExpiry: an idle connection is closed, with QUIT, after
// IdleSessionTimeout, and the next request logs in anew.
func TestPoolIdleExpiry(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, d := pooledClient(fetch.Options{IdleSessionTimeout: 100 * time.Millisecond})
	defer c.Close()
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	waitQuit(t, s, 0)
	if n := d.pool.Len(); n != 0 {
		t.Errorf("%d idle connections after expiry", n)
	}
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	if n := len(s.controls()); n != 2 {
		t.Errorf("%d control connections, want 2", n)
	}
}

// TestPoolDisabled: MaxIdlePerHost < 0 keeps nothing; every request
// logs in and says QUIT.
func TestPoolDisabled(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, d := pooledClient(fetch.Options{MaxIdlePerHost: -1})
	for range 2 {
		wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	}
	if n := d.pool.Len(); n != 0 {
		t.Errorf("%d idle connections", n)
	}
	waitQuit(t, s, 1)
	if n := len(s.controls()); n != 2 {
		t.Errorf("%d control connections, want 2", n)
	}
}

// TestPoolAfterRefusal: a 550 leaves the control connection usable.
func TestPoolAfterRefusal(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	if _, _, err := get(t, c, "ftp://"+host+"/etc/nothing"); !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	if _, _, err := get(t, c, "ftp://"+host+"/nodir/x"); !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("missing directory: %v", err)
	}
	wantBody(t, c, "ftp://"+host+"/etc/motd", "message of the day\n")
	if n := len(s.controls()); n != 1 {
		t.Errorf("%d control connections, want 1", n)
	}
}

// A refusal leaves the control connection fit for the next request, but a
// 421 says the server is closing it.
func TestReusableAfterRefusal(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&fetch.Error{Kind: fetch.KindServer, Code: 550}, true},
		{&fetch.Error{Kind: fetch.KindServer, Code: 421}, false},
		{&fetch.Error{Kind: fetch.KindNetwork}, false},
		{&fetch.Error{Kind: fetch.KindServer, Code: 500, Err: ErrBadReply}, false},
	} {
		if got := reusable(tc.err); got != tc.want {
			t.Errorf("reusable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestPoolKeysOnPassword: a connection logged in with one password never
// serves a URL with another, so a wrong password still fails.
func TestPoolKeysOnPassword(t *testing.T) {
	s := rfcServer(t)
	host := s.addr()
	c, d := pooledClient(fetch.Options{})
	defer c.Close()
	wantBody(t, c, "ftp://myname:secret@"+host+"/etc/motd", "message of the day\n")
	if _, _, err := get(t, c, "ftp://myname:wrong@"+host+"/etc/motd"); !errors.Is(err, fetch.ErrAuth) {
		t.Fatalf("wrong password on a pooled server: %v", err)
	}
	// The URL without a password uses the remembered one, and so the
	// same connection.
	wantBody(t, c, "ftp://myname@"+host+"/etc/motd", "message of the day\n")
	if n := len(s.controls()); n != 2 {
		t.Errorf("%d control connections, want 2 (one per password)", n)
	}
	d.pool.CloseIdle()
	key := func(pass string) string { return d.lookupKey(mustRequest(t, "ftp://myname:"+pass+"@"+host+"/")) }
	secret := key("secret")
	if strings.Contains(secret, "secret") {
		t.Errorf("pool key %q holds the password", secret)
	}
	// The last digest is remembered: a password asked again after
	// another gets its own key back, never the other's.
	if wrong := key("wrong"); wrong == secret {
		t.Errorf("two passwords share the pool key %q", wrong)
	}
	if again := key("secret"); again != secret {
		t.Errorf("pool key for one password changed: %q, then %q", secret, again)
	}
}

func mustRequest(t *testing.T, raw string) *fetch.Request {
	t.Helper()
	r, err := fetch.NewRequest(raw)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPoolConcurrent: many goroutines fetching at once through one client
// each get their own file; a connection is never shared by two requests
// at once, so there are never more connections than goroutines, and each
// connection's commands are whole requests one after another.
func TestPoolConcurrent(t *testing.T) {
	const workers, each = 12, 8
	s := newFake(t)
	for w := range workers {
		for i := range each {
			s.add(fmt.Sprintf("/d%d/f%d.txt", w%3, w*each+i), fmt.Sprintf("file %d of worker %d\n", i, w))
		}
	}
	host := s.addr()
	c, _ := pooledClient(fetch.Options{MaxIdlePerHost: workers})
	var wg sync.WaitGroup
	errs := make(chan error, workers*each)
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				raw := fmt.Sprintf("ftp://%s/d%d/f%d.txt", host, w%3, w*each+i)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := c.Fetch(ctx, raw)
				if err == nil {
					var b strings.Builder
					_, err = copyAll(&b, res)
					if want := fmt.Sprintf("file %d of worker %d\n", i, w); err == nil && b.String() != want {
						err = fmt.Errorf("%s: got %q, want %q", raw, b.String(), want)
					}
				}
				cancel()
				if err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c.Close()
	cs := s.controls()
	if len(cs) > workers {
		t.Errorf("%d control connections for %d workers", len(cs), workers)
	}
	total := 0
	for i, cmds := range cs {
		total += checkWholeRequests(t, i, cmds)
	}
	if total != workers*each {
		t.Errorf("%d RETRs on the wire, want %d", total, workers*each)
	}
}

// copyAll reads a document to its end and closes it.
func copyAll(b *strings.Builder, res *fetch.Result) (int64, error) {
	defer res.Close()
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := res.Document.Body.Read(buf)
		b.Write(buf[:k])
		n += int64(k)
		if err != nil {
			if err == io.EOF {
				return n, res.Close()
			}
			return n, err
		}
	}
}

// checkWholeRequests checks that one connection's commands are a login
// and then whole requests one after another: the first PWD, CWD and
// TYPE I; each later one a NOOP (same directory) or CWD / and a CWD; then
// SIZE, MDTM, EPSV and RETR of one name. It returns the number of
// requests.
func checkWholeRequests(t *testing.T, conn int, cmds []string) int {
	t.Helper()
	i := 0
	want := func(prefix string) bool {
		if i >= len(cmds) || !strings.HasPrefix(cmds[i], prefix) {
			t.Errorf("connection %d, command %d: %q, want %q…\n%q", conn, i, at(cmds, i), prefix, cmds)
			return false
		}
		i++
		return true
	}
	if !want("USER anonymous") || !want("PASS ") {
		return 0
	}
	n := 0
	for i < len(cmds) && cmds[i] != "QUIT" {
		switch {
		case n == 0:
			if !want("PWD") || !want("CWD d") || !want("TYPE I") {
				return n
			}
		case cmds[i] == "NOOP":
			i++
		default:
			if !want("CWD /") || !want("CWD d") {
				return n
			}
		}
		name := ""
		for _, p := range []string{"EPSV", "SIZE f", "MDTM f", "RETR f"} {
			if !want(p) {
				return n
			}
			if verb, arg, _ := strings.Cut(cmds[i-1], " "); verb != "EPSV" {
				if name == "" {
					name = arg
				} else if arg != name {
					t.Errorf("connection %d: %q interleaved with %q", conn, arg, name)
				}
			}
		}
		n++
	}
	return n
}

func at(cmds []string, i int) string {
	if i < len(cmds) {
		return cmds[i]
	}
	return "(end)"
}

// TestPoolReuseWithoutCheck: a connection given back a moment ago is
// reused with no NOOP; when the server has closed it meanwhile, silently
// or with 421, the request runs again on a new login and succeeds.
func TestPoolReuseWithoutCheck(t *testing.T) {
	s := rfcServer(t)
	s.add("/top.txt", "top\n")
	epsvs := 0
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "EPSV" {
			if epsvs++; epsvs == 3 {
				c.reply("421 Timeout.")
				c.c.Close()
				return true
			}
		}
		return false
	}
	host := s.addr()
	c, d := pooledClient(fetch.Options{})
	d.checkAfter = time.Hour
	defer c.Close()
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n")
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n")
	if cs := s.controls(); len(cs) != 1 || strings.Contains(strings.Join(cs[0], "\n"), "NOOP") {
		t.Fatalf("control connections %q, want one without NOOP", cs)
	}
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n") // the 421 at EPSV
	s.drop()
	wantBody(t, c, "ftp://"+host+"/top.txt", "top\n") // closed silently
	cs := s.controls()
	if len(cs) != 3 || cs[0][len(cs[0])-1] != "EPSV" {
		t.Fatalf("control connections %q, want 3, the first ending at the refused EPSV", cs)
	}
	// A refusal that is not about the connection is not retried.
	if _, _, err := get(t, c, "ftp://"+host+"/nothing.txt"); !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("missing file: %v", err)
	}
	if n := len(s.controls()); n != 3 {
		t.Errorf("%d control connections after a 550, want still 3", n)
	}
}

// A request that does not want the modification time sends no MDTM; one
// that does gets the time.
func TestNoModTime(t *testing.T) {
	s := rfcServer(t)
	s.add("/top.txt", "at the top\n")
	mdtm := 0
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "MDTM" {
			mdtm++
		}
		return false
	}
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	for _, skip := range []bool{true, false} {
		req, err := fetch.NewRequest("ftp://" + s.addr() + "/top.txt")
		if err != nil {
			t.Fatal(err)
		}
		req.NoModTime = skip
		res, err := c.Do(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Document.Body)
		res.Close()
		if want := map[bool]int{true: 0, false: 1}[skip]; mdtm != want {
			t.Errorf("NoModTime %v: %d MDTM commands in all, want %d", skip, mdtm, want)
		}
		if !skip && res.Document.ModTime.IsZero() {
			t.Error("no modification time when one was wanted")
		}
	}
}

// vsftpdOpening is vsftpd's 150 reply to RETR, which ends with the count.
func vsftpdOpening(n int) string {
	return fmt.Sprintf("150 Opening BINARY mode data connection for f (%d bytes).", n)
}

// TestCountIn150: once a server's 150 reply has given the count SIZE gave,
// a reused session leaves SIZE out and checks the transfer against the
// 150's count; a server whose 150 carries no count, or another one, gets
// SIZE before every binary RETR, and so does a RETR from an offset.
func TestCountIn150(t *testing.T) {
	files := map[string]string{"/a.bin": "first file", "/b.bin": "the second", "/c.bin": "and a third one"}
	for _, tc := range []struct {
		name    string
		opening func(n int) string
		sizes   int // SIZE commands for the three files
	}{
		{"count", vsftpdOpening, 1},
		{"count in capitals", func(n int) string { return fmt.Sprintf("150 Here it comes (%d Bytes)", n) }, 1},
		{"no count", func(int) string { return "150 Here it comes." }, 3},
		{"another count", func(n int) string { return vsftpdOpening(n + 1) }, 3},
		{"not a count", func(n int) string { return fmt.Sprintf("150 file (%dx bytes)", n) }, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t)
			for p, c := range files {
				s.add(p, c)
			}
			s.opening = tc.opening
			sizes := 0
			s.hook = func(c *fakeConn, verb, arg string) bool {
				if verb == "SIZE" {
					sizes++
				}
				return false
			}
			notes := 0 // -v's note that SIZE is left out from now on
			c, _ := pooledClient(fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
				if d == fetch.DirInfo && strings.Contains(l, "SIZE is left out") {
					notes++
				}
			})})
			defer c.Close()
			for _, p := range []string{"/a.bin", "/b.bin", "/c.bin"} {
				got, res, err := get(t, c, "ftp://"+s.addr()+p)
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				if got != files[p] {
					t.Fatalf("%s: %q, want %q", p, got, files[p])
				}
				if tc.sizes == 1 && res.Document.Size != int64(len(files[p])) {
					t.Errorf("%s: size %d, want %d", p, res.Document.Size, len(files[p]))
				}
			}
			if sizes != tc.sizes {
				t.Errorf("%d SIZE commands, want %d\n%s", sizes, tc.sizes, s.transcript())
			}
			if want := map[bool]int{true: 1, false: 0}[tc.sizes == 1]; notes != want {
				t.Errorf("%d notes that SIZE is left out, want %d", notes, want)
			}
			if n := len(s.controls()); n != 1 {
				t.Errorf("%d control connections, want 1", n)
			}
			if tc.sizes != 1 {
				return
			}
			// From an offset, SIZE tells whether the offset is past the end.
			if got, _, err := getAt(t, c, "ftp://"+s.addr()+"/c.bin", 4); err != nil || got != files["/c.bin"][4:] {
				t.Fatalf("from offset 4: %q, %v", got, err)
			}
			if sizes != 2 {
				t.Errorf("from an offset: %d SIZE commands in all, want 2", sizes)
			}
		})
	}
}

// TestCountIn150Truncated: after SIZE was left out, a transfer shorter
// than the 150's count is fetch.ErrTruncated, as it would be against SIZE.
func TestCountIn150Truncated(t *testing.T) {
	s := newFake(t)
	s.add("/a.bin", "first file")
	s.add("/b.bin", "the second")
	retrs := 0
	s.opening = func(n int) string {
		retrs++
		if retrs > 1 {
			n += 5 // says more than it sends
		}
		return vsftpdOpening(n)
	}
	c, _ := pooledClient(fetch.Options{})
	defer c.Close()
	wantBody(t, c, "ftp://"+s.addr()+"/a.bin", "first file")
	_, _, err := get(t, c, "ftp://"+s.addr()+"/b.bin")
	if !errors.Is(err, fetch.ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
	if !strings.Contains(s.transcript(), "RETR b.bin") || strings.Count(s.transcript(), "SIZE") != 1 {
		t.Fatalf("transcript:\n%s", s.transcript())
	}
}

func TestByteCount(t *testing.T) {
	for in, want := range map[string]int64{
		"Opening BINARY mode data connection for d.bin (1024 bytes).": 1024,
		"Opening BINARY mode data connection for d.bin (0 bytes)":     0,
		"Opening BINARY mode data connection for a (b) (7 Bytes).":    7,
		"Data connection already open; Transfer starting.":            -1,
		"Opening data connection for x (1024 bytes":                   -1,
		"Opening data connection for x ( bytes).":                     -1,
		"Opening data connection for x (-1 bytes).":                   -1,
		"Opening data connection for x (+1 bytes).":                   -1,
		"Opening data connection for x (1024 bytes). Enjoy":           -1,
		"Opening data connection for x (99999999999999999999 bytes).": -1,
	} {
		n, ok := byteCount(reply{Code: 150, Lines: []string{in}})
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("%q: %d, want %d", in, n, want)
		}
	}
	if _, ok := byteCount(reply{Code: 150}); ok {
		t.Error("a reply without lines has a count")
	}
}

// TestCountIn150Missing: when SIZE was left out and RETR's reply brings
// no count after all (a 150 without one, a 125, a 226 before the data),
// SIZE is asked once the data has ended, so a short transfer is still
// fetch.ErrTruncated, and the next file gets SIZE before RETR again.
func TestCountIn150Missing(t *testing.T) {
	const second = "the second file, whole"
	for _, tc := range []struct {
		name, first string // the reply before the data ("" when 226 comes first)
		short       bool
	}{
		{"150 without a count", "150 Here it comes.", true},
		{"125", "125 Data connection already open; transfer starting.", true},
		{"226 first", "", true},
		{"150 without a count, whole", "150 Here it comes.", false},
		{"226 first, whole", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFake(t)
			s.add("/a.bin", "first file")
			s.add("/b.bin", second)
			s.add("/c.bin", "the third")
			s.opening = vsftpdOpening
			var sizes []string
			s.hook = func(c *fakeConn, verb, arg string) bool {
				if verb == "SIZE" {
					sizes = append(sizes, arg)
				}
				if verb != "RETR" || arg != "b.bin" {
					return false
				}
				dc, err := c.dataConn()
				if err != nil {
					c.reply("425 No data connection.")
					return true
				}
				if tc.first == "" {
					c.reply("226 Transfer complete.")
				} else {
					c.reply("%s", tc.first)
				}
				data := second
				if tc.short {
					data = second[:7]
				}
				io.WriteString(dc, data)
				dc.Close()
				if tc.first != "" {
					c.reply("226 Transfer complete.")
				}
				return true
			}
			c, _ := pooledClient(fetch.Options{})
			defer c.Close()
			wantBody(t, c, "ftp://"+s.addr()+"/a.bin", "first file")
			got, _, err := get(t, c, "ftp://"+s.addr()+"/b.bin")
			if tc.short && !errors.Is(err, fetch.ErrTruncated) {
				t.Fatalf("short b.bin: %q, %v; want ErrTruncated", got, err)
			}
			if !tc.short && (err != nil || got != second) {
				t.Fatalf("b.bin: %q, %v", got, err)
			}
			wantBody(t, c, "ftp://"+s.addr()+"/c.bin", "the third")
			if want := "a.bin b.bin c.bin"; strings.Join(sizes, " ") != want {
				t.Errorf("SIZE for %q, want %q", sizes, want)
			}
		})
	}
}

// TestReplyTooManyNotPooled: a server that sends a reply no command asked
// for (a second 226) leaves its connection one reply ahead of the client.
// That connection is not given back to the pool: were it reused, every
// later command would read the previous one's reply (EPSV the NOOP's 200,
// PASV the EPSV's 229, or an old 227 naming a port long closed).
func TestReplyTooManyNotPooled(t *testing.T) {
	for _, pooled := range []bool{true, false} {
		t.Run(fmt.Sprint("checked ", pooled), func(t *testing.T) {
			s := newFake(t)
			s.add("/a.bin", "first file")
			s.add("/b.bin", "second file")
			twice := true
			s.hook = func(c *fakeConn, verb, arg string) bool {
				if verb != "RETR" || arg != "a.bin" || !twice {
					return false
				}
				twice = false
				dc, err := c.dataConn()
				if err != nil {
					c.reply("425 no data connection")
					return true
				}
				c.reply("150 Opening data connection.")
				io.WriteString(dc, "first file")
				dc.Close()
				c.reply("226 Transfer complete.\r\n226 Transfer complete.")
				return true
			}
			c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
			if pooled {
				c, _ = pooledClient(fetch.Options{}) // a NOOP before each reuse
			}
			defer c.Close()
			wantBody(t, c, "ftp://"+s.addr()+"/a.bin", "first file")
			for range 3 {
				wantBody(t, c, "ftp://"+s.addr()+"/b.bin", "second file")
			}
			if n := len(s.controls()); n != 2 {
				t.Errorf("%d control connections, want 2 (the one a reply ahead closed, the next reused)", n)
			}
		})
	}
}

// TestOutOfStepReplyNotPooled: a reply of the wrong class to a command (a
// 200 to PASV) fails the request as a refusal would, but it is no refusal:
// the connection is closed rather than pooled, unlike after a 425.
func TestOutOfStepReplyNotPooled(t *testing.T) {
	for _, tt := range []struct {
		reply string
		conns int
	}{
		{"425 no data connection now", 1},
		{"200 NOOP ok.", 2},
	} {
		t.Run(tt.reply[:3], func(t *testing.T) {
			s := newFake(t)
			s.add("/a.bin", "first file")
			first := true
			s.hook = func(c *fakeConn, verb, arg string) bool {
				if verb == "PASV" && first {
					first = false
					c.reply("%s", tt.reply)
					return true
				}
				return false
			}
			d := New(Config{AnonymousPassword: "a@b", DisableEPSV: true})
			d.checkAfter = 0
			c := fetch.NewClient(fetch.Options{})
			c.Register("ftp", d)
			defer c.Close()
			if _, _, err := get(t, c, "ftp://"+s.addr()+"/a.bin"); err == nil {
				t.Fatalf("PASV answered %q: no error", tt.reply)
			}
			wantBody(t, c, "ftp://"+s.addr()+"/a.bin", "first file")
			if n := len(s.controls()); n != tt.conns {
				t.Errorf("%d control connections, want %d", n, tt.conns)
			}
		})
	}
}
