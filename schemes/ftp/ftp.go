// Package ftp is the ftp:// driver: the access algorithm of RFC 1738 §3.2
// over FTP (RFC 959), with EPSV/EPRT (RFC 2428), SIZE, MDTM and MLSD
// (RFC 3659).
//
// URL grammar (RFC 1738 §3.2):
//
//	ftp://[user[:password]@]host[:port]/<cwd1>/.../<cwdN>/<name>[;type=<a|i|d>]
//
// The driver logs in with the URL's user and password (anonymous with
// Config.AnonymousPassword when the URL names no user, a prompt when it
// names a user without a password and the server asks for one), gives one
// CWD per decoded <cwd> (Config.Method changes that), then:
//
//   - ;type=d: NLST <name>, read as a listing;
//   - a name: TYPE (A for ;type=a, else I), SIZE, MDTM, then RETR; when RETR
//     fails with 550 and CWD <name> works (asked only without ;type=a or
//     ;type=i, which say the name is a file), the name is a directory and
//     is listed, with the canonical URL ending in "/". SIZE is left out on a
//     connection whose server has put the same count in a RETR's 150 reply
//     ("(N bytes)", as vsftpd, ProFTPD and wu-ftpd do): the transfer is
//     checked against that count instead, a round trip less a file; a
//     reply without the count brings SIZE back, asked after that file's
//     data so that it is checked too;
//   - no name (the path ends in "/"): the directory is listed, by MLSD when
//     FEAT offers it, else by LIST.
//
// Request.Offset resumes a download with REST.
//
// Control connections are pooled per (host, port, user, password) after
// login, as rclone's FTP backend does: a request takes one for its whole
// length (a document until its Body is closed) and gives it back only
// when the transfer's final reply has been read, so transfers never
// interleave on one connection. Before reuse the connection goes back to
// the login directory (recorded with PWD before the first CWD), so the
// CWD sequence of RFC 1738 §3.2.2 means what it would on a fresh login
// (one already where the URL's CWDs lead stays there), and a connection
// that fails that CWD or a NOOP is replaced by a new one. A connection
// given back less than a second ago skips the NOOP; if the server has
// closed it meanwhile (a 421, or no reply at all to the first command),
// the request runs again on a new login. A connection on which the server
// wrote while it was idle (a 421 as it timed the session out, or a line
// no command asked for) is replaced before anything is sent on it.
//
// The control protocol is written here on fetch/wire rather than driven
// through github.com/jlaffaye/ftp: v0.2.4 exposes no way to send a command
// of our own, so its List drops the lines it cannot parse, it has no
// active mode (PORT/EPRT), it sends PASS straight after a 331 with no
// chance to ask the user, and its textproto reader has no line bound.
package ftp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/pool"
)

// Config holds the driver's settings.
type Config struct {
	// AnonymousPassword is the password sent with USER anonymous
	// (RFC 1738 §3.2.1: the user's e-mail address). Empty means
	// user@hostname from the local user and host names.
	AnonymousPassword string

	// Method is how the <cwd> parts become commands, like curl's
	// --ftp-method: "multicwd" (the default, RFC 1738: one CWD per part),
	// "singlecwd" (one CWD of the parts joined by "/") or "nocwd" (no CWD:
	// the joined path is the argument of RETR, SIZE, LIST...).
	Method string

	// Active makes the server connect to us for data (EPRT, then PORT),
	// instead of passive EPSV/PASV.
	Active bool
	// ActiveAddr is where to listen in active mode: "", "-" (the control
	// connection's local address), an IP, or IP:port.
	ActiveAddr string

	// DisableEPSV skips the extended commands EPSV and EPRT, going straight
	// to PASV or PORT.
	DisableEPSV bool
}

// The Method values.
const (
	MethodMultiCWD  = "multicwd"
	MethodSingleCWD = "singlecwd"
	MethodNoCWD     = "nocwd"
)

// ErrBadReply marks a reply that breaks the FTP reply syntax or the
// format its code promises (a 227 without six numbers, a 229 without a
// port).
var ErrBadReply = errors.New("malformed FTP reply")

