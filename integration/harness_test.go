//go:build integration

package integration

// Checks that each server the harness started speaks its protocol, at the
// level of raw bytes: if one of these fails, the drivers' tests against that
// server mean nothing.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// conn is a raw client connection with a deadline for the whole exchange.
type conn struct {
	t  testing.TB
	c  net.Conn
	br *bufio.Reader
}

func dial(t testing.TB, addr string) *conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.SetDeadline(time.Now().Add(20 * time.Second)); err != nil {
		t.Fatal(err)
	}
	return &conn{t: t, c: c, br: bufio.NewReader(c)}
}

func (c *conn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.c, s); err != nil {
		c.t.Fatalf("write %q: %v", s, err)
	}
}

// line reads one line and returns it without its CRLF or LF.
func (c *conn) line() string {
	c.t.Helper()
	s, err := c.br.ReadString('\n')
	if err != nil {
		c.t.Fatalf("read line (got %q): %v", s, err)
	}
	return strings.TrimRight(s, "\r\n")
}

// reply reads a numbered reply (FTP, NNTP, SMTP), following multi-line
// replies of the form "NNN-...", and returns the code and the last line.
func (c *conn) reply() (int, string) {
	c.t.Helper()
	for {
		l := c.line()
		if len(l) < 3 {
			c.t.Fatalf("short reply line %q", l)
		}
		code, err := strconv.Atoi(l[:3])
		if err != nil {
			c.t.Fatalf("reply without code: %q", l)
		}
		if len(l) > 3 && l[3] == '-' {
			continue
		}
		return code, l
	}
}

// expect sends cmd (with CRLF, if not empty) and fails unless the reply code
// is want.
func (c *conn) expect(cmd string, want int) string {
	c.t.Helper()
	if cmd != "" {
		c.send(cmd + "\r\n")
	}
	code, l := c.reply()
	if code != want {
		c.t.Fatalf("%q: got %q, want code %d", cmd, l, want)
	}
	return l
}

// all reads until the server closes the connection.
func (c *conn) all() []byte {
	c.t.Helper()
	b, err := io.ReadAll(c.br)
	if err != nil {
		c.t.Fatalf("read to EOF (got %d bytes): %v", len(b), err)
	}
	return b
}

