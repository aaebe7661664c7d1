// Package http is the driver for http: and https: URLs (RFC 1738 §3.3),
// and for any URL sent whole to an HTTP gateway (proxy).
//
// Grammar: http://<host>:<port>/<path>?<searchpart>. The path and search
// go to the server as written, but for the characters RFC 1738 calls
// unsafe ("~", "{", "|", "[", octets >= 0x80...), which fetch.Parse stores
// escaped ("/~user" goes as "/%7Euser"); a bare space or control is a
// malformed URL. The fragment never goes. Redirects are followed only to http and https, at most 20
// hops, each hop checked against the port policy before it connects.
package http

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptrace"
	"net/http/httputil"
	neturl "net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
	"golang.org/x/net/http/httpguts"
)

// UserAgent is sent with every request unless Config.UserAgent is set.
const UserAgent = "fetch/0.1 (+RFC 1738)"

// Config holds the http driver's settings.
type Config struct {
	UserAgent    string
	MaxRedirects int  // 20 when zero; -1 follows none
	Insecure     bool // accept any TLS certificate (tests only)
	// Header lines added to every request ("Name: value").
	Header []string
	// Pipeline, when 1 or more, sends plain-http GETs on the driver's
	// own keep-alive connections (pipeline.go), with up to Pipeline of
	// them outstanding on one connection (HTTP/1.1 pipelining; 1 sends
	// the next only after the answer before it). Zero sends every request
	// through net/http's Transport. Requests traced to an archive
	// (Request.Capture), through a gateway or over https always go
	// through the Transport, one at a time.
	//
	// At 1 the bytes on the wire are the Transport's, and so are the
	// bounds; what differs is the work a request costs: the Transport
	// hands each request to two goroutines of its connection (one writes,
	// one reads) and back, where the driver's own connection is written
	// and read by the request's goroutine. Measured on 2,000 small
	// documents 16 at once from one nginx, that is about a tenth less
	// time and CPU for the whole batch (README, Performance).
	Pipeline int
}

// Driver fetches http and https URLs with net/http. It keeps keep-alive
// transports built from the client options of its first request: a
// Driver serves one client (schemes.NewClient makes its own).
type Driver struct {
	cfg Config

	mu sync.Mutex
	tr *nethttp.Transport // plain connections
	// pipe sends the plain connections' GETs on the driver's own
	// connections (Config.Pipeline), the rest through tr.
	pipe *pipeline
	// Connections whose bytes are copied to an archive (tapConn), for
	// the requests with a Capture only: a request without one never gets
	// a connection that was tapped for another, and pays for no tap.
	tapped *nethttp.Transport

	headerOnce sync.Once
	hdr        nethttp.Header // see setHeaders

	// dials maps the context of each dial under way (net/http's, one a
	// dial) to the dialTrace of the connection being made.
	dials sync.Map
}

var (
	_ fetch.Driver     = (*Driver)(nil)
	_ fetch.IdleCloser = (*Driver)(nil)
)

// CloseIdle closes the keep-alive connections not in use.
func (d *Driver) CloseIdle() {
	d.mu.Lock()
	trs := []*nethttp.Transport{d.tr, d.tapped}
	pipe := d.pipe
	d.mu.Unlock()
	if pipe != nil {
		pipe.closeIdle()
	}
	for _, tr := range trs {
		if tr != nil {
			tr.CloseIdleConnections()
		}
	}
}

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

func (d *Driver) maxRedirects() int {
	switch {
	case d.cfg.MaxRedirects < 0:
		return 0
	case d.cfg.MaxRedirects == 0:
		return fetch.DefaultMaxRedirects
	}
	return d.cfg.MaxRedirects
}