// Driver fetches ftp URLs.
type Driver struct {
	cfg Config

	// passwords remembers, for this driver's life only, the password that
	// logged a user in to a server, so that listing entries (whose URLs
	// never carry the password) fetch without asking again.
	mu        sync.Mutex
	passwords map[string]string

	// pool keeps logged-in control connections between requests.
	pool pool.Pool[*session]
	// checkAfter is how long a connection may wait in the pool and still
	// be reused without a NOOP first; one that turns out to be gone before
	// it answered anything is replaced and the request run again.
	checkAfter time.Duration
	// keyOnce makes keySecret, the key of the hash that stands for a
	// password in a pool key.
	keyOnce   sync.Once
	keySecret [32]byte
	// lastDigest is the last password's digest: a batch asks for one
	// login's key once a URL, and the HMAC was a tenth of its work.
	lastDigest atomic.Pointer[passDigest]
}

// passDigest is a password and its digest in pool keys.
type passDigest struct{ pass, digest string }

// rememberedPassword is the password that last logged user in at hostport.
func (d *Driver) rememberedPassword(user, hostport string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.passwords[user+"@"+hostport]
	return p, ok
}

func (d *Driver) rememberPassword(user, hostport, pass string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.passwords == nil {
		d.passwords = map[string]string{}
	}
	d.passwords[user+"@"+hostport] = pass
}

var (
	_ fetch.Driver     = (*Driver)(nil)
	_ fetch.IdleCloser = (*Driver)(nil)
)

// CloseIdle says QUIT on the pooled control connections not in use.
func (d *Driver) CloseIdle() { d.pool.CloseIdle() }

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg, checkAfter: time.Second} }

// anonymousPassword is the configured password or user@hostname.
func (d *Driver) anonymousPassword() string {
	if d.cfg.AnonymousPassword != "" {
		return d.cfg.AnonymousPassword
	}
	return userAtHost()
}

// userAtHost is the process's user@hostname, looked up once: every request
// needs it for its session's pool key.
var userAtHost = sync.OnceValue(func() string {
	name := "fetch"
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
})

// Fetch dereferences an ftp URL by the RFC 1738 §3.2 access algorithm.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	switch d.cfg.Method {
	case "", MethodMultiCWD, MethodSingleCWD, MethodNoCWD:
	default:
		return nil, req.Errorf(fetch.KindUsage, "ftp", "unknown FTP method %q (want multicwd, singlecwd or nocwd)", d.cfg.Method)
	}
	fu, err := ParseURL(req.URL)
	if err != nil {
		return nil, fetch.Wrap(fetch.KindMalformed, "parse", err)
	}
	// Every value from the URL that reaches a command line is checked
	// before a byte is sent (RFC 1738 §6).
	for _, c := range [][2]string{{"user", req.URL.User}, {"password", req.URL.Password}} {
		if err := fetch.CheckLine(c[0], c[1]); err != nil {
			return nil, err
		}
	}
	if err := checkSegments(req.URL, fu); err != nil {
		return nil, err
	}
	if req.Offset < 0 {
		return nil, req.Errorf(fetch.KindUsage, "REST", "negative resume offset %d", req.Offset)
	}

	s, err := d.session(ctx, req, fu.Dirs)
	if err != nil {
		return nil, err
	}
	res, err := s.access(ctx, fu)
	if err != nil && s.gone(err) {
		// A pooled connection reused without a check was closed by the
		// server (after a 421, or silently) before it answered this
		// request: nothing was done, so the request runs on a new login.
		req.Trace(fetch.DirInfo, "the pooled connection was closed by the server; connecting anew")
		s.nc.Close()
		if s, err = d.connect(ctx, req); err != nil {
			return nil, err
		}
		res, err = s.access(ctx, fu)
	}
	if err != nil {
		s.done(reusable(err))
		return nil, err
	}
	if res.Document == nil && !res.Listing.Streaming() {
		s.done(true) // a streaming listing gives the session back when it is closed
	}
	return res, nil
}

// checkSegments refuses a <cwd> part or a name whose decoded value holds
// CR, LF or NUL, in the URL's order, naming the part and pointing the
// error's offset at the escape that decodes to it: of several segments,
// the one at fault. Each escaped segment of u's path is the one fu's
// value was decoded from (ParseURL splits the path at its slashes).
func checkSegments(u *fetch.URL, fu *URL) error {
	segs := strings.Split(u.Path, "/")
	off := u.PathOffset()
	values := append(slices.Clip(fu.Dirs), fu.Name)
	for i, v := range values {
		part := "path"
		if i == len(values)-1 {
			part = "name"
		}
		err := fetch.CheckLine(part, v)
		if err == nil {
			if i < len(segs) {
				off += len(segs[i]) + 1
			}
			continue
		}
		var fe *fetch.Error
		if errors.As(err, &fe) && i < len(segs) {
			fe.Offset = off + fetch.EscapedIndex(segs[i], strings.IndexAny(v, "\r\n\x00"))
		}
		return err
	}
	return nil
}

