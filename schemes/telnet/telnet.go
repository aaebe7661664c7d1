// Package telnet is fetch's driver for telnet URLs (RFC 1738 §3.8):
//
//	telnet://<user>:<password>@<host>:<port>/
//
// The port defaults to 23; the final "/" may be left out and nothing may
// follow it. Such a URL names an interactive service, not a document, so
// Fetch connects and returns a fetch.Session, whose Run joins the caller's
// input and output to the server as a Telnet NVT (RFC 854) until one side
// closes.
//
// RFC 1738 makes <user> and <password> advisory. This driver types them
// for the user, once each, when the server's output ends in a login prompt
// ("login:" or "Username:") or a password prompt ("Password:"), unless
// Config.NoLogin is set; until the login is typed, the caller's input is
// held back so that it follows the login instead of being read as it.
// Neither may hold a decoded CR, LF or NUL (RFC 1738 §6): such a URL is
// refused before connecting. Traces show the password as "****".
//
// Option negotiation is github.com/ziutek/telnet's, behind a filter that
// corrects what that library gets wrong (see nvtConn).
package telnet

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ziutek/telnet"

	"github.com/fetchproject/fetch/fetch"
)

// DefaultPort is the Telnet port (RFC 1738 §3.8).
const DefaultPort = 23

// Defaults for Config fields left zero.
const (
	DefaultLoginWait = 5 * time.Second
	DefaultLinger    = 2 * time.Second
)

// Config holds the driver's settings.
type Config struct {
	// NoLogin only advises the URL's user and password (in the -v trace)
	// and never types them: the user logs in by hand.
	NoLogin bool
	// LoginWait is how long the caller's input is held back while the
	// server, asked for nothing yet, stays quiet without showing the login
	// or password prompt the URL's login is waiting for; DefaultLoginWait
	// when zero.
	LoginWait time.Duration
	// Linger is how long Run waits, once the caller's input has ended, for
	// a server that has gone quiet to send more or close; DefaultLinger
	// when zero.
	Linger time.Duration
}

// Driver opens telnet sessions.
type Driver struct {
	cfg Config
}

var _ fetch.Driver = (*Driver)(nil)

// New returns a telnet driver with cfg.
func New(cfg Config) *Driver {
	if cfg.LoginWait <= 0 {
		cfg.LoginWait = DefaultLoginWait
	}
	if cfg.Linger <= 0 {
		cfg.Linger = DefaultLinger
	}
	return &Driver{cfg: cfg}
}

// Fetch connects to the URL's host and returns the session, not yet
// running: nothing is read or sent until its Run. The login is checked
// for line safety before the connection is made.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	v, err := ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	for _, l := range []struct{ part, val string }{{"user", v.User}, {"password", v.Password}} {
		if err := fetch.CheckLine(l.part, l.val); err != nil {
			return nil, err
		}
		// Typed as keystrokes, any other control character is acted on
		// by the remote terminal's line discipline (^U erases the line,
		// ^H and DEL a character, ^C interrupts): the login typed would
		// not be the one the URL shows.
		if strings.ContainsFunc(l.val, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "telnet", Part: l.part, Offset: -1,
				Err: fmt.Errorf("%w: a control character in the URL's %s would be acted on by the remote terminal", fetch.ErrUnsafeLine, l.part)}
		}
	}
	raw, err := req.Dial(ctx, req.URL.HostPort(DefaultPort))
	if err != nil {
		return nil, err
	}
	var trace func(string)
	if req.Options.Tracer != nil {
		trace = func(line string) { req.Trace(fetch.DirInfo, line) }
	}
	nvt := newNVTConn(raw, trace)
	tc, err := telnet.NewConn(nvt) // v0.1.0 wraps any net.Conn; it never fails
	if err != nil {
		nvt.Close()
		return nil, fetch.Wrap(fetch.KindNetwork, "telnet", err)
	}
	s := &session{
		conn: nvt,
		tc:   tc,
		cfg:  d.cfg,
		req:  req,
	}
	if v.HasUser && v.User != "" {
		s.user = v.User
	}
	if v.HasPassword && v.Password != "" {
		s.pass = v.Password
	}
	if s.user != "" || s.pass != "" {
		what := "user " + s.user
		if s.pass != "" {
			what += " with a password"
		}
		if d.cfg.NoLogin {
			req.Trace(fetch.DirInfo, "the URL advises logging in as "+what+" (not typed: login automation is off)")
			s.user, s.pass = "", ""
		} else {
			req.Trace(fetch.DirInfo, "the URL advises logging in as "+what+"; typed at the server's prompts")
		}
	}
	return &fetch.Result{Kind: fetch.KindSession, Session: s}, nil
}