// Fetch performs a GET. With req.Proxy set, the URL (of any scheme) goes
// whole to the gateway.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	if req.Proxy != nil && req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return d.viaGateway(ctx, req)
	}
	hu, err := ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	target, err := requestURL(req.URL, hu)
	if err != nil {
		return nil, err
	}
	hop := target
	hctx := context.WithValue(ctx, requestKey{}, req)
	var tunnel *tunnelFailure // a gateway's answer to CONNECT, refused
	if req.Options.Proxy != nil {
		hctx, tunnel = withTunnelFailure(hctx)
		hctx = context.WithValue(hctx, gatewayKey{}, new(gatewayChoice))
	}
	if req.Capture != nil {
		hctx = httptrace.WithClientTrace(hctx, withCaptureTrace(req, func() string {
			// The URL requested: a redirect's Location may carry a
			// fragment, which net/http keeps on the hop's URL but never
			// sends; a WARC-Target-URI holds none.
			u := *hop
			u.Fragment, u.RawFragment = "", ""
			return u.String()
		}))
	}
	if req.Options.Tracer != nil {
		s := &sentTrace{req: req}
		hctx = context.WithValue(hctx, sentKey{}, s)
		hctx = httptrace.WithClientTrace(hctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
			// How the connection was made, to the first request that
			// gets it (a connection that waited in the pool unused counts
			// as Reused), then the request.
			if t := dialTraceOf(info.Conn); t != nil {
				t.flushTo(req)
			}
			s.gotConn(info)
		}})
	}
	hreq, err := nethttp.NewRequestWithContext(hctx, nethttp.MethodGet, "", nil)
	if err != nil {
		return nil, fetch.Wrap(fetch.KindMalformed, "request", err)
	}
	hreq.URL = target // its Host is the Host header's, as written
	d.setHeaders(req, hreq)

	hops := 0
	foreign := false // a hop has left the first URL's origin
	client := &nethttp.Client{
		Transport: d.transport(req),
		// Each hop keeps the first request's headers, but the
		// credentials among them (-H "Authorization: ...", a Cookie)
		// go only to the first URL's origin: its scheme, host and
		// port. net/http drops them only for another domain, and would
		// send them to a subdomain, another port (another server) or
		// from https to http in the clear. Once a hop has left the
		// origin, no later hop gets them back.
		CheckRedirect: func(next *nethttp.Request, via []*nethttp.Request) error {
			hops++
			if hops > d.maxRedirects() {
				return &fetch.Error{Kind: fetch.KindPolicy, Op: "redirect", Offset: -1,
					Err: fmt.Errorf("more than %d redirects (last to %s)", d.maxRedirects(), hopText(next.URL))}
			}
			if err := d.checkHop(req, next.URL); err != nil {
				return err
			}
			if req.Redirected != nil {
				to, err := fetch.Parse(next.URL.String())
				if err != nil {
					return &fetch.Error{Kind: fetch.KindMalformed, Op: "redirect", Offset: -1, Err: err}
				}
				if err := req.Redirected(next.Context(), to); err != nil {
					return err
				}
			}
			if foreign = foreign || !sameOrigin(via[0].URL, next.URL); foreign {
				// every header that may hold a credential, as -v
				// masks them (Authorization, Cookie, X-Api-Key, ...)
				for k := range next.Header {
					if SecretHeader(k) {
						next.Header.Del(k)
					}
				}
			}
			// Like curl, no Referer: a fetcher does not tell one site
			// where it came from.
			next.Header.Del("Referer")
			if req.Capture != nil && next.Response != nil {
				if err := readHop(next.Response.Body, req.Options.Idle()); err != nil {
					return err
				}
			}
			hop = next.URL
			req.Trace(fetch.DirInfo, "redirected to "+hopText(next.URL))
			return nil
		},
	}
	resp, err := client.Do(hreq)
	if err != nil {
		if terr := tunnel.Err(); terr != nil {
			return nil, terr
		}
		var fe *fetch.Error
		if errors.As(err, &fe) {
			return nil, fe
		}
		cause := unwrapURLError(err)
		if strings.Contains(cause.Error(), "server response headers exceeded") {
			// MaxResponseHeaderBytes: net/http's error has no type of
			// its own, only this text. A size bound, refused by policy
			// (exit 4) as a line past wire.DefaultMaxLine is by the
			// other drivers.
			return nil, headerTooLong("GET")
		}
		if loc, ok := unparsedLocation(cause); ok {
			// net/http could not parse a redirect's Location: the
			// server's URL is malformed (exit 3), as one this driver
			// refuses is (CheckRedirect), not a network failure.
			return nil, &fetch.Error{Kind: fetch.KindMalformed, Op: "redirect", Offset: -1,
				Err: fmt.Errorf("the server's Location %q is no URL", fetch.RedactedText(loc))}
		}
		var ne net.Error
		if !errors.Is(cause, fetch.ErrTimeout) && (pastDeadline(ctx) || errors.As(cause, &ne) && ne.Timeout()) {
			// net/http reports what it had parsed when the time limit
			// closed the connection, or its own limit on the header
			// (ResponseHeaderTimeout); the client reports a timeout.
			cause = fmt.Errorf("%w: %v", fetch.ErrTimeout, cause)
		}
		return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "GET", Offset: -1, Err: cause}
	}
	return d.result(req, resp, hops > 0)
}

// unparsedLocation is the Location header of net/http's error for one it
// could not parse; its error has no type of its own, only this text.
func unparsedLocation(err error) (string, bool) {
	_, rest, ok := strings.Cut(err.Error(), "failed to parse Location header ")
	if !ok {
		return "", false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", false
	}
	loc, err := strconv.Unquote(q)
	return loc, err == nil
}

// sameOrigin tells whether a and b have one scheme, host and port (a
// missing port being the scheme's default).
func sameOrigin(a, b *neturl.URL) bool {
	port := func(u *neturl.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return strconv.Itoa(defaultPort(strings.ToLower(u.Scheme)))
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// requestURL gives net/http the path and search exactly as the URL wrote
// them: RawPath keeps every escape (a %2F stays %2F), RawQuery the search.
// Its Host is the Host header's (hostHeader: no default port), so that a
// hop to a scheme-relative Location ("//cdn.example/x") gets its own Host:
// net/http keeps a Host set apart from the URL's for such a hop.
func requestURL(u *fetch.URL, hu *URL) (*neturl.URL, error) {
	path, err := fetch.Unescape(hu.Path)
	if err != nil {
		return nil, err
	}
	return &neturl.URL{
		Scheme:     u.Scheme,
		Host:       hostHeader(u),
		Path:       path,
		RawPath:    hu.Path,
		RawQuery:   hu.Search,
		ForceQuery: hu.HasSearch && hu.Search == "",
	}, nil
}

func hostHeader(u *fetch.URL) string {
	if u.Port == 0 || u.Port == defaultPort(u.Scheme) {
		if strings.Contains(u.Host, ":") {
			return "[" + u.Host + "]"
		}
		return u.Host
	}
	return u.HostPort(0)
}

// setHeaders gives h the header of every GET (User-Agent, Accept and
// Config.Header), plus Range when the request resumes. Without Range the
// map is the driver's own, shared by every request and read only: net/http
// copies a request's header before it changes it, and so must code here.
func (d *Driver) setHeaders(req *fetch.Request, h *nethttp.Request) {
	h.Header = d.header()
	if off := req.Offset; off > 0 {
		h.Header = h.Header.Clone()
		h.Header.Set("Range", "bytes="+strconv.FormatInt(off, 10)+"-")
	}
}

func (d *Driver) header() nethttp.Header {
	d.headerOnce.Do(func() {
		ua := d.cfg.UserAgent
		if ua == "" {
			ua = UserAgent
		}
		d.hdr = nethttp.Header{}
		d.hdr.Set("User-Agent", ua)
		d.hdr.Set("Accept", "*/*")
		for _, line := range d.cfg.Header {
			if name, value, ok := strings.Cut(line, ":"); ok {
				d.hdr.Set(strings.TrimSpace(name), strings.TrimSpace(value))
			}
		}
	})
	return d.hdr
}

// checkHop refuses a redirect to another scheme or to a refused port.
// Its errors name the URL asked for, as every other error of the fetch
// does, so that a batch's message matches its line in the list; the hop
// at fault is named after "redirect to".
func (d *Driver) checkHop(req *fetch.Request, next *neturl.URL) error {
	hop := hopText(next)
	if next.Scheme != "http" && next.Scheme != "https" {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "redirect", Part: "scheme", Offset: -1,
			Err: fmt.Errorf("redirect to %s refused: only http and https redirects are followed", hop)}
	}
	if next.User != nil {
		// As a first URL would be (ParseURL): net/http would send the
		// server's user and password as Basic credentials, and they
		// would name the hop in the WARC record and the result.
		return &fetch.Error{Kind: fetch.KindMalformed, Op: "redirect to " + hop, URL: req.URL.Redacted(), Part: "user", Offset: -1,
			Err: errors.New("http URLs may not hold a user name or password (RFC 1738 §3.3)")}
	}
	port := defaultPort(next.Scheme)
	if p := next.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return &fetch.Error{Kind: fetch.KindMalformed, Op: "redirect to " + hop, URL: req.URL.Redacted(), Part: "port", Offset: -1, Err: err}
		}
		port = n
	}
	if err := req.CheckPort(next.Scheme, port); err != nil {
		// The port refused is the hop's, not the first URL's (which
		// CheckPort names): the hop is named before the refusal.
		var fe *fetch.Error
		if errors.As(err, &fe) {
			fe.Op = "redirect to " + hop + ": " + fe.Op
		}
		return err
	}
	return nil
}