// access runs the commands after login: CWDs, then a listing or a RETR.
func (s *session) access(ctx context.Context, fu *URL) (*fetch.Result, error) {
	if err := s.chdirs(fu.Dirs); err != nil {
		return nil, err
	}
	if fu.Type == 'd' {
		l, err := s.nameList(ctx, fu)
		if err != nil {
			return nil, err
		}
		return &fetch.Result{Kind: fetch.KindListing, URL: s.publicURL(), Listing: l}, nil
	}
	if fu.Name == "" {
		l, err := s.list(ctx, fu.Dirs, s.pathArg(fu.Dirs, ""))
		if err != nil {
			return nil, err
		}
		return &fetch.Result{Kind: fetch.KindListing, URL: s.dirURL(fu.Dirs), Listing: l}, nil
	}
	doc, isDir, err := s.retrieve(ctx, fu)
	if err != nil {
		return nil, err
	}
	if isDir {
		dirs := append(append([]string(nil), fu.Dirs...), fu.Name)
		l, err := s.list(ctx, dirs, "")
		if err != nil {
			return nil, err
		}
		return &fetch.Result{Kind: fetch.KindListing, URL: s.dirURL(dirs), Listing: l}, nil
	}
	return &fetch.Result{Kind: fetch.KindDocument, URL: s.publicURL(), Document: doc}, nil
}

// segmentKeep are the characters besides unreserved ones that an fsegment
// may hold unencoded (RFC 1738 §5: uchar | ":" | "@" | "&" | "="; "?" is
// allowed too but is encoded here so no reader takes it for a query).
const segmentKeep = ":@&="

// escapePath encodes decoded segments for an FTP url-path, each on its own
// so a "/" inside one becomes %2F (RFC 1738 §3.2.2).
func escapePath(segs []string) string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = fetch.Escape(s, segmentKeep)
	}
	return strings.Join(out, "/")
}

// publicURL is the request's URL without its password, which results and
// listings must not pass on (RFC 1738 §6). It keeps the user, so fetching
// an entry logs in as the same user and asks for the password again.
func (s *session) publicURL() *fetch.URL {
	u := s.req.URL.Clone()
	u.Password, u.HasPassword = "", false
	return u
}

// dirURL is the canonical URL of the directory dirs: the request's URL
// with its path replaced, ending in "/", without a typecode or password.
func (s *session) dirURL(dirs []string) *fetch.URL {
	u := s.publicURL()
	u.Path = ""
	if len(dirs) > 0 {
		u.Path = escapePath(dirs) + "/"
	}
	u.HasPath = true
	u.Fragment, u.HasFragment = "", false
	return u
}

// entryURL is the absolute URL of an entry below the directory dirs.
func (s *session) entryURL(dirs []string, name string, dir bool) string {
	u := s.dirURL(dirs)
	u.Path += fetch.Escape(name, segmentKeep)
	if dir {
		u.Path += "/"
	}
	return u.String()
}

// guessMIME is the content type suggested by a name's suffix (RFC 1738
// §3.2.3), or "" when the suffix says nothing.
func guessMIME(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case "":
		return ""
	case ".txt", ".text", ".asc", ".md", ".c", ".h", ".go", ".py", ".sh", ".pl", ".diff", ".patch":
		return "text/plain"
	}
	return fetch.TypeByExtension(ext)
}

// transferType is the TYPE argument for a URL's typecode: A for ";type=a",
// else I. Without a typecode RFC 1738 §3.2.3 leaves the choice to the
// client; binary is the only mode that delivers the bytes unchanged (curl
// does the same), so the suffix guess only sets the MIME type.
func transferType(t byte) string {
	if t == 'a' {
		return "A"
	}
	return "I"
}

func errorf(k fetch.Kind, op, format string, args ...any) *fetch.Error {
	return &fetch.Error{Kind: k, Op: op, Offset: -1, Err: fmt.Errorf(format, args...)}
}
