// Package nntp dereferences news: and nntp: URLs (RFC 1738 §3.6 and §3.7)
// over NNTP (RFC 977 and its successor RFC 3977). One Driver serves both
// schemes:
//
//	news:<unique>@<domain>       ARTICLE <unique@domain>: the article as message/rfc822
//	news:<group>                 GROUP, then OVER (XOVER, HEAD) over the newest
//	                             Config.PageSize articles: a listing of news:<message-id> URLs
//	news:*                       LIST ACTIVE and LIST NEWSGROUPS: a listing of news:<group> URLs
//	news:<wildmat>               LIST ACTIVE <wildmat> (RFC 5538), e.g. news:comp.*; matched
//	                             here where the server takes no pattern (501) or no ACTIVE (500)
//	news://host:port/...         the RFC 5538 form: the same, from the named server
//	nntp://host:port/<group>/<n> GROUP <group>, ARTICLE <n>
//	nntp://host:port/<group>     a group listing of nntp://host:port/<group>/<n> URLs
//	nntp://host:port/            every group, as nntp://host:port/<group> URLs (extension)
//
// A news: URL names no server (RFC 1738 §3.6: news URLs are location-
// independent): it is read from Config.Server, else the NNTPSERVER
// environment variable, else "localhost", on port 119 unless the server
// names one (or NNTPPORT does). When the server answers 480, the driver
// authenticates with AUTHINFO USER/PASS (RFC 4643) using the nntp URL's
// user and password, else Config.User and Config.Password, else the
// prompter's "user" and "password" answers, and retries. The password that
// authenticated an nntp URL's user at a server is remembered for the
// driver's life, for that user and server only, so the URLs of its
// listings (which never carry it) fetch. Config.User and
// Config.Password belong to the configured server: they are sent only to
// the address a news: URL without a host would dial, never to another
// server an nntp:// or news:// URL names.
package nntp

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/pool"
)

// DefaultPort is the NNTP port (RFC 3977 §3).
const DefaultPort = 119

// DefaultPageSize is how many of a group's newest articles a listing shows.
const DefaultPageSize = 100

// Config holds the driver's settings.
type Config struct {
	// Server is the news server ("host" or "host:port") for news: URLs,
	// which name none. Empty means the NNTPSERVER environment variable,
	// then "localhost". Without a port, NNTPPORT or 119 is used.
	Server string
	// User and Password are the AUTHINFO credentials sent when the
	// configured server (Server, NNTPSERVER/NNTPPORT, or localhost:119)
	// asks for them (reply 480); no other server ever receives them. An
	// nntp URL's own user and password come first; Password is used only
	// with Config.User's name.
	User     string
	Password string
	// PageSize is how many of a group's newest articles a group listing
	// shows; 0 means DefaultPageSize.
	PageSize int
}

// Driver fetches news: and nntp: URLs, keeping sessions between requests
// (see CloseIdle).
type Driver struct {
	cfg Config

	pool      pool.Pool[*session]
	keyOnce   sync.Once
	keySecret [32]byte // the key of the hash that stands for a password in a pool key

	// passwords remembers, for this driver's life only, the password that
	// authenticated an nntp URL's user at a server, so that the URLs of
	// its listings (which never carry the password) fetch without it.
	mu        sync.Mutex
	passwords map[string]string
}

// rememberedPassword is the password that last authenticated user at addr.
func (d *Driver) rememberedPassword(user, addr string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	p, ok := d.passwords[user+"@"+addr]
	return p, ok
}

func (d *Driver) rememberPassword(user, addr, pass string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.passwords == nil {
		d.passwords = map[string]string{}
	}
	d.passwords[user+"@"+addr] = pass
}

var _ fetch.Driver = (*Driver)(nil)

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

func (d *Driver) pageSize() int64 {
	if d.cfg.PageSize > 0 {
		return int64(d.cfg.PageSize)
	}
	return DefaultPageSize
}

// Fetch dereferences a news: or nntp: URL.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	switch req.URL.Scheme {
	case "news":
		return d.fetchNews(ctx, req)
	case "nntp":
		return d.fetchNNTP(ctx, req)
	}
	return nil, req.Errorf(fetch.KindUsage, "nntp", "the nntp driver does not serve %q URLs", req.URL.Scheme)
}

// checkDecoded refuses a URL part whose decoded form would put CR, LF or
// NUL on a command line (RFC 1738 §6), before the scheme view judges its
// syntax, so such a URL is a policy refusal (exit 4) and not merely
// malformed.
func checkDecoded(escaped string) error {
	v, err := fetch.Unescape(escaped)
	if err != nil {
		return nil // the view reports the bad escape with its offset
	}
	part := "group"
	if strings.IndexByte(v, '@') >= 0 {
		part = "message-id"
	}
	return fetch.CheckLine(part, v)
}