// hopText is a redirect's URL for a message, its password masked as the
// client masks a URL's ("****"; net/url's Redacted writes "xxxxx").
func hopText(u *neturl.URL) string {
	return fetch.RedactedText(u.String())
}

// requestKey carries the fetch.Request on the context of the net/http
// request, so that the shared transport's dial and proxy functions trace
// to, and name, the request they work for.
type requestKey struct{}

func requestOf(ctx context.Context) *fetch.Request {
	r, _ := ctx.Value(requestKey{}).(*fetch.Request)
	return r
}

// transport is the driver's keep-alive transport for req, made on first
// use from the client options of req (the dialer, the timeouts, the
// gateways, the pool limits): the tapped one when req has a Capture. It
// dials through the options' dialer and wraps every connection in the
// idle deadline; net/http itself closes a connection whose request is
// cancelled, so the connection is not tied to any one request's context
// and can serve the next request to the same server.
func (d *Driver) transport(req *fetch.Request) nethttp.RoundTripper {
	d.mu.Lock()
	defer d.mu.Unlock()
	tr := &d.tr
	if req.Capture != nil {
		tr = &d.tapped
	}
	if *tr == nil {
		*tr = d.newTransport(req.Options, req.Capture != nil)
		if req.Capture == nil && d.cfg.Pipeline > 0 && req.Options.Proxy == nil && !(*tr).DisableKeepAlives {
			// Archived exchanges are not pipelined: a tapped
			// connection's bytes are cut into one exchange at a time.
			// The pipeline and the Transport it falls back to (https,
			// hosts not pipelined) keep half the idle connections
			// each, so that together they keep Options.IdleTotal.
			opts := req.Options
			half := opts.IdleTotal() / 2
			(*tr).MaxIdleConns = max(half, 1)
			d.pipe = newPipeline(d.cfg.Pipeline, d.dialer(opts), *tr, opts.SessionIdle(), opts.IdlePerHost(), opts.IdleTotal()-half, 2*opts.Idle())
		}
	}
	if req.Capture == nil && d.pipe != nil {
		return d.pipe
	}
	return *tr
}

// dialer is how the transports for opts connect to a server: under the
// dial timeout, each read and write under the idle one, traced to the
// request that dials.
func (d *Driver) dialer(opts fetch.Options) func(ctx context.Context, network, addr string) (net.Conn, error) {
	dialer := opts.Dialer
	if dialer == nil {
		dialer = &net.Dialer{}
	}
	return func(dctx context.Context, network, addr string) (net.Conn, error) {
		req := requestOf(dctx)
		dt := opts.DialTimeout
		if dt <= 0 {
			dt = fetch.DefaultDialTimeout
		}
		tctx, cancel := context.WithTimeout(dctx, dt)
		defer cancel()
		where := ""
		trace := d.newDialTrace(dctx, req)
		if req != nil {
			where = req.URL.Redacted()
			d.tracerFor(dctx, req).Trace(fetch.DirInfo, "connecting to "+addr)
		}
		c, err := dialer.DialContext(tctx, network, addr)
		if err != nil {
			if trace != nil {
				trace.flushTo(req) // the request that dialled gets the error
			}
			if dctx.Err() == nil && tctx.Err() != nil {
				err = fetch.ErrTimeout
			}
			op := "dial " + addr
			if gw := gatewayOf(dctx).nameFor(addr); gw != "" {
				// net/http dials a gateway as it dials a server: the
				// address is named as the gateway's, with where it was
				// set, or it reads as the URL's server's.
				op = gw + ": " + op
			}
			return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: op, URL: where, Offset: -1, Err: err}
		}
		c = fetch.NewDeadlineConn(context.Background(), c, opts.Idle())
		if opts.Proxy != nil {
			c = &connectGuard{Conn: c, idle: opts.Idle(), failure: tunnelFailureOf(dctx)}
		}
		if trace != nil {
			c = &tracedConn{Conn: c, trace: trace}
		}
		return c, nil
	}
}

