package nntp

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// Sessions are pooled per server and credentials after the greeting,
// MODE READER and AUTHINFO, so a run of many URLs on one server greets and
// authenticates once. A session serves one request at a time (an article
// until its Body is closed) and goes back to the pool only in a known
// state: after a complete reply.

// CloseIdle says QUIT on the pooled sessions not in use.
func (d *Driver) CloseIdle() { d.pool.CloseIdle() }

var _ fetch.IdleCloser = (*Driver)(nil)

// session returns a session with addr for req: a pooled one that still
// answers, else a new one.
func (d *Driver) session(ctx context.Context, req *fetch.Request, addr string, creds credentials) (*session, error) {
	key := d.poolKey(addr, creds)
	for {
		s, ok := d.pool.Get(key)
		if !ok {
			break
		}
		if s.reuse(ctx, req) {
			return s, nil
		}
	}
	s, err := open(ctx, req, addr, creds)
	if err != nil {
		return nil, err
	}
	s.d = d
	return s, nil
}

// poolKey keys a session by server and credentials; the password appears
// only as an HMAC under a key made once per driver.
func (d *Driver) poolKey(addr string, c credentials) string {
	d.keyOnce.Do(func() { rand.Read(d.keySecret[:]) })
	m := hmac.New(sha256.New, d.keySecret[:])
	m.Write([]byte(c.pass))
	return addr + " " + strconv.Quote(c.user) + strconv.FormatBool(c.hasUser) + " " +
		strconv.FormatBool(c.hasPass) + hex.EncodeToString(m.Sum(nil)[:16])
}

// reuse readies a pooled session for req and checks that the server still
// answers: DATE (RFC 3977 §7.1), whose 111 (or a 5xx "unknown command"
// from an older server) shows the session is alive; anything else, a
// timeout notice such as 400 included, retires it, as does anything the
// server sent while the session was idle.
func (s *session) reuse(ctx context.Context, req *fetch.Request) bool {
	if !fetch.Rebind(s.conn, ctx) {
		s.conn.Close()
		return false
	}
	s.req = req
	s.held = false
	s.w.SetTracer(req.Options.Tracer)
	if s.w.R.B.Buffered() > 0 || fetch.Readable(s.conn) {
		// The server wrote while the session waited in the pool: a 400
		// as it timed the session out, its end, or a line no command
		// asked for. Nothing is sent on it: DATE would read that line
		// as its reply, and the request's first command DATE's own.
		req.Trace(fetch.DirInfo, "the server sent something on the idle news session; connecting anew")
		s.conn.Close()
		return false
	}
	req.Trace(fetch.DirInfo, "reusing the news session with "+s.addr)
	if err := s.w.WriteLine(wire.Lit("DATE")); err == nil {
		if code, _, err := s.status(ctx, "DATE"); err == nil && (code == 111 || code == 500 || code == 501 || code == 502) {
			return true
		}
	}
	req.Trace(fetch.DirInfo, "the pooled session is not usable; connecting anew")
	s.conn.Close()
	return false
}

// release gives the session back to the pool after a complete reply.
func (s *session) release() {
	if s.d == nil {
		s.quit()
		return
	}
	opts := s.req.Options
	if !fetch.Rebind(s.conn, context.Background()) {
		s.conn.Close()
		return
	}
	s.w.SetTracer(nil)
	s.req = nil
	// At most IdlePerHost idle sessions with the server, whatever
	// credentials each has.
	s.d.pool.PutHost(s.addr, s.d.poolKey(s.addr, s.creds), s, opts.IdlePerHost(), opts.IdleTotal(), opts.SessionIdle())
}

// Close says QUIT and closes the connection (for the pool).
func (s *session) Close() error {
	s.quit()
	return nil
}