// checkNNTPPath is checkDecoded for an nntp url-path (RFC 1738 §3.7:
// <newsgroup-name>/<article-number>): each part is checked on its own and
// named as what it is; an "@" there makes no message-id.
func checkNNTPPath(escaped string) error {
	group, article, _ := strings.Cut(escaped, "/")
	for _, p := range [][2]string{{"group", group}, {"article", article}} {
		v, err := fetch.Unescape(p[1])
		if err != nil {
			continue // the view reports the bad escape with its offset
		}
		if err := fetch.CheckLine(p[0], v); err != nil {
			return err
		}
	}
	return nil
}

func (d *Driver) fetchNews(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL
	part := u.Opaque
	if u.Slashes {
		part = u.Path
	}
	if err := checkDecoded(part); err != nil {
		return nil, err
	}
	nu, err := ParseNewsURL(u)
	if err != nil {
		return nil, err
	}
	addr, port, err := d.newsServer(u)
	if err != nil {
		return nil, req.Errorf(fetch.KindUsage, "news server", "%v", err)
	}
	// The client checked no port: a news: URL has no host. Check the one
	// the configuration chose before connecting to it.
	if err := req.CheckPort("nntp", port); err != nil {
		return nil, err
	}
	creds := d.configCreds(addr)
	if err := creds.check(); err != nil {
		return nil, err
	}
	s, err := d.session(ctx, req, addr, creds)
	if err != nil {
		return nil, err
	}
	// Listing URLs are news:<x>, or news://host:port/<x> when the URL
	// named its server (RFC 5538 §2.2).
	entryURL := func(escaped string) string {
		if u.Host == "" {
			return "news:" + escaped
		}
		e := u.Clone()
		e.Path, e.HasPath = escaped, true
		return e.String()
	}
	groupURL := func(g string) string { return entryURL(fetch.Escape(g, "")) }
	var res *fetch.Result
	switch {
	case nu.MessageID != "":
		res, err = s.article(ctx, "ARTICLE", "message-id", wireArticleByID(nu.MessageID))
	case nu.All:
		res, err = s.listGroups(ctx, "", groupURL)
	case nu.Wildmat:
		res, err = s.listGroups(ctx, nu.Group, groupURL)
	default:
		res, err = s.listGroup(ctx, nu.Group, d.pageSize(), func(ov *overview) string {
			// news:<id> is read as an article only with an "@" in it
			// (RFC 1738 §3.6); an id without one (RFC 3977 allows it)
			// would name a group, so its entry has no URL, nor has an
			// id that ParseNewsURL would refuse.
			if !urlMessageID(ov.MessageID) {
				return ""
			}
			return entryURL(escapeMessageID(ov.MessageID))
		})
	}
	return s.finish(res, err)
}

func (d *Driver) fetchNNTP(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL
	if err := checkNNTPPath(u.Path); err != nil {
		return nil, err
	}
	// RFC 1738 §3.7's grammar has no login, and the view refuses one; this
	// driver takes it as the AUTHINFO credentials, so the view sees the
	// URL without it.
	bare := u.Clone()
	bare.User, bare.Password, bare.HasUser, bare.HasPassword = "", "", false, false
	var nu *URL
	if u.Path != "" {
		var err error
		if nu, err = ParseURL(bare); err != nil {
			if fe, ok := err.(*fetch.Error); ok {
				fe.URL = u.Redacted()
			}
			return nil, err
		}
	} else if u.Host == "" {
		// The view's own message for a URL without a host.
		if _, err := ParseURL(bare); err != nil {
			return nil, err
		}
	}

	addr := u.HostPort(DefaultPort)
	cfgCreds := d.configCreds(addr)
	creds := cfgCreds
	if u.HasUser {
		creds = credentials{user: u.User, hasUser: true, fromURL: true}
		switch {
		case u.HasPassword:
			creds.pass, creds.hasPass = u.Password, true
		case cfgCreds.hasPass && u.User == cfgCreds.user:
			creds.pass, creds.hasPass = cfgCreds.pass, true
		default:
			creds.pass, creds.hasPass = d.rememberedPassword(u.User, addr)
		}
	}
	if err := creds.check(); err != nil {
		return nil, err
	}
	s, err := d.session(ctx, req, addr, creds)
	if err != nil {
		return nil, err
	}
	// Listing URLs name the same server and user, never the password.
	base := u.Clone()
	base.Password, base.HasPassword = "", false
	base.HasPath = true
	entryURL := func(path string) string {
		e := base.Clone()
		e.Path = path
		return e.String()
	}

	var res *fetch.Result
	switch {
	case nu == nil:
		res, err = s.listGroups(ctx, "", func(g string) string { return entryURL(fetch.Escape(g, "")) })
	case nu.HasArticle:
		if err = s.selectGroup(ctx, nu.Group, nil); err == nil {
			res, err = s.article(ctx, "ARTICLE", "article", wireArticleByNumber(nu.Article))
		}
	default:
		g := fetch.Escape(nu.Group, "")
		res, err = s.listGroup(ctx, nu.Group, d.pageSize(), func(ov *overview) string {
			return entryURL(g + "/" + strconv.FormatInt(ov.Number, 10))
		})
	}
	return s.finish(res, err)
}