func (d *Driver) newTransport(opts fetch.Options, tap bool) *nethttp.Transport {
	wrap := func(c net.Conn) net.Conn {
		if tap {
			return &tapConn{Conn: c}
		}
		return c
	}
	dial := d.dialer(opts)
	tlsConfig := &tls.Config{InsecureSkipVerify: d.cfg.Insecure}
	return &nethttp.Transport{
		DialContext: func(dctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(dctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrap(c), nil
		},
		// https: the TLS client is made here rather than by net/http, so
		// that the tap sits above it and an archive gets the exchange's
		// plain text (HTTP/1.1, as sent and received inside TLS).
		DialTLSContext: func(dctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(dctx, network, addr)
			if err != nil {
				return nil, err
			}
			cfg := tlsConfig.Clone()
			if cfg.ServerName == "" {
				host, _, _ := net.SplitHostPort(addr)
				cfg.ServerName = host
			}
			cfg.NextProtos = []string{"http/1.1"}
			tc := tls.Client(c, cfg)
			hctx, cancel := context.WithTimeout(dctx, opts.Idle())
			defer cancel()
			if err := tc.HandshakeContext(hctx); err != nil {
				c.Close()
				if dctx.Err() == nil && hctx.Err() != nil {
					err = fmt.Errorf("%w: %v", fetch.ErrTimeout, err)
				}
				return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "TLS handshake with " + addr, Offset: -1, Err: err}
			}
			return wrap(tc), nil
		},
		TLSClientConfig:    tlsConfig,
		DisableCompression: true, // bytes arrive as the server stores them
		// The same bound on a server's protocol lines as every other driver.
		MaxResponseHeaderBytes: wire.DefaultMaxLine,
		// Each read waits at most the idle time (fetch.NewDeadlineConn),
		// but a server that trickles its header a byte at a time renews
		// that wait with each byte: the header as a whole must come
		// within twice the idle time of the request (the server's
		// silence before it, which the idle time bounds, then the
		// header itself).
		ResponseHeaderTimeout: 2 * opts.Idle(),
		TLSHandshakeTimeout:   opts.Idle(),
		// Keep-alive within the client's pool limits; Client.CloseIdle
		// and Close end the idle connections.
		DisableKeepAlives:   opts.IdlePerHost() == 0,
		MaxIdleConnsPerHost: opts.IdlePerHost(),
		MaxIdleConns:        opts.IdleTotal(),
		IdleConnTimeout:     opts.SessionIdle(),
		Proxy:               d.proxyFor(opts),
		// https through a gateway: the CONNECT that opens a tunnel
		// carries the driver's User-Agent (not net/http's) and none of
		// the request's -H headers, which are for the server; it is
		// traced, and its answer, to the request that dials.
		GetProxyConnectHeader: func(ctx context.Context, gw *neturl.URL, target string) (nethttp.Header, error) {
			h := nethttp.Header{}
			if ua := d.header().Get("User-Agent"); ua != "" {
				h.Set("User-Agent", ua)
			}
			if req := requestOf(ctx); req != nil && req.Options.Tracer != nil {
				traceConnect(d.tracerFor(ctx, req), gw, target, h)
			}
			return h, nil
		},
		OnProxyConnectResponse: func(ctx context.Context, _ *neturl.URL, _ *nethttp.Request, resp *nethttp.Response) error {
			if req := requestOf(ctx); req != nil && req.Options.Tracer != nil {
				traceResponse(d.tracerFor(ctx, req), resp)
			}
			return nil
		},
	}
}

// proxyFor decides the gateway of every hop, the first and each redirect,
// with the caller's Proxy function; https goes through it with CONNECT,
// http as an absolute URL. Each gateway's port passes the policy. The
// request's trace learns the choice (sentTrace.route).
func (d *Driver) proxyFor(opts fetch.Options) func(*nethttp.Request) (*neturl.URL, error) {
	return func(r *nethttp.Request) (*neturl.URL, error) {
		pu, name, err := gatewayFor(opts, r)
		if s, ok := r.Context().Value(sentKey{}).(*sentTrace); ok && err == nil {
			s.route(r, pu)
		}
		if err == nil {
			gatewayOf(r.Context()).set(pu, name)
		}
		return pu, err
	}
}

// gatewayKey carries a fetch's gatewayChoice on the context of its
// net/http requests, the first and each redirect's.
type gatewayKey struct{}

// gatewayChoice is the gateway chosen for a fetch's latest hop, kept for
// the dialer: net/http dials a gateway's address as it dials a server's,
// and a failure to connect to it is to be named as the gateway's.
type gatewayChoice struct {
	mu   sync.Mutex
	addr string // the gateway's host:port, "" for none
	name string // its name in errors (fetch.Options.Gateway)
}

func gatewayOf(ctx context.Context) *gatewayChoice {
	c, _ := ctx.Value(gatewayKey{}).(*gatewayChoice)
	return c
}

// set records gateway pu, named name, for the hop under way; nil records
// none (a redirect may leave the gateway of the hop before it).
func (c *gatewayChoice) set(pu *neturl.URL, name string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addr, c.name = "", ""
	if pu != nil {
		c.addr, c.name = pu.Host, name
	}
}

// nameFor is the name of the gateway at addr, "" when addr is not the
// gateway chosen (a connection to the server itself).
func (c *gatewayChoice) nameFor(addr string) string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if addr != c.addr {
		return ""
	}
	return c.name
}

// gatewayFor is the gateway of r by opts.Proxy (its password in the
// URL's userinfo, which net/http sends as Proxy-Authorization), nil for
// none, and its name in errors.
func gatewayFor(opts fetch.Options, r *nethttp.Request) (*neturl.URL, string, error) {
	if opts.Proxy == nil {
		return nil, "", nil
	}
	u, err := parseURL(r.URL.String())
	if err != nil {
		return nil, "", err
	}
	p, err := opts.Proxy(u)
	if err != nil || p == nil {
		return nil, "", err
	}
	name := opts.Gateway(u, p)
	port := p.PortOr(defaultPort(p.Scheme))
	if req := requestOf(r.Context()); req != nil {
		err = req.CheckPort(p.Scheme, port)
	} else {
		err = opts.Policy.Check(urlGrammar, p.Scheme, port)
	}
	if err != nil {
		// The port refused is the gateway's, for this hop's URL (a
		// redirect's may have a gateway of its own): said so, as the
		// client says it of the first URL's gateway.
		var fe *fetch.Error
		if errors.As(err, &fe) {
			fe.URL, fe.Op = u.Redacted(), name+": "+fe.Op
		}
		return nil, "", err
	}
	pu := &neturl.URL{Scheme: p.Scheme, Host: p.HostPort(defaultPort(p.Scheme))}
	if p.HasUser {
		pu.User = neturl.UserPassword(p.User, p.Password)
	}
	return pu, name, nil
}