func port(t testing.TB, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestHarnessContent(t *testing.T) {
	dir := harnessEnv(t, "FETCH_CONTENT_DIR")
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n") {
		sum, name, ok := strings.Cut(l, "  ")
		if !ok {
			t.Fatalf("bad SHA256SUMS line %q", l)
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != sum {
			t.Errorf("%s: sha256 %s, manifest says %s", name, got, sum)
		}
		n++
	}
	fi, err := os.Stat(filepath.Join(dir, "100m.bin"))
	if err != nil || fi.Size() != 100<<20 {
		t.Errorf("100m.bin: %v, size %d", err, fi.Size())
	}
	if _, err := os.Stat(filepath.Join(dir, "latin1-caf\xe9.txt")); err != nil {
		t.Errorf("Latin-1 file name: %v", err)
	}
	t.Logf("%d files match SHA256SUMS", n)
}

func TestHarnessHTTP(t *testing.T) {
	wantServer(t, "nginx")
	addr := serverAddr(t, "FETCH_HTTP_ADDR")
	want, err := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (status string, header map[string]string, body []byte) {
		c := dial(t, addr)
		c.send("GET " + path + " HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n")
		raw := c.all()
		head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
		if !ok {
			t.Fatalf("GET %s: no end of header in %q", path, raw)
		}
		lines := strings.Split(string(head), "\r\n")
		header = map[string]string{}
		for _, l := range lines[1:] {
			k, v, _ := strings.Cut(l, ":")
			header[strings.ToLower(k)] = strings.TrimSpace(v)
		}
		return lines[0], header, body
	}

	status, _, body := get("/index.html")
	if !strings.HasPrefix(status, "HTTP/1.1 200 ") {
		t.Fatalf("GET /index.html: %q", status)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("GET /index.html: body differs from the content tree")
	}
	for _, r := range []struct{ path, status, location string }{
		{"/redirect-to-index", "301", "http://" + addr + "/index.html"},
		{"/redirect-loop", "302", "http://" + addr + "/redirect-loop"},
		{"/redirect-to-25", "302", "http://127.0.0.1:25/"},
	} {
		status, h, _ := get(r.path)
		if !strings.HasPrefix(status, "HTTP/1.1 "+r.status+" ") || h["location"] != r.location {
			t.Errorf("GET %s: %q Location %q, want %s to %s", r.path, status, h["location"], r.status, r.location)
		}
	}
}

var pasvRE = regexp.MustCompile(`\((\d+),(\d+),(\d+),(\d+),(\d+),(\d+)\)`)

func TestHarnessFTP(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	user, pass := harnessEnv(t, "FETCH_FTP_USER"), harnessEnv(t, "FETCH_FTP_PASS")
	for _, s := range []struct {
		server, env      string
		pasvMin, pasvMax int
	}{
		{"vsftpd", "FETCH_FTP_VSFTPD_ADDR", 18100, 18199},
		{"pyftpdlib", "FETCH_FTP_PYFTPDLIB_ADDR", 18200, 18299},
	} {
		t.Run(s.server, func(t *testing.T) {
			wantServer(t, s.server)
			addr := serverAddr(t, s.env)
			for _, login := range [][2]string{{"anonymous", "fetch@fetch.test"}, {user, pass}} {
				c := dial(t, addr)
				c.expect("", 220)
				c.expect("USER "+login[0], 331)
				c.expect("PASS "+login[1], 230)
				c.expect("TYPE I", 200)
				l := c.expect("PASV", 227)
				m := pasvRE.FindStringSubmatch(l)
				if m == nil {
					t.Fatalf("PASV reply %q", l)
				}
				hi, _ := strconv.Atoi(m[5])
				lo, _ := strconv.Atoi(m[6])
				dport := hi*256 + lo
				if dport < s.pasvMin || dport > s.pasvMax {
					t.Errorf("passive port %d outside %d-%d", dport, s.pasvMin, s.pasvMax)
				}
				data, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", dport), 5*time.Second)
				if err != nil {
					t.Fatal(err)
				}
				data.SetDeadline(time.Now().Add(10 * time.Second))
				c.send("RETR /hello.txt\r\n")
				if code, l := c.reply(); code != 150 && code != 125 {
					t.Fatalf("RETR: %q", l)
				}
				got, err := io.ReadAll(data)
				data.Close()
				if err != nil {
					t.Fatal(err)
				}
				c.expect("", 226)
				if !bytes.Equal(got, want) {
					t.Errorf("%s: RETR /hello.txt = %q, want %q", login[0], got, want)
				}
				c.expect("QUIT", 221)
			}
			c := dial(t, addr)
			c.expect("", 220)
			c.expect("USER "+user, 331)
			c.expect("PASS wrong-"+pass, 530)
		})
	}
}

func TestHarnessGopher(t *testing.T) {
	t.Run("gophernicus", func(t *testing.T) {
		wantServer(t, "gophernicus")
		addr := serverAddr(t, "FETCH_GOPHER_GOPHERNICUS_ADDR")
		c := dial(t, addr)
		c.send("\r\n")
		menu := string(c.all())
		if !strings.HasSuffix(menu, "\r\n.\r\n") {
			t.Errorf("root menu does not end with a \".\" line: %q", menu)
		}
		item := fmt.Sprintf("7Search this hole\t/cgi-bin/search\t127.0.0.1\t%d\r\n", port(t, addr))
		if !strings.Contains(menu, item) {
			t.Errorf("root menu has no %q:\n%s", item, menu)
		}
		c = dial(t, addr)
		c.send("/cgi-bin/search\tneedle\r\n")
		if got := string(c.all()); !strings.HasPrefix(got, "iYou searched for: needle\t") {
			t.Errorf("search answered %q", got)
		}
	})
	t.Run("pygopherd", func(t *testing.T) {
		wantServer(t, "pygopherd")
		addr := serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR")
		p := port(t, addr)
		c := dial(t, addr)
		c.send("\r\n")
		menu := string(c.all())
		// pygopherd ends gopher0 menus by closing, without a "." line
		// (testdata/harness/gopher-observed/pygopherd/01-root-menu.response)
		for _, item := range []string{
			fmt.Sprintf("1menu\t/menu\t127.0.0.1\t%d\t+\r\n", p),
			fmt.Sprintf("7Search this hole\t/search\t127.0.0.1\t%d\r\n", p),
			fmt.Sprintf("0form\t/form\t127.0.0.1\t%d\t+\r\n", p),
		} {
			if !strings.Contains(menu, item) {
				t.Errorf("root menu has no %q:\n%s", item, menu)
			}
		}
		c = dial(t, addr)
		c.send("/form\t!\r\n")
		if got := string(c.all()); !strings.HasPrefix(got, "+-2\r\n+INFO: 0form\t") || !strings.Contains(got, "\r\n+ASK:\r\n Ask: ") {
			t.Errorf("Gopher+ attributes of /form: %q", got)
		}
		c = dial(t, addr)
		c.send("/about.txt\t+\r\n")
		if got := string(c.all()); !strings.HasPrefix(got, "+147\r\nAbout this gopher hole\n") {
			t.Errorf("Gopher+ document /about.txt: %q", got)
		}
		c = dial(t, addr)
		c.send("/search\tneedle\r\n")
		if got := string(c.all()); !strings.HasPrefix(got, "iYou searched for: needle\t") {
			t.Errorf("search answered %q", got)
		}
	})
}

func TestHarnessNNTP(t *testing.T) {
	wantServer(t, "inn")
	addr := serverAddr(t, "FETCH_NNTP_ADDR")
	c := dial(t, addr)
	c.expect("", 200)
	l := c.expect("GROUP fetch.test.alpha", 211)
	if f := strings.Fields(l); len(f) < 5 || f[1] == "0" {
		t.Errorf("GROUP fetch.test.alpha: %q: no articles", l)
	}
	for _, id := range strings.Fields(harnessEnv(t, "FETCH_NEWS_MSGIDS")) {
		c.expect("STAT "+id, 223)
	}
	c.expect("ARTICLE <alpha-2-dots@fetch.test>", 220)
	var art []string
	for {
		l := c.line()
		if l == "." {
			break
		}
		art = append(art, l)
	}
	if !strings.Contains(strings.Join(art, "\n"), "\n..this line starts with a single dot\n") {
		t.Errorf("dot-stuffed line missing from ARTICLE:\n%s", strings.Join(art, "\n"))
	}
	// fetch.test.secret needs AUTHINFO
	c.expect("GROUP fetch.test.secret", 480)
	c.expect("AUTHINFO USER "+harnessEnv(t, "FETCH_NNTP_USER"), 381)
	c.expect("AUTHINFO PASS "+harnessEnv(t, "FETCH_NNTP_PASS"), 281)
	c.expect("GROUP fetch.test.secret", 211)
	c.expect("STAT <secret-1@fetch.test>", 223)
	c.expect("QUIT", 205)
}

func TestHarnessSMTP(t *testing.T) {
	wantServer(t, "smtp")
	addr := serverAddr(t, "FETCH_SMTP_ADDR")
	box := harnessEnv(t, "FETCH_MAILBOX")
	token := fmt.Sprintf("harness-test-%d", time.Now().UnixNano())
	c := dial(t, addr)
	c.expect("", 220)
	c.expect("EHLO client.fetch.test", 250)
	c.expect("MAIL FROM:<tester@fetch.test>", 250)
	c.expect("RCPT TO:<nobody-here@fetch.test>", 550)
	c.expect("RCPT TO:<anything@fetch.test>", 250)
	c.expect("DATA", 354)
	c.send("Subject: " + token + "\r\n\r\nbody of " + token + "\r\n..a dot-stuffed line\r\n.\r\n")
	c.expect("", 250)
	c.expect("QUIT", 221)

	// delivery is synchronous (-odi), but allow for a slow disk
	deadline := time.Now().Add(10 * time.Second)
	for {
		files, _ := filepath.Glob(filepath.Join(box, "new", "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err == nil && bytes.Contains(b, []byte("Subject: "+token+"\n")) {
				if !bytes.Contains(b, []byte("\n.a dot-stuffed line\n")) {
					t.Errorf("%s: dot-stuffing not undone:\n%s", f, b)
				}
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message with Subject %s in %s/new", token, box)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Telnet commands and options (RFC 854).
const (
	iac  = 255
	will = 251
	wont = 252
	do   = 253
	dont = 254
	sb   = 250
	se   = 240
)

// telnetRead reads what the server sends for a while, answering every option
// request with a refusal, and returns the data bytes without commands.
func telnetRead(t *testing.T, c net.Conn, until string) string {
	t.Helper()
	var data []byte
	buf := make([]byte, 4096)
	var pending []byte
	for !strings.Contains(string(data), until) {
		n, err := c.Read(buf)
		if err != nil {
			t.Fatalf("telnet: read (waiting for %q, got %q): %v", until, data, err)
		}
		pending = append(pending, buf[:n]...)
	parse:
		for len(pending) > 0 {
			b := pending[0]
			if b != iac {
				data = append(data, b)
				pending = pending[1:]
				continue
			}
			if len(pending) < 2 {
				break parse
			}
			switch pending[1] {
			case will, wont, do, dont:
				if len(pending) < 3 {
					break parse // the rest of the command is still to come
				}
				switch pending[1] {
				case do:
					c.Write([]byte{iac, wont, pending[2]})
				case will:
					// let the server echo (1) and suppress go-ahead (3)
					if pending[2] == 1 || pending[2] == 3 {
						c.Write([]byte{iac, do, pending[2]})
					} else {
						c.Write([]byte{iac, dont, pending[2]})
					}
				}
				pending = pending[3:]
			case sb:
				end := bytes.Index(pending, []byte{iac, se})
				if end < 0 {
					break parse
				}
				pending = pending[end+2:]
			case iac:
				data = append(data, iac)
				pending = pending[2:]
			default:
				pending = pending[2:]
			}
		}
	}
	return string(data)
}

func TestHarnessTelnet(t *testing.T) {
	wantServer(t, "telnet")
	addr := serverAddr(t, "FETCH_TELNET_ADDR")
	c := dial(t, addr)
	first := make([]byte, 3)
	if _, err := io.ReadFull(c.br, first); err != nil {
		t.Fatal(err)
	}
	if first[0] != iac || first[1] < will || first[1] > dont {
		t.Fatalf("telnetd did not open with option negotiation: % x", first)
	}
	// hand the three bytes back to the reader loop
	rc := &prefixConn{Conn: c.c, prefix: first, r: c.br}
	telnetRead(t, rc, "login: ")
	rc.Write([]byte(harnessEnv(t, "FETCH_TELNET_USER") + "\r\n"))
	telnetRead(t, rc, "Password: ")
	rc.Write([]byte(harnessEnv(t, "FETCH_TELNET_PASS") + "\r\n"))
	if got := telnetRead(t, rc, "\n$ "); !strings.Contains(got, "Welcome to fetch-test") {
		t.Errorf("after login: %q", got)
	}
	rc.Write([]byte("hello harness\r\n"))
	if got := telnetRead(t, rc, "you said: hello harness"); !strings.Contains(got, "you said: hello harness") {
		t.Errorf("echo: %q", got)
	}
	rc.Write([]byte("exit\r\n"))
	// telnetd may close the pty before its "logout" line leaves: what
	// matters is that the session ends.
	c.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, rc); err != nil {
		t.Errorf("the session did not end after exit: %v", err)
	}
}

// prefixConn reads prefix, then from r, and writes to Conn.
type prefixConn struct {
	net.Conn
	prefix []byte
	r      io.Reader
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.r.Read(b)
}
