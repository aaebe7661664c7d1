package ftp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// session returns a logged-in control connection for req: a pooled one
// that passes its check, else a new one.
func (d *Driver) session(ctx context.Context, req *fetch.Request, dirs []string) (*session, error) {
	key := d.lookupKey(req)
	for {
		s, ok := d.pool.Get(key)
		if !ok {
			break
		}
		if s.reuse(ctx, req, dirs) {
			return s, nil
		}
	}
	return d.connect(ctx, req)
}

// lookupKey is the pool key of the login req would make without asking
// anyone: the URL's password, else the one remembered for its user, else
// none; anonymous logins use the anonymous password.
func (d *Driver) lookupKey(req *fetch.Request) string {
	u := req.URL
	hostport := u.HostPort(DefaultPort)
	user, pass := "anonymous", d.anonymousPassword()
	if u.HasUser {
		user, pass = u.User, u.Password
		if !u.HasPassword {
			pass, _ = d.rememberedPassword(user, hostport)
		}
	}
	return d.poolKey(hostport, user, pass)
}

// poolKey keys a logged-in connection by server and login. The password
// is there only as an HMAC under a key made once per driver, so that two
// passwords for one user never share a connection and the key, were it
// ever printed, would give nothing away.
func (d *Driver) poolKey(hostport, user, pass string) string {
	last := d.lastDigest.Load()
	if last == nil || last.pass != pass {
		d.keyOnce.Do(func() { rand.Read(d.keySecret[:]) })
		m := hmac.New(sha256.New, d.keySecret[:])
		m.Write([]byte(pass))
		last = &passDigest{pass, hex.EncodeToString(m.Sum(nil)[:16])}
		d.lastDigest.Store(last)
	}
	return hostport + " " + user + " " + last.digest
}

// reuse readies a pooled connection for req, whose URL has the <cwd>
// parts dirs: back in the login directory if a CWD moved it elsewhere
// (which also shows it is alive), else a NOOP. A connection that fails
// either is closed and false returned.
func (s *session) reuse(ctx context.Context, req *fetch.Request, dirs []string) bool {
	if !fetch.Rebind(s.nc, ctx) {
		s.nc.Close()
		return false
	}
	s.req = req
	s.w.SetTracer(req.Options.Tracer)
	if s.w.R.B.Buffered() > 0 || fetch.Readable(s.nc) {
		// The server sent something while the connection waited in the
		// pool: a 421 as it timed the session out, its end, or a line
		// no command asked for. Nothing is sent on it: the NOOP (or the
		// first command of a connection reused without a check) would
		// read that line as its reply, and every reply after it would
		// answer the command before.
		req.Trace(fetch.DirInfo, "the server sent something on the idle control connection; connecting anew")
		s.nc.Close()
		return false
	}
	req.Trace(fetch.DirInfo, "reusing the control connection to "+s.nc.RemoteAddr().String())
	var r reply
	var err error
	home := s.moved && (s.method() == MethodNoCWD || !s.here(dirs))
	s.unverified, s.base, s.closing = false, s.replies, false
	if !home && time.Since(s.lastUsed) < s.d.checkAfter {
		// Just given back: no NOOP; Fetch replaces it if it is gone.
		s.unverified = true
		return true
	}
	if home {
		r, err = s.cmd("CWD", wire.Lit("CWD "), wire.Arg("path", s.home))
	} else {
		r, err = s.cmd("NOOP", wire.Lit("NOOP"))
	}
	if err != nil || r.Class() != 2 || s.w.R.B.Buffered() > 0 {
		// (bytes after the reply: one reply too many, so the NOOP's
		// may be the one still to come)
		req.Trace(fetch.DirInfo, "the pooled connection is not usable; connecting anew")
		s.nc.Close()
		return false
	}
	if home {
		s.moved, s.at, s.atKnown = false, nil, true
	}
	return true
}

// done ends a request's use of the connection: back to the pool when
// keep is true and the connection can come back to its login directory,
// else QUIT.
func (s *session) done(keep bool) {
	if !keep || s.noReuse || s.key == "" {
		s.quit()
		return
	}
	if s.w.R.B.Buffered() > 0 {
		// Bytes no command asked for (a reply too many): the next
		// request would read every reply one step late.
		s.nc.Close()
		return
	}
	opts := s.req.Options
	if !fetch.Rebind(s.nc, context.Background()) {
		s.nc.Close()
		return
	}
	s.w.SetTracer(nil)
	s.req = nil
	s.lastUsed = time.Now()
	// At most IdlePerHost idle connections to the server, whatever
	// login each has.
	s.d.pool.PutHost(s.host, s.key, s, opts.IdlePerHost(), opts.IdleTotal(), opts.SessionIdle())
}

// gone reports whether err shows that a connection reused without a check
// had been closed by the server before it answered anything of this
// request: a network error before any reply, or a 421 as the first reply
// (RFC 959 §4.2: service closing the control connection).
func (s *session) gone(err error) bool {
	if !s.unverified {
		return false
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return s.closing
	}
	return fe.Kind == fetch.KindNetwork && s.replies == s.base || s.closing
}

// Close says QUIT and closes the connection (for the pool).
func (s *session) Close() error {
	s.quit()
	return nil
}

// reusable tells whether a request that failed with err left its control
// connection in a known state: the server refused a command with a
// well-formed failure reply (550 no such file, a CWD into nothing), other
// than 421, which says it is closing the connection. A reply of another
// class where a command wanted a particular one (a 229 to PASV, a 200 to
// SIZE) is no refusal: the connection's replies may be out of step with
// its commands, and it is closed.
func reusable(err error) bool {
	var fe *fetch.Error
	return errors.As(err, &fe) && fe.Kind == fetch.KindServer && fe.Code >= 400 && fe.Code != 421 && !errors.Is(err, ErrBadReply)
}

// leaveHome is called before every CWD: the first one of a login records
// the login directory with PWD, so that a pooled connection can return
// there. A server whose PWD fails makes a connection that is not reused.
func (s *session) leaveHome() {
	if s.moved {
		return
	}
	s.moved = true
	if s.home != "" || s.noReuse {
		return
	}
	r, err := s.cmd("PWD", wire.Lit("PWD"))
	if err == nil && r.Code == 257 {
		if home, ok := parsePWD(r.Lines[0]); ok && fetch.CheckLine("path", home) == nil {
			s.home = home
			return
		}
	}
	s.noReuse = true
}

// parsePWD reads the directory of a 257 reply: the text between the
// first quote and the lone quote that closes it, a doubled quote standing
// for one (RFC 959 Appendix II).
func parsePWD(text string) (string, bool) {
	i := strings.IndexByte(text, '"')
	if i < 0 {
		return "", false
	}
	var b strings.Builder
	for t := text[i+1:]; t != ""; t = t[1:] {
		if t[0] == '"' {
			if len(t) > 1 && t[1] == '"' {
				b.WriteByte('"')
				t = t[1:]
				continue
			}
			return b.String(), b.Len() > 0
		}
		b.WriteByte(t[0])
	}
	return "", false
}