// pastDeadline reports whether ctx's deadline has come; its Err may lag
// the connection deadline that fired first by a moment.
func pastDeadline(ctx context.Context) bool {
	dl, ok := ctx.Deadline()
	return errors.Is(ctx.Err(), context.DeadlineExceeded) || ok && !time.Now().Before(dl)
}

func unwrapURLError(err error) error {
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// maxHopBody is the most of a redirect's body read for an archive.
const maxHopBody = 1 << 20

// readHop reads the body of a redirect to its end, for an archive, which
// records every hop whole: net/http reads at most 2 KiB of it before it
// follows the redirect and closes the connection on the rest, and the
// record would hold a cut response that looked complete. The body gets
// maxHopBody bytes and twice the idle time in all; past either the
// transfer fails rather than archive a part.
func readHop(body io.ReadCloser, idle time.Duration) error {
	n, late, err := drain(body, maxHopBody+1, 2*idle)
	switch {
	case late:
		return &fetch.Error{Kind: fetch.KindNetwork, Op: "redirect", Offset: -1,
			Err: fmt.Errorf("%w: a redirect's body took more than %v", fetch.ErrTimeout, 2*idle)}
	case err != nil:
		return &fetch.Error{Kind: fetch.KindNetwork, Op: "redirect", Offset: -1, Err: err}
	case n > maxHopBody:
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "redirect", Offset: -1,
			Err: fmt.Errorf("%w: a redirect's body of more than %d bytes, which the archive would record cut", fetch.ErrTooLarge, maxHopBody)}
	}
	return nil
}

// result turns a response into a document, or an error for a failure
// status.
func (d *Driver) result(req *fetch.Request, resp *nethttp.Response, redirected bool) (*fetch.Result, error) {
	if req.Options.Tracer != nil {
		traceResponse(req, resp)
	}
	final := req.URL
	if redirected && resp.Request != nil && resp.Request.URL != nil {
		// The document is named by the URL it came from. A Location
		// net/http followed may hold a "%" that starts no escape
		// ("?a%zz"), which this grammar refuses: it names the same
		// URL with that "%" escaped.
		raw := resp.Request.URL.String()
		u, err := parseURL(raw)
		if err != nil {
			u, err = parseURL(escapeStrayPercent(raw))
		}
		if err == nil {
			final = u
		}
	}
	if resp.StatusCode < 200 {
		// 101 Switching Protocols (net/http hands it back, the stream of
		// the other protocol as its body) or an interim answer as the
		// last: a GET that asked for no upgrade has no document here.
		resp.Body.Close()
		return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", URL: final.Redacted(), Offset: -1,
			Protocol: "http", Code: resp.StatusCode, Reply: nethttp.StatusText(resp.StatusCode),
			Err: errors.New("an informational status, not a document, as the final answer")}
	}
	// Resumed at the document's end: nothing is left to send, and a
	// server says so with 416 and the length (RFC 9110 §15.5.17). The
	// copy is whole, as file: and ftp: report it (and curl).
	complete := req.Offset > 0 && resp.StatusCode == nethttp.StatusRequestedRangeNotSatisfiable &&
		unsatisfiedLength(resp) == req.Offset
	if resp.StatusCode >= 400 && !complete {
		drainClose(resp.Body, req.Options.Idle())
		e := &fetch.Error{Kind: fetch.KindServer, Op: "GET", URL: final.Redacted(), Offset: -1,
			Protocol: "http", Code: resp.StatusCode, Reply: nethttp.StatusText(resp.StatusCode)}
		if resp.StatusCode == nethttp.StatusNotFound || resp.StatusCode == nethttp.StatusGone {
			e.Err = fetch.ErrNotFound
		} else if resp.StatusCode == nethttp.StatusUnauthorized || resp.StatusCode == nethttp.StatusForbidden {
			e.Err = fetch.ErrAuth
		} else if d, ok := retryAfter(resp); ok {
			e.Err = &fetch.RetryLater{After: d}
		}
		return nil, e
	}
	if resp.StatusCode >= 300 && !complete {
		resp.Body.Close()
		return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", URL: final.Redacted(), Offset: -1,
			Protocol: "http", Code: resp.StatusCode, Reply: nethttp.StatusText(resp.StatusCode), Err: errors.New("redirect without a usable Location")}
	}
	total := int64(-1)
	var rb io.ReadCloser = resp.Body
	if resp.StatusCode == nethttp.StatusPartialContent && req.Offset == 0 && d.header().Get("Range") == "" {
		// A part nobody asked for is the whole document only when its
		// Content-Range says so; else saving it would keep a fragment
		// as if it were the file.
		start, end, n, err := contentRange(resp)
		if err != nil || start != 0 || n < 0 || end != n-1 || resp.ContentLength != n {
			resp.Body.Close()
			return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", URL: final.Redacted(), Offset: -1, Protocol: "http", Code: resp.StatusCode,
				Err: fmt.Errorf("the server sent part of the document (Content-Range %q) to a request for all of it", resp.Header.Get("Content-Range"))}
		}
	}
	if off := req.Offset; complete {
		drainClose(resp.Body, req.Options.Idle())
		rb, total = nethttp.NoBody, off
	} else if off > 0 {
		// The part must run from the offset to the document's end, and
		// the body be that long: a shorter part would be saved, and
		// renamed into place, as if it were the rest. A part of a
		// document of unknown length ("bytes 5-9/*") may stop short of
		// an end it does not name (a server may send less than asked).
		start, end, n, err := contentRange(resp)
		if resp.StatusCode != nethttp.StatusPartialContent || err != nil || start != off ||
			n < 0 || end != n-1 || resp.ContentLength >= 0 && resp.ContentLength != end-start+1 {
			resp.Body.Close()
			why := fmt.Sprintf("got status %d", resp.StatusCode)
			switch {
			case resp.StatusCode == nethttp.StatusPartialContent && err == nil && n < 0:
				why = fmt.Sprintf("got Content-Range %q, which does not say where the document ends", resp.Header.Get("Content-Range"))
			case resp.StatusCode == nethttp.StatusPartialContent:
				why = fmt.Sprintf("got Content-Range %q", resp.Header.Get("Content-Range"))
			}
			return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", URL: final.Redacted(), Offset: -1, Protocol: "http", Code: resp.StatusCode,
				Err: fmt.Errorf("the server does not resume: asked for bytes from %d, %s", off, why)}
		}
		total = n
		if resp.ContentLength < 0 {
			// Chunked, or ended by the close: no length of its own to
			// hold the part to, so its Content-Range's is.
			rb = &partBody{ReadCloser: resp.Body, left: end - start + 1}
		}
	}
	doc := &fetch.Document{
		Body:     body{rb, slices.Contains(resp.TransferEncoding, "chunked")},
		MIMEType: resp.Header.Get("Content-Type"),
		Size:     resp.ContentLength,
		Offset:   req.Offset,
		Meta:     make(map[string]string, len(resp.Header)+1),
		// As reaches the response header (*net/http.Header).
		Native: []any{resp.Header},
	}
	if doc.Offset > 0 {
		doc.Size = total
	}
	if !req.NoModTime {
		if t, err := nethttp.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
			doc.ModTime = t
		}
	}
	doc.Meta[fetch.MetaStatus] = resp.Status
	for k, v := range resp.Header {
		doc.Meta[metaKey(k)] = strings.Join(v, ", ")
	}
	return &fetch.Result{Kind: fetch.KindDocument, URL: final, Document: doc}, nil
}

