package ftp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is a small in-process FTP server over a map of files, for
// transcripts and fault injection. Only 127.0.0.1 is ever used.
type fakeServer struct {
	t     *testing.T
	ln    net.Listener
	files map[string]string // absolute path -> content
	dirs  map[string]bool   // absolute paths of directories
	users map[string]string // user -> password; "anonymous" takes any
	homes map[string]string // user -> login directory, "/" when absent

	mlsd   bool // FEAT offers MLST and MLSD works
	noEPSV bool // EPSV and EPRT answer 500
	// hook, when set, sees each command first; returning true means it
	// has answered.
	hook func(c *fakeConn, verb, arg string) bool
	// greeting replaces the 220 line.
	greeting string
	// opening, when set, makes RETR's 150 line from the number of bytes
	// to be sent.
	opening func(n int) string

	start sync.Once
	mu    sync.Mutex
	got   []byte // every byte the client sent on control connections
	// sessions holds each control connection's command lines, in the
	// order the connections were accepted; live holds the open ones.
	sessions [][]string
	live     map[net.Conn]bool
}

func newFake(t *testing.T) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{t: t, ln: ln,
		files: map[string]string{}, dirs: map[string]bool{"/": true},
		users: map[string]string{"myname": "secret", "fetchuser": "fetchpass"}}
	t.Cleanup(func() { ln.Close() })
	return s
}

// addr starts serving and returns the address; the fake's settings must
// be made before it is called.
func (s *fakeServer) addr() string {
	s.start.Do(func() { go s.serve() })
	return s.ln.Addr().String()
}

// add puts a file at p, creating its directories.
func (s *fakeServer) add(p, content string) {
	s.files[p] = content
	for d := path.Dir(p); ; d = path.Dir(d) {
		s.dirs[d] = true
		if d == "/" {
			break
		}
	}
}

func (s *fakeServer) mkdir(p string) {
	for d := p; ; d = path.Dir(d) {
		s.dirs[d] = true
		if d == "/" {
			break
		}
	}
}

// transcript is what the client sent, with data ports made stable.
func (s *fakeServer) transcript() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(s.got), "\r\n") {
		switch {
		case strings.HasPrefix(l, "EPRT "):
			f := strings.Split(l, "|")
			if len(f) == 5 {
				f[3] = "PORT"
				l = strings.Join(f, "|")
			}
		case strings.HasPrefix(l, "PORT "):
			f := strings.Split(strings.TrimSuffix(l, "\r\n"), ",")
			if len(f) == 6 {
				l = strings.Join(f[:4], ",") + ",P1,P2\r\n"
			}
		}
		b.WriteString(l)
	}
	return b.String()
}

func (s *fakeServer) serve() {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		go s.handle(c)
	}
}

// fakeConn is one control connection.
type fakeConn struct {
	s    *fakeServer
	c    net.Conn
	r    *bufio.Reader
	cwd  string
	user string
	rest int64
	pasv net.Listener
	port string // active address from EPRT/PORT
}

func (c *fakeConn) reply(format string, args ...any) {
	fmt.Fprintf(c.c, format+"\r\n", args...)
}

func (s *fakeServer) handle(nc net.Conn) {
	defer nc.Close()
	s.mu.Lock()
	id := len(s.sessions)
	s.sessions = append(s.sessions, nil)
	if s.live == nil {
		s.live = map[net.Conn]bool{}
	}
	s.live[nc] = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.live, nc)
		s.mu.Unlock()
	}()
	c := &fakeConn{s: s, c: nc, r: bufio.NewReader(nc), cwd: "/"}
	defer func() {
		if c.pasv != nil {
			c.pasv.Close()
		}
	}()
	if s.greeting != "" {
		io.WriteString(nc, s.greeting)
	} else {
		c.reply("220 fake ready")
	}
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			return
		}
		s.mu.Lock()
		s.got = append(s.got, line...)
		s.sessions[id] = append(s.sessions[id], strings.TrimRight(line, "\r\n"))
		s.mu.Unlock()
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if s.hook != nil && s.hook(c, verb, arg) {
			continue
		}
		if !c.command(verb, arg) {
			return
		}
	}
}

func (c *fakeConn) abs(p string) string {
	if p == "" {
		return "/"
	}
	if !strings.HasPrefix(p, "/") {
		p = path.Join(c.cwd, p)
	}
	return path.Clean(p)
}

