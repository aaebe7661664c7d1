package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// maxReplyLines and maxReplyBytes bound a multi-line reply (a banner,
// FEAT) so a server cannot make the client buffer without end; each line
// is bounded by the wire reader, and a reply as a whole in time by the
// session's wire.ReplyTimer.
const (
	maxReplyLines = 4096
	maxReplyBytes = 1 << 20
)

// maxReadyWaits bounds the "120 ready in nnn minutes" replies waited
// through before the 220: a server that sends them without end (each
// renewing the idle timeout) would hold the client for ever.
const maxReadyWaits = 8

// reply is one FTP reply (RFC 959 §4.2): a three-digit code and its text
// lines, the code prefix removed.
type reply struct {
	Code  int
	Lines []string
}

// Text is the reply's text, lines joined by newlines.
func (r reply) Text() string { return strings.Join(r.Lines, "\n") }

// Class is the first digit of the code: 1 preliminary, 2 done, 3 more
// needed, 4 transient failure, 5 permanent failure.
func (r reply) Class() int { return r.Code / 100 }

// session is one logged-in control connection.
type session struct {
	d   *Driver
	req *fetch.Request
	nc  net.Conn
	w   *wire.Conn
	// timer bounds each reply in time (under w's reader)
	timer *wire.ReplyTimer

	dataHost string            // where passive data connections go
	feats    map[string]string // FEAT, once asked
	noEPSV   bool              // EPSV/EPRT refused or disabled

	key     string   // the pool key of this login; "" before login
	host    string   // the server's host:port, as the pool key has it
	home    string   // the login directory, from PWD before the first CWD
	moved   bool     // a CWD was sent since login or the last return home
	noReuse bool     // the login directory is unknown: never pooled
	at      []string // the <cwd> parts that led here from the login directory
	atKnown bool     // at is valid (false after a failed CWD)
	typ     string   // the TYPE in force, "" when unknown

	// countIn150 is true once a 150 reply to RETR on this connection gave
	// the byte count that SIZE had given: later binary RETRs from the
	// start skip SIZE (one round trip a file) and check the transfer
	// against the 150's count. A 150 without it brings SIZE back.
	countIn150 bool

	lastUsed   time.Time // when the last request gave the connection back
	unverified bool      // reused without a check (see Driver.checkAfter)
	replies    int       // replies read on the connection
	base       int       // replies before this request's first command
	closing    bool      // this request's first reply was 421 (closing)
}

// connect dials the URL's host, reads the greeting and logs in.
func (d *Driver) connect(ctx context.Context, req *fetch.Request) (*session, error) {
	nc, err := req.Dial(ctx, req.URL.HostPort(21))
	if err != nil {
		return nil, err
	}
	s := &session{d: d, req: req, nc: nc, noEPSV: d.cfg.DisableEPSV, atKnown: true}
	s.timer = wire.NewReplyTimer(nc)
	s.w = wire.NewConn(struct {
		io.Reader
		io.Writer
	}{s.timer, nc}, 0, req.Options.Tracer)
	s.w.Mask = wire.MaskCommands("PASS", "ACCT")
	// The data connection goes to the control connection's peer whatever
	// address a PASV reply names (CVE-2020-8284). Through a proxy dialer
	// the peer is the proxy, so the URL's host is used instead.
	s.dataHost = req.URL.Host
	if req.Options.Dialer == nil {
		if ta, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
			s.dataHost = ta.IP.String()
		}
	}
	if err := s.greeting(); err != nil {
		nc.Close()
		return nil, err
	}
	if err := s.login(ctx); err != nil {
		s.quit()
		return nil, err
	}
	return s, nil
}

// greeting reads the server's 220, waiting through 120 "ready soon".
func (s *session) greeting() error {
	for waits := 0; ; waits++ {
		r, err := s.readReply("connect")
		if err != nil {
			return err
		}
		switch {
		case r.Code == 120 && waits < maxReadyWaits:
			continue
		case r.Code == 120:
			return s.refused("connect", r, fmt.Errorf("still not ready after %d replies of 120", waits+1))
		case r.Code == 220:
			return nil
		}
		return s.refused("connect", r, nil)
	}
}