// metaKey is a header name as Document.Meta spells it, lower case; the
// names most responses carry are constants, which spares an allocation
// each.
func metaKey(name string) string {
	switch name {
	case "Accept-Ranges":
		return "accept-ranges"
	case "Age":
		return "age"
	case "Cache-Control":
		return "cache-control"
	case "Connection":
		return "connection"
	case "Content-Disposition":
		return "content-disposition"
	case "Content-Encoding":
		return "content-encoding"
	case "Content-Language":
		return "content-language"
	case "Content-Length":
		return "content-length"
	case "Content-Range":
		return "content-range"
	case "Content-Type":
		return "content-type"
	case "Date":
		return "date"
	case "Etag":
		return "etag"
	case "Expires":
		return "expires"
	case "Keep-Alive":
		return "keep-alive"
	case "Last-Modified":
		return "last-modified"
	case "Location":
		return "location"
	case "Server":
		return "server"
	case "Set-Cookie":
		return "set-cookie"
	case "Transfer-Encoding":
		return "transfer-encoding"
	case "Vary":
		return "vary"
	}
	return strings.ToLower(name)
}

// contentRange reads "bytes START-END/TOTAL" (RFC 9110 §14.4); TOTAL is
// -1 when the server gives "*".
func contentRange(resp *nethttp.Response) (start, end, total int64, err error) {
	v := resp.Header.Get("Content-Range")
	spec, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, 0, 0, fmt.Errorf("no byte Content-Range")
	}
	rng, size, ok := strings.Cut(spec, "/")
	first, last, ok2 := strings.Cut(rng, "-")
	if !ok || !ok2 {
		return 0, 0, 0, fmt.Errorf("malformed Content-Range %q", v)
	}
	if start, err = strconv.ParseInt(first, 10, 64); err != nil {
		return 0, 0, 0, err
	}
	if end, err = strconv.ParseInt(last, 10, 64); err != nil || end < start {
		return 0, 0, 0, fmt.Errorf("malformed Content-Range %q", v)
	}
	total = -1
	if size != "*" {
		if total, err = strconv.ParseInt(size, 10, 64); err != nil {
			return 0, 0, 0, err
		}
	}
	return start, end, total, nil
}

// escapeStrayPercent is s with each "%" that is not followed by two hex
// digits written "%25".
func escapeStrayPercent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			b.WriteString("%25")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unsatisfiedLength is the length a 416's "Content-Range: bytes */N"
// gives, or -1.
func unsatisfiedLength(resp *nethttp.Response) int64 {
	v, ok := strings.CutPrefix(resp.Header.Get("Content-Range"), "bytes */")
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// body turns a short read against Content-Length into fetch.ErrTruncated.
type body struct {
	io.ReadCloser
	chunked bool // the body comes in chunks: no Content-Length
}

// partBody is a resumed part's body without a Content-Length: it must end
// where its Content-Range does, neither short (the rest would be saved as
// if whole) nor long.
type partBody struct {
	io.ReadCloser
	left int64
}

func (p *partBody) Read(b []byte) (int, error) {
	n, err := p.ReadCloser.Read(b)
	p.left -= int64(n)
	switch {
	case p.left < 0:
		// The bytes past the range never reach the caller, who may be
		// appending to the rest of the document.
		n += int(p.left)
		p.left = 0
		return n, fmt.Errorf("%w: the part runs past its Content-Range", fetch.ErrTooLarge)
	case err == io.EOF && p.left > 0:
		return n, fmt.Errorf("%w: the part ended %d bytes before its Content-Range", fetch.ErrTruncated, p.left)
	}
	return n, err
}

// chunkLineMax is net/http's bound on a line of chunked encoding (its
// internal maxLineLength): a chunk-size line of this many bytes or more
// fails with httputil.ErrLineTooLong. trailerMax is its bound on the
// trailer section, the size of its read buffer (Transport.ReadBufferSize
// left at its default, bufio's for a gateway).
const (
	chunkLineMax = 4096
	trailerMax   = 4096
)

func (b body) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && b.chunked:
		err = fmt.Errorf("%w: the body ended before its last chunk", fetch.ErrTruncated)
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("%w: the body ended before its Content-Length", fetch.ErrTruncated)
	case errors.Is(err, httputil.ErrLineTooLong):
		// A line bound passed, as the header block's is: refused by
		// policy, exit 4.
		err = &fetch.Error{Kind: fetch.KindPolicy, Op: "read", Offset: -1,
			Err: fmt.Errorf("%w: a chunk-size line of %d bytes or more", fetch.ErrLineTooLong, chunkLineMax)}
	case err != nil && strings.Contains(err.Error(), "suspiciously long trailer"):
		// net/http's error for a trailer past its buffer has no type of
		// its own, only this text.
		err = &fetch.Error{Kind: fetch.KindPolicy, Op: "read", Offset: -1,
			Err: fmt.Errorf("%w: a trailer section of more than %d bytes", fetch.ErrLineTooLong, trailerMax)}
	}
	return n, err
}

