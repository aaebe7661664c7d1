// Package handoff is the driver for rlogin: and tn3270: URLs, whose
// sessions fetch does not speak itself: it hands them to the user's own
// program, as Lynx does, after the port policy has been applied.
//
// URL grammar (RFC 1738 §3.8, and Gopher types 8 and T, RFC 1436):
//
//	rlogin://[<user>@]<host>[:<port>]/    run: rlogin -l <user> [-p <port>] <host>
//	tn3270://[<user>@]<host>[:<port>]/    run: c3270 <host>:<port>
//
// The port defaults to 513 for rlogin and 23 for tn3270; rlogin gets -p
// only for another port. A password in the URL is never passed on (a
// program's arguments are visible to every user of the machine), and a
// tn3270 user is only shown: 3270 emulators take none. Arguments go to the
// program directly, never through a shell; a user or host that could be
// read as an option (a leading "-") or holds a control character is
// refused, and so is a one-letter tn3270 host, which 3270 emulators read
// as a connection option ("l:" asks for TLS). A program that is not
// installed is an error naming it (ErrNoProgram).
package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// Default ports (RFC 1738 §3.8 names telnet's 23 for tn3270; rlogin's is
// 513, RFC 1282).
const (
	RloginPort = 513
	TN3270Port = 23
)

// ErrNoProgram is the cause when the program a session is handed to is
// not installed.
var ErrNoProgram = errors.New("is not installed")

// Config names the programs; an empty field takes the default.
type Config struct {
	// Rlogin is the rlogin program, "rlogin" when empty.
	Rlogin string
	// TN3270 is the 3270 emulator; when empty, the first of c3270 and
	// x3270 that is installed.
	TN3270 string
	// Stderr receives the program's standard error; os.Stderr when nil.
	Stderr io.Writer
}

// Driver hands the sessions of one scheme to a program.
type Driver struct {
	scheme string
	cfg    Config
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.DefaultPorter = (*Driver)(nil)
)

// NewRlogin returns the driver for rlogin: URLs.
func NewRlogin(cfg Config) *Driver { return &Driver{scheme: "rlogin", cfg: cfg} }

// NewTN3270 returns the driver for tn3270: URLs.
func NewTN3270(cfg Config) *Driver { return &Driver{scheme: "tn3270", cfg: cfg} }

// DefaultPort is the scheme's port when the URL names none.
func (d *Driver) DefaultPort() int {
	if d.scheme == "rlogin" {
		return RloginPort
	}
	return TN3270Port
}

// Fetch checks the URL and returns a session that runs the program.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL
	view, err := telnet.ParseURL(u) // the same login part and empty path (§3.8)
	if err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, req.Errorf(fetch.KindMalformed, d.scheme, "the URL names no host")
	}
	for part, v := range map[string]string{"host": u.Host, "user": view.User} {
		if strings.HasPrefix(v, "-") || strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			e := req.Errorf(fetch.KindPolicy, d.scheme, "%q could be read by the program as an option or a control: refused", v)
			e.Part = part
			return nil, e
		}
	}
	port := u.PortOr(d.DefaultPort())
	var names, args []string
	setting := "handoff.Config.Rlogin"
	switch d.scheme {
	case "rlogin":
		names = []string{orDefault(d.cfg.Rlogin, "rlogin")}
		if view.HasUser && view.User != "" {
			args = append(args, "-l", view.User)
		}
		if port != RloginPort {
			args = append(args, "-p", strconv.Itoa(port))
		}
		args = append(args, u.Host)
	default:
		setting = "handoff.Config.TN3270"
		names = []string{"c3270", "x3270"}
		if d.cfg.TN3270 != "" {
			names = []string{d.cfg.TN3270}
		}
		// c3270 and x3270 read a letter and a colon at the start of their
		// host argument as a connection option (L: TLS, P: passthru, Y: no
		// certificate check; x3270 Common/split_host.c), and nothing quotes
		// a one-letter host out of it: "[l]:23" and "\l:23" still leave
		// the colon after it unquoted. Such a host would be connected to
		// somewhere the URL did not say; it is refused. Any letter, not
		// only today's ACLNPSBYT: a later emulator may take more.
		if c := u.Host[0]; len(u.Host) == 1 && ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			e := req.Errorf(fetch.KindPolicy, d.scheme, "a one-letter host, %q, would be read by the 3270 emulator as a connection option (%q): refused; give the host's full name or address",
				u.Host, u.Host+":")
			e.Part = "host"
			return nil, e
		}
		host := u.Host
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
		args = append(args, host+":"+strconv.Itoa(port))
		if view.HasUser && view.User != "" {
			req.Trace(fetch.DirInfo, "log in as "+view.User)
		}
	}
	path, err := lookPath(names)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindLocal, Op: d.scheme, URL: u.Redacted(), Offset: -1, Setting: setting,
			Err: fmt.Errorf("%q %w (looked for %s in PATH)", names[0], ErrNoProgram, strings.Join(names, ", "))}
	}
	req.Trace(fetch.DirInfo, "handing the session to "+path+" "+strings.Join(args, " "))
	stderr := d.cfg.Stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	return &fetch.Result{Kind: fetch.KindSession, URL: u, Session: &Session{Path: path, Args: args, scheme: d.scheme, url: u.Redacted(), stderr: stderr}}, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// lookPath is the first of names that is installed.
func lookPath(names []string) (string, error) {
	var first error
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err == nil {
			return p, nil
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// Session is a program that takes over the user's terminal.
type Session struct {
	Path string   // the program
	Args []string // its arguments, without the program name

	scheme, url string
	stderr      io.Writer
}

// Run runs the program with in and out as its standard input and output
// until it exits or ctx ends.
func (s *Session) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	cmd := exec.CommandContext(ctx, s.Path, s.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, s.stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return err // the client says why the context ended
		}
		return &fetch.Error{Kind: fetch.KindNetwork, Op: s.scheme, URL: s.url, Offset: -1,
			Err: fmt.Errorf("%s: %w", s.Path, err)}
	}
	return nil
}

// Close has nothing to release: the program ends with Run.
func (s *Session) Close() error { return nil }