// login sends USER and PASS (RFC 1738 §3.2.1).
func (s *session) login(ctx context.Context) error {
	u := s.req.URL
	user, pass, havePass := "anonymous", s.d.anonymousPassword(), true
	userPart, passPart := "user", "anonymous password"
	if u.HasUser {
		user, pass, havePass = u.User, u.Password, u.HasPassword
		passPart = "password"
	}
	hostport := u.HostPort(DefaultPort)
	s.host = hostport
	r, err := s.cmd("USER", wire.Lit("USER "), wire.Arg(userPart, user))
	if err != nil {
		return err
	}
	switch r.Code {
	case 230:
		s.key = s.d.poolKey(hostport, user, pass)
		return nil
	case 331, 332:
	default:
		return s.refused("USER", r, authErr(r))
	}
	if r.Code == 332 {
		return s.refused("USER", r, errors.New("the server wants an account (ACCT), which ftp URLs cannot give"))
	}
	if !havePass {
		pass, havePass = s.d.rememberedPassword(user, hostport)
	}
	if !havePass {
		pass, err = s.req.Prompt(ctx, fetch.Question{
			Field:  "password",
			Label:  fmt.Sprintf("Password for %s@%s", user, u.Host),
			Secret: true,
		})
		if err != nil {
			return err
		}
	}
	r, err = s.cmd("PASS", wire.Lit("PASS "), wire.Arg(passPart, pass))
	if err != nil {
		return err
	}
	switch r.Code {
	case 230, 202:
		if u.HasUser {
			s.d.rememberPassword(user, hostport, pass)
		}
		s.key = s.d.poolKey(hostport, user, pass)
		return nil
	case 332:
		return s.refused("PASS", r, errors.New("the server wants an account (ACCT), which ftp URLs cannot give"))
	}
	return s.refused("PASS", r, authErr(r))
}

// authErr is the cause of a failed login step: 530 is "not logged in".
func authErr(r reply) error {
	if r.Code == 530 || r.Class() == 5 {
		return fetch.ErrAuth
	}
	return nil
}

// cmd sends one command and reads its reply. op names the command in errors.
func (s *session) cmd(op string, parts ...wire.Part) (reply, error) {
	if err := s.w.WriteLine(parts...); err != nil {
		return reply{}, s.netErr(op, err)
	}
	return s.readReply(op)
}

// readReply reads one reply, multi-line or not (RFC 959 §4.2).
func (s *session) readReply(op string) (reply, error) {
	s.timer.Begin(s.req.IdleLimit()) // no request: a pooled session's QUIT
	r, err := readReply(s.w.R, op)
	s.timer.End()
	if err == nil {
		if r.Code == 421 && s.replies == s.base {
			s.closing = true
		}
		s.replies++
	}
	return r, err
}

// readReply reads one reply from r. A line that is not a reply, a reply
// longer than the bounds or a closed connection is an error naming op.
func readReply(r *wire.Reader, op string) (reply, error) {
	line, err := r.ReadLine()
	if err != nil {
		return reply{}, replyReadErr(op, err)
	}
	code, sep, ok := replyCode(line)
	if !ok {
		return reply{}, badReply(op, fmt.Errorf("%w: %q does not start with a three-digit code", ErrBadReply, clip(line)))
	}
	rep := reply{Code: code, Lines: []string{line[min(len(line), 4):]}}
	if sep != '-' {
		return rep, nil
	}
	size := len(line)
	// Multi-line: everything up to a line "<same code> " belongs to it.
	for {
		line, err := r.ReadLine()
		if err != nil {
			return reply{}, replyReadErr(op, err)
		}
		if len(rep.Lines) >= maxReplyLines {
			return reply{}, tooLarge(op, fmt.Sprintf("a reply of more than %d lines", maxReplyLines))
		}
		if size += len(line); size > maxReplyBytes {
			return reply{}, tooLarge(op, fmt.Sprintf("a reply of more than %d bytes", maxReplyBytes))
		}
		if c, sep, ok := replyCode(line); ok && c == code && sep != '-' {
			rep.Lines = append(rep.Lines, line[min(len(line), 4):])
			return rep, nil
		}
		rep.Lines = append(rep.Lines, line)
	}
}

// replyCode splits "227 text" or "220-text" into its code and separator.
func replyCode(line string) (code int, sep byte, ok bool) {
	if len(line) < 3 {
		return 0, 0, false
	}
	for i := 0; i < 3; i++ {
		if line[i] < '0' || line[i] > '9' {
			return 0, 0, false
		}
	}
	if line[0] < '1' || line[0] > '5' {
		return 0, 0, false
	}
	if len(line) > 3 {
		sep = line[3]
		if sep != ' ' && sep != '-' {
			return 0, 0, false
		}
	}
	code, _ = strconv.Atoi(line[:3])
	return code, sep, true
}

// clip shortens server text quoted in an error.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// tooLarge is a reply past one of its bounds, refused as a size bound
// (exit 4), as a listing or a line past its own is.
func tooLarge(op, what string) *fetch.Error {
	return &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1, Err: fmt.Errorf("%w: %s", fetch.ErrTooLarge, what)}
}

func badReply(op string, err error) *fetch.Error {
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1, Err: err}
}

func replyReadErr(op string, err error) *fetch.Error {
	switch {
	case errors.Is(err, fetch.ErrLineTooLong):
		// A size bound, refused as the bounds on a listing are.
		return &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1,
			Err: fmt.Errorf("control reply line: %w", err)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1,
			Err: errors.New("the server closed the control connection")}
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1, Err: err}
}

func (s *session) netErr(op string, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1, Err: err}
}