// sentKey carries a fetch's sentTrace on the context of its net/http
// request, for the transport's Proxy function.
type sentKey struct{}

// sentTrace traces the first request of a fetch as net/http writes it,
// when it has its connection (httptrace's GotConn): after any
// "connecting to" and any CONNECT tunnel, and in the form that the
// gateway chosen for it (route, from the transport's Proxy function)
// makes. net/http calls both in the goroutine of Client.Do.
type sentTrace struct {
	req  *fetch.Request
	hop  *nethttp.Request // the request routed, until it is traced
	gw   *neturl.URL      // its gateway, nil for none
	done bool
}

func (s *sentTrace) route(r *nethttp.Request, gw *neturl.URL) {
	if !s.done {
		s.hop, s.gw = r, gw
	}
}

func (s *sentTrace) gotConn(httptrace.GotConnInfo) {
	if s.done || s.hop == nil {
		return
	}
	s.done = true
	traceRequest(s.req, s.hop, s.gw)
}

// traceRequest traces h as net/http writes it (Request.write): the
// request-target in origin form ("GET /path HTTP/1.1") to a server, and
// inside a gateway's CONNECT tunnel (https); in absolute form ("GET
// http://host/path HTTP/1.1", RFC 9112 §3.2.2) to a gateway gw in plain
// text (http), which also gets the gateway's Proxy-Authorization. Neither
// form has the URL's userinfo: net/http writes the scheme, the Host and
// the path.
func traceRequest(req *fetch.Request, h *nethttp.Request, gw *neturl.URL) {
	host := h.Host
	if host == "" {
		host = h.URL.Host // what net/http sends when no Host is set apart
	}
	if p, err := httpguts.PunycodeHostPort(host); err == nil {
		host = p
	}
	target := h.URL.RequestURI()
	hdr := h.Header
	if gw != nil && (gw.Scheme == "http" || gw.Scheme == "https") && h.URL.Scheme == "http" {
		target = "http://" + host + target
		if gw.User != nil {
			hdr = hdr.Clone()                       // the shared one stays as it is
			hdr.Set("Proxy-Authorization", "Basic") // traced as "****"
		}
	}
	req.Trace(fetch.DirSent, "GET "+target+" HTTP/1.1")
	req.Trace(fetch.DirSent, "Host: "+host)
	traceHeader(req, fetch.DirSent, hdr)
}

// traceConnect traces the CONNECT net/http sends to gateway gw for an
// https request (Transport.dialConn): the target's host:port, its Host,
// the header h and the gateway's Proxy-Authorization.
func traceConnect(tr lineTracer, gw *neturl.URL, target string, h nethttp.Header) {
	tr.Trace(fetch.DirSent, "CONNECT "+target+" HTTP/1.1")
	tr.Trace(fetch.DirSent, "Host: "+target)
	if gw.User != nil {
		h = h.Clone()
		h.Set("Proxy-Authorization", "Basic") // traced as "****"
	}
	traceHeader(tr, fetch.DirSent, h)
}

// traceResponse traces resp's status line and header.
func traceResponse(tr lineTracer, resp *nethttp.Response) {
	tr.Trace(fetch.DirReceived, resp.Proto+" "+resp.Status)
	traceHeader(tr, fetch.DirReceived, resp.Header)
}

// traceHeader traces h sorted by name, each value of a header that may
// hold a credential (SecretHeader) shown as "****".
func traceHeader(tr lineTracer, dir fetch.Direction, h nethttp.Header) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.Join(h[k], ", ")
		if SecretHeader(k) {
			v = "****"
		}
		tr.Trace(dir, k+": "+v)
	}
}