// command answers one command; false ends the connection.
func (c *fakeConn) command(verb, arg string) bool {
	s := c.s
	switch verb {
	case "USER":
		c.user = arg
		if _, ok := s.users[arg]; ok || arg == "anonymous" || arg == "" {
			c.reply("331 Please specify the password.")
		} else {
			c.reply("530 This FTP server is anonymous only.")
		}
	case "PASS":
		if want, ok := s.users[c.user]; c.user == "anonymous" || c.user == "" || ok && want == arg {
			if h, ok := s.homes[c.user]; ok {
				c.cwd = h
			}
			c.reply("230 Login successful.")
		} else {
			c.reply("530 Login incorrect.")
		}
	case "FEAT":
		c.reply("211-Features:")
		if !s.noEPSV {
			c.reply(" EPSV")
		}
		c.reply(" MDTM")
		if s.mlsd {
			c.reply(" MLST type*;size*;modify*;")
		}
		c.reply(" SIZE")
		c.reply("211 End")
	case "TYPE":
		c.reply("200 Switching to %s mode.", arg)
	case "NOOP":
		c.reply("200 NOOP ok.")
	case "PWD":
		c.reply("257 \"%s\" is the current directory", strings.ReplaceAll(c.cwd, "\"", "\"\""))
	case "CWD":
		if p := c.abs(arg); s.dirs[p] {
			c.cwd = p
			c.reply("250 Directory successfully changed.")
		} else {
			c.reply("550 Failed to change directory.")
		}
	case "SIZE":
		if f, ok := s.files[c.abs(arg)]; ok {
			c.reply("213 %d", len(f))
		} else {
			c.reply("550 Could not get file size.")
		}
	case "MDTM":
		if _, ok := s.files[c.abs(arg)]; ok {
			c.reply("213 20240102030405")
		} else {
			c.reply("550 Could not get file modification time.")
		}
	case "EPSV", "PASV":
		if verb == "EPSV" && s.noEPSV {
			c.reply("500 Unknown command.")
			break
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			c.reply("425 %v", err)
			break
		}
		if c.pasv != nil {
			c.pasv.Close()
		}
		c.pasv, c.port = ln, ""
		p := ln.Addr().(*net.TCPAddr).Port
		if verb == "EPSV" {
			c.reply("229 Entering Extended Passive Mode (|||%d|)", p)
		} else {
			c.reply("227 Entering Passive Mode (127,0,0,1,%d,%d).", p>>8, p&255)
		}
	case "EPRT":
		f := strings.Split(arg, "|")
		if s.noEPSV || len(f) != 5 {
			c.reply("500 Unknown command.")
			break
		}
		c.port = net.JoinHostPort(f[2], f[3])
		c.reply("200 EPRT command successful.")
	case "PORT":
		f := strings.Split(arg, ",")
		if len(f) != 6 {
			c.reply("501 Illegal PORT command.")
			break
		}
		hi, _ := strconv.Atoi(f[4])
		lo, _ := strconv.Atoi(f[5])
		c.port = net.JoinHostPort(strings.Join(f[:4], "."), strconv.Itoa(hi<<8|lo))
		c.reply("200 PORT command successful.")
	case "REST":
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			c.reply("501 Bad REST.")
			break
		}
		c.rest = n
		c.reply("350 Restart position accepted (%d).", n)
	case "RETR":
		f, ok := s.files[c.abs(arg)]
		if !ok {
			c.reply("550 Failed to open file.")
			break
		}
		if c.rest > int64(len(f)) {
			c.rest = int64(len(f))
		}
		if s.opening != nil {
			c.sendWith(s.opening(len(f)-int(c.rest)), f[c.rest:])
		} else {
			c.send(f[c.rest:])
		}
		c.rest = 0
	case "LIST", "MLSD", "NLST":
		if verb == "MLSD" && !s.mlsd {
			c.reply("500 Unknown command.")
			break
		}
		lines, ok := c.listing(verb, arg)
		if !ok {
			c.reply("550 No such directory.")
			break
		}
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l + "\r\n")
		}
		c.send(b.String())
	case "QUIT":
		c.reply("221 Goodbye.")
		return false
	default:
		c.reply("502 %s not implemented.", verb)
	}
	return true
}

// dataConn opens the data connection the client asked for.
func (c *fakeConn) dataConn() (net.Conn, error) {
	if c.port != "" {
		return net.DialTimeout("tcp", c.port, 5*time.Second)
	}
	if c.pasv == nil {
		return nil, fmt.Errorf("no PASV or PORT")
	}
	defer func() { c.pasv.Close(); c.pasv = nil }()
	c.pasv.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	return c.pasv.Accept()
}

// send transfers data with the usual 150 ... 226.
func (c *fakeConn) send(data string) { c.sendWith("150 Opening data connection.", data) }

// sendWith is send with opening as the 150 line.
func (c *fakeConn) sendWith(opening, data string) {
	dc, err := c.dataConn()
	if err != nil {
		c.reply("425 Can't open data connection.")
		return
	}
	c.reply("%s", opening)
	io.WriteString(dc, data)
	dc.Close()
	c.reply("226 Transfer complete.")
}

func (c *fakeConn) listing(verb, arg string) ([]string, bool) {
	p := c.cwd
	if arg != "" {
		p = c.abs(arg)
	}
	if verb == "NLST" {
		if _, ok := c.s.files[p]; ok {
			return []string{arg}, true
		}
	}
	if !c.s.dirs[p] {
		return nil, false
	}
	var names []string
	kids := map[string]bool{}
	for f := range c.s.files {
		if path.Dir(f) == p {
			names = append(names, path.Base(f))
		}
	}
	for d := range c.s.dirs {
		if d != "/" && path.Dir(d) == p {
			names = append(names, path.Base(d))
			kids[path.Base(d)] = true
		}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		size := len(c.s.files[path.Join(p, n)])
		switch verb {
		case "NLST":
			if arg != "" {
				out = append(out, arg+"/"+n) // as vsftpd does
			} else {
				out = append(out, n)
			}
		case "MLSD":
			if kids[n] {
				out = append(out, "type=dir;modify=20240102030405; "+n)
			} else {
				out = append(out, fmt.Sprintf("type=file;size=%d;modify=20240102030405; %s", size, n))
			}
		default:
			if kids[n] {
				out = append(out, "drwxr-xr-x    2 0        0            4096 Jan 02  2024 "+n)
			} else {
				out = append(out, fmt.Sprintf("-rw-r--r--    1 0        0        %8d Jan 02  2024 %s", size, n))
			}
		}
	}
	return out, true
}

// controls returns each control connection's command lines so far.
func (s *fakeServer) controls() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([][]string, len(s.sessions))
	for i, l := range s.sessions {
		out[i] = append([]string(nil), l...)
	}
	return out
}

// drop closes every open control connection, as a server that restarts
// or times idle clients out does.
func (s *fakeServer) drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.live {
		c.Close()
	}
}