// refused is the error for a reply that ends the fetch. cause, when nil,
// is ErrNotFound for 550 and a generic refusal otherwise.
func (s *session) refused(op string, r reply, cause error) *fetch.Error {
	if cause == nil {
		if r.Code == 550 {
			cause = fetch.ErrNotFound
		} else {
			cause = fmt.Errorf("%s refused", op)
		}
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1,
		Code: r.Code, Reply: clip(r.Text()), Err: cause}
}

// quit says QUIT, waits briefly for the 221 and closes the connection.
// A server that does not answer costs at most two seconds.
func (s *session) quit() {
	if s.w.WriteLine(wire.Lit("QUIT")) == nil {
		t := time.AfterFunc(2*time.Second, func() { s.nc.Close() })
		s.readReply("QUIT")
		t.Stop()
	}
	s.nc.Close()
}

// feat asks FEAT once (RFC 2389); a server without it has no features.
func (s *session) feat() (map[string]string, error) {
	if s.feats != nil {
		return s.feats, nil
	}
	s.feats = map[string]string{}
	r, err := s.cmd("FEAT", wire.Lit("FEAT"))
	if err != nil {
		return nil, err
	}
	if r.Code != 211 {
		return s.feats, nil
	}
	for _, l := range r.Lines {
		if !strings.HasPrefix(l, " ") {
			continue
		}
		name, arg, _ := strings.Cut(strings.TrimSpace(l), " ")
		s.feats[strings.ToUpper(name)] = arg
	}
	return s.feats, nil
}

// method is the configured CWD method.
func (s *session) method() string {
	if s.d.cfg.Method == "" {
		return MethodMultiCWD
	}
	return s.d.cfg.Method
}

// chdirs changes to the URL's directory (RFC 1738 §3.2.2: each <cwd> is
// one CWD, an empty one included).
// A connection that is already where dirs lead (a pooled one whose last
// request had the same <cwd> parts) stays there.
func (s *session) chdirs(dirs []string) error {
	if s.method() == MethodNoCWD || s.here(dirs) {
		return nil
	}
	s.atKnown = false
	if s.method() == MethodSingleCWD {
		dir := strings.Join(dirs, "/")
		if dir == "" && len(dirs) > 0 {
			// ftp://h//name: the parts [""] stand for the root, as
			// "/name" does for nocwd; "CWD " with no argument would
			// ask the server for something else.
			dir = "/"
		}
		if err := s.cwd(dir); err != nil {
			return s.atSegment(err, 0)
		}
	} else {
		for i, d := range dirs {
			if err := s.cwd(d); err != nil {
				return s.atSegment(err, i)
			}
		}
	}
	s.at, s.atKnown = append([]string(nil), dirs...), true
	return nil
}

// atSegment names the URL part a refused CWD came from: the path, at
// the offset of its i-th segment (the one the CWD's argument was decoded
// from; with singlecwd, the first) in the URL the error shows, so that of
// several <cwd> parts the one the server refused can be told.
func (s *session) atSegment(err error, i int) error {
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || fe.Part != "" || !aboutArgument(fe.Code) {
		return err
	}
	u := s.req.URL
	off, p := u.PathOffset(), u.Path
	for ; i > 0; i-- {
		j := strings.IndexByte(p, '/')
		if j < 0 {
			break
		}
		off, p = off+j+1, p[j+1:]
	}
	fe.Part, fe.Offset = "path", off
	return err
}

// aboutArgument reports whether a refusal of code may be the fault of
// the command's argument: not 421 (the server is closing), 500 or 502
// (the command not understood, not implemented), 530 or 532 (the login
// no longer good, an account needed) or 451 (a local error of the
// server's), whatever the argument (RFC 959 §4.2).
func aboutArgument(code int) bool {
	switch code {
	case 421, 451, 500, 502, 530, 532:
		return false
	}
	return true
}

// here reports whether the connection is where the <cwd> parts dirs lead
// from the login directory.
func (s *session) here(dirs []string) bool {
	return s.atKnown && slices.Equal(s.at, dirs)
}

func (s *session) cwd(dir string) error {
	s.leaveHome()
	r, err := s.cmd("CWD", wire.Lit("CWD "), wire.Arg("path", dir))
	if err != nil {
		return err
	}
	if r.Class() != 2 {
		return s.refused("CWD", r, nil)
	}
	return nil
}

// pathArg is the argument naming name in the URL's directory: name itself
// after CWDs, the joined path with the nocwd method.
func (s *session) pathArg(dirs []string, name string) string {
	if s.method() != MethodNoCWD || len(dirs) == 0 {
		return name
	}
	return strings.Join(dirs, "/") + "/" + name
}

// setType sends TYPE A or TYPE I, unless that type is already in force
// on the connection (RFC 959 §5.3.2: it stays until changed).
func (s *session) setType(t string) error {
	if s.typ == t {
		return nil
	}
	s.typ = ""
	r, err := s.cmd("TYPE", wire.Lit("TYPE "+t))
	if err != nil {
		return err
	}
	if r.Class() != 2 {
		return s.refused("TYPE", r, nil)
	}
	s.typ = t
	return nil
}