// newsServer is the server a news: URL is read from, as "host:port" and
// the port: the URL's own (RFC 5538 news://host/), Config.Server,
// NNTPSERVER, or localhost.
func (d *Driver) newsServer(u *fetch.URL) (string, int, error) {
	if u.Host != "" {
		return u.HostPort(DefaultPort), u.PortOr(DefaultPort), nil
	}
	return d.configuredServer()
}

// configCreds is Config.User and Config.Password when addr is the
// configured news server, and none otherwise: a URL that names another
// server must not learn the configured server's password.
func (d *Driver) configCreds(addr string) credentials {
	if d.cfg.User == "" {
		return credentials{}
	}
	home, _, err := d.configuredServer()
	if err != nil || !sameAddr(addr, home) {
		return credentials{}
	}
	return credentials{user: d.cfg.User, pass: d.cfg.Password, hasUser: true, hasPass: d.cfg.Password != ""}
}

// sameAddr reports whether two "host:port" addresses are the same, host
// names compared without regard to case.
func sameAddr(a, b string) bool {
	ah, ap, err1 := net.SplitHostPort(a)
	bh, bp, err2 := net.SplitHostPort(b)
	return err1 == nil && err2 == nil && ap == bp && strings.EqualFold(ah, bh)
}

// configuredServer is the server a news: URL without a host is read from:
// Config.Server, NNTPSERVER, or localhost, on its own port, NNTPPORT or
// 119; as "host:port" and the port.
func (d *Driver) configuredServer() (string, int, error) {
	server, from := d.cfg.Server, "the configured news server"
	if server == "" {
		server, from = os.Getenv("NNTPSERVER"), "NNTPSERVER"
	}
	if server == "" {
		server = "localhost"
	}
	if at := strings.LastIndexByte(server, '@'); at >= 0 {
		// "user:password@host", as in a URL: never echoed, never dialled.
		return "", 0, fmt.Errorf("%s %q: a server is host[:port], without a user or password", from, "****"+server[at:])
	}
	host, port, err := splitServer(server)
	if err != nil {
		return "", 0, fmt.Errorf("%s %q: %v", from, server, err)
	}
	if port == 0 {
		port = DefaultPort
		if p := os.Getenv("NNTPPORT"); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 || n > 65535 {
				return "", 0, fmt.Errorf("NNTPPORT %q is not a port number", p)
			}
			port = n
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), port, nil
}

// splitServer reads "host", "host:port", "[v6]", "[v6]:port" or a bare
// IPv6 literal; port is 0 when none is named.
func splitServer(s string) (string, int, error) {
	s = strings.TrimSpace(s)
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("port %q is not a number from 1 to 65535", p)
		}
		if h == "" {
			return "", 0, fmt.Errorf("no host name")
		}
		if !serverHost(h) {
			return "", 0, fmt.Errorf("not a host name")
		}
		return h, n, nil
	}
	if strings.HasPrefix(s, "[") != strings.HasSuffix(s, "]") {
		return "", 0, fmt.Errorf("an IPv6 address is written in brackets, both of them")
	}
	h := strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	if _, err := netip.ParseAddr(h); strings.Contains(h, ":") && err != nil {
		// Colons and no IPv6 address: "host:port:x", not a bare literal.
		return "", 0, fmt.Errorf("not host:port, a host name or an IPv6 address")
	}
	if !serverHost(h) {
		return "", 0, fmt.Errorf("not a host name")
	}
	return h, 0, nil
}

// serverHost tells whether h is an IP address or a name made of what
// host names hold (letters, digits, "-", "." and "_"): no space, control
// character or delimiter, which would reach the resolver.
func serverHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	if h == "" {
		return false
	}
	for _, r := range h {
		if !(r == '-' || r == '.' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// escapeMessageID writes a message-id (without "<>") for a news: URL:
// everything outside RFC 1738's unreserved set is %-encoded except "@"
// and the reserved characters a news URL may hold unescaped (§3.6: "no
// additional characters are reserved"), but never "?", "/" or "#".
func escapeMessageID(id string) string {
	return fetch.Escape(id, "@:;=&")
}

// check refuses credentials that would put CR, LF or NUL on the AUTHINFO
// lines (RFC 1738 §6), before any connection is made.
func (c credentials) check() error {
	for _, p := range []struct{ part, v string }{{"user", c.user}, {"password", c.pass}} {
		if err := fetch.CheckLine(p.part, p.v); err != nil {
			return err
		}
	}
	return nil
}