// viaGateway sends the whole URL to an HTTP proxy (RFC 1738 §3.3 and
// RFC 1630's gateways): "GET ftp://host/path HTTP/1.1". net/http refuses
// to send a URL of a scheme it does not speak, so the request is written
// here and the response read back with net/http's parser.
func (d *Driver) viaGateway(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	p := req.Proxy
	// What fails from here is the gateway's doing, not the URL's
	// server's: each error names it, with where it was set.
	gw := req.Options.Gateway(req.URL, p)
	conn, err := req.Dial(ctx, p.HostPort(defaultPort(p.Scheme)))
	if err != nil {
		var fe *fetch.Error
		if errors.As(err, &fe) {
			fe.Op = gw + ": " + fe.Op
		}
		return nil, err
	}
	target := req.URL.String()
	if err := fetch.CheckLine("url", target); err != nil {
		conn.Close()
		return nil, err
	}
	hreq, err := nethttp.NewRequestWithContext(context.WithValue(ctx, requestKey{}, req), nethttp.MethodGet, "", nil)
	if err != nil {
		conn.Close()
		return nil, fetch.Wrap(fetch.KindMalformed, "request", err)
	}
	hreq.URL = &neturl.URL{Opaque: target}
	hreq.Host = hostHeader(req.URL)
	d.setHeaders(req, hreq)
	if p.HasUser {
		hreq.Header = hreq.Header.Clone() // the shared one stays as it is
		hreq.Header.Set("Proxy-Authorization", basicAuth(p.User, p.Password))
	}
	req.Trace(fetch.DirSent, "GET "+req.URL.Redacted()+" HTTP/1.1 (to gateway "+p.HostPort(defaultPort(p.Scheme))+")")
	req.Trace(fetch.DirSent, "Host: "+hreq.Host)
	req.Trace(fetch.DirSent, "Connection: close")
	traceHeader(req, fetch.DirSent, hreq.Header)
	w := bufio.NewWriter(conn)
	fmt.Fprintf(w, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", target, hreq.Host)
	hreq.Header.Write(w) // errors surface at Flush: bufio.Writer keeps the first
	w.WriteString("\r\n")
	if err := w.Flush(); err != nil {
		conn.Close()
		return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: gw, Offset: -1, Err: err}
	}
	// The gateway's header has the bounds a server's has under
	// net/http's transport (MaxResponseHeaderBytes, a time for the whole
	// of it): ReadResponse alone would take one of any size, trickled
	// for as long as each byte came within the idle time.
	timer := wire.NewReplyTimer(conn)
	head := &headLimit{r: timer, left: wire.DefaultMaxLine + 4096} // and what bufio reads ahead
	timer.Begin(2 * req.Options.Idle())
	br := bufio.NewReader(head)
	resp, err := nethttp.ReadResponse(br, hreq)
	for err == nil && resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != nethttp.StatusSwitchingProtocols {
		// An interim answer (100 Continue, 103 Early Hints), which
		// net/http's transport skips for a server: the final one
		// follows, within the same bounds of bytes and time.
		resp, err = nethttp.ReadResponse(br, hreq)
	}
	timer.End()
	head.left = -1
	if err != nil {
		conn.Close()
		if terr := timer.Err(); terr != nil {
			err = terr // textproto reports the line it was cut in
		}
		if errors.Is(err, fetch.ErrLineTooLong) || head.passed {
			// net/http may first report the line the bound cut
			// ("malformed HTTP response").
			return nil, headerTooLong(gw)
		}
		return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: gw, Offset: -1, Err: err}
	}
	resp.Body = closeBoth{resp.Body, conn}
	res, err := d.result(req, resp, false)
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Kind == fetch.KindServer {
		// A status refusing the URL is the gateway's answer (502 for
		// a server it could not reach, 403 for a scheme it will not
		// fetch), whoever's the fault.
		fe.Op = gw + ": " + fe.Op
	}
	return res, err
}

// headerTooLong is the refusal of a response header block past
// MaxResponseHeaderBytes (wire.DefaultMaxLine), from a server or a
// gateway: a size bound, exit 4.
func headerTooLong(op string) *fetch.Error {
	return &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1,
		Err: fmt.Errorf("%w: a response header block of more than %d bytes", fetch.ErrLineTooLong, wire.DefaultMaxLine)}
}

// headLimit reads at most left bytes from r, failing with
// fetch.ErrLineTooLong past them; left < 0 is no bound.
type headLimit struct {
	r      io.Reader
	left   int64
	passed bool // the bound was reached: a cut line's error is this
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		h.passed = true
		return 0, fmt.Errorf("%w: a response header of more than %d bytes", fetch.ErrLineTooLong, wire.DefaultMaxLine)
	}
	n, err := h.r.Read(p[:min(int64(len(p)), h.left)])
	h.left -= int64(n)
	return n, err
}

type closeBoth struct {
	io.ReadCloser
	conn net.Conn
}

func (c closeBoth) Close() error {
	c.ReadCloser.Close()
	return c.conn.Close()
}

func basicAuth(user, pass string) string {
	r, _ := nethttp.NewRequest("GET", "/", nil)
	r.SetBasicAuth(user, pass)
	return r.Header.Get("Authorization")
}

// retryAfter reads the Retry-After header of a 429 or 503 answer
// (RFC 9110 §10.2.3): delay-seconds or an HTTP date; a date in the past
// is no wait.
func retryAfter(resp *nethttp.Response) (time.Duration, bool) {
	if resp.StatusCode != nethttp.StatusTooManyRequests && resp.StatusCode != nethttp.StatusServiceUnavailable {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if strings.Trim(v, "0123456789") == "" { // delay-seconds = 1*DIGIT
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			n = 1 << 31 // past int64: a longer wait than any, not none
		}
		return time.Duration(min(n, 1<<31)) * time.Second, true
	}
	if t, err := nethttp.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// drainClose reads what is left of a small error page before closing it,
// so that the connection goes back to the pool: a batch with missing URLs
// then keeps its connections instead of opening one per 404. The page
// gets at most limit: each read waits at most the idle time, and a server
// that trickled the page would renew that wait with each byte. Closing
// the body when the time is up ends the read under way.
func drainClose(body io.ReadCloser, limit time.Duration) {
	drain(body, 64<<10, limit)
	body.Close()
}

// drain reads at most n bytes of body within limit, closing body when the
// time is up to end the read under way: it returns the bytes read,
// whether the time ran out, and the read's error (nil at the end).
func drain(body io.ReadCloser, n int64, limit time.Duration) (int64, bool, error) {
	var late atomic.Bool
	t := time.AfterFunc(limit, func() { late.Store(true); body.Close() })
	defer t.Stop()
	got, err := io.Copy(io.Discard, io.LimitReader(body, n))
	return got, late.Load(), err
}
