package fetch

import (
	"context"
	"io"
	"net"
	"time"
)

// Driver dereferences the URLs of one scheme by that scheme's protocol.
// The client has already parsed the URL, removed its fragment and checked
// its port against the policy.
type Driver interface {
	Fetch(ctx context.Context, req *Request) (*Result, error)
}

// DefaultPorter is implemented by drivers of schemes whose default port
// the policy does not already know (x- schemes).
type DefaultPorter interface {
	DefaultPort() int
}

// IdleCloser is implemented by drivers that keep sessions between
// requests (a pool of connections, like http.Transport's). CloseIdle
// closes the sessions not in use; the driver keeps pooling afterwards.
type IdleCloser interface {
	CloseIdle()
}

// DriverFunc adapts a function to the Driver interface.
type DriverFunc func(ctx context.Context, req *Request) (*Result, error)

// Fetch calls f.
func (f DriverFunc) Fetch(ctx context.Context, req *Request) (*Result, error) { return f(ctx, req) }

// Direction tells a Tracer which way a protocol line went.
type Direction byte

// Directions of traced lines, printed as "> " and "< " by the command.
const (
	DirSent     Direction = '>'
	DirReceived Direction = '<'
	DirInfo     Direction = '*' // a note from fetch itself, not on the wire
)

// Tracer receives the protocol conversation line by line (fetch -v).
// Drivers mask passwords before tracing.
type Tracer interface {
	Trace(dir Direction, line string)
}

// TracerFunc adapts a function to Tracer.
type TracerFunc func(dir Direction, line string)

// Trace calls f.
func (f TracerFunc) Trace(dir Direction, line string) { f(dir, line) }

// ContextDialer opens network connections; golang.org/x/net/proxy's SOCKS5
// dialer satisfies it.
type ContextDialer interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// Defaults for Options fields left zero.
const (
	DefaultDialTimeout  = 30 * time.Second
	DefaultIdleTimeout  = 60 * time.Second
	DefaultMaxRedirects = 20
)

// Options are the caller's settings for every fetch a client makes.
type Options struct {
	DialTimeout time.Duration // connect; 30 s when zero
	IdleTimeout time.Duration // no byte for this long ends a transfer; 60 s when zero
	MaxTime     time.Duration // the whole fetch, 0 for no limit
	MaxSize     int64         // largest document accepted, 0 for no limit

	Policy   *PortPolicy   // nil means the default policy
	Prompter Prompter      // nil: any question fails with ErrNoAnswer
	Tracer   Tracer        // nil: no trace
	Dialer   ContextDialer // nil: direct TCP; set a SOCKS5 dialer here
	// Proxy returns the HTTP proxy (gateway) through which u is to be
	// fetched whole, or nil to fetch it directly (RFC 1738 §3.3's gateways;
	// see ProxyFromEnvironment).
	Proxy func(u *URL) (*URL, error)
	// ProxyFrom, when set, names where the gateway Proxy chose for u was
	// configured, in the caller's terms ("gopher_proxy", "--proxy"; see
	// ProxyVariable). The errors about that gateway say it (Gateway): a
	// gateway set long ago and forgotten, refused or not listening, reads
	// otherwise as a wrong port of the URL's own server.
	ProxyFrom func(u *URL) string

	// Session pools (HTTP keep-alive connections, FTP control connections,
	// NNTP sessions) keep at most MaxIdlePerHost unused sessions per
	// server (2 when zero, none when negative), each for at most
	// IdleSessionTimeout (90 s when zero, none kept when negative), and
	// at most DefaultMaxIdle in all (IdleTotal).
	MaxIdlePerHost     int
	IdleSessionTimeout time.Duration
}

// Defaults for the session pool settings left zero.
const (
	DefaultMaxIdlePerHost     = 2
	DefaultIdleSessionTimeout = 90 * time.Second
	// DefaultMaxIdle bounds the unused sessions a pool keeps in all,
	// whatever their servers, as net/http's DefaultTransport bounds its
	// idle connections: a list naming many servers would otherwise keep
	// one for each, each for IdleSessionTimeout.
	DefaultMaxIdle = 100
)

// IdlePerHost is the number of unused sessions a pool may keep per server.
func (o *Options) IdlePerHost() int {
	switch {
	case o.MaxIdlePerHost < 0 || o.IdleSessionTimeout < 0:
		return 0
	case o.MaxIdlePerHost == 0:
		return DefaultMaxIdlePerHost
	}
	return o.MaxIdlePerHost
}

// IdleTotal is the number of unused sessions a pool may keep in all:
// DefaultMaxIdle, or IdlePerHost when that is more (0 when none is kept).
func (o *Options) IdleTotal() int {
	n := o.IdlePerHost()
	if n == 0 {
		return 0
	}
	return max(DefaultMaxIdle, n)
}

// SessionIdle is how long a pool keeps an unused session (0: none kept).
func (o *Options) SessionIdle() time.Duration {
	switch {
	case o.IdleSessionTimeout < 0:
		return 0
	case o.IdleSessionTimeout == 0:
		return DefaultIdleSessionTimeout
	}
	return o.IdleSessionTimeout
}

func (o *Options) dialTimeout() time.Duration {
	if o.DialTimeout > 0 {
		return o.DialTimeout
	}
	return DefaultDialTimeout
}

// Gateway is how errors name the gateway p chosen for u: its URL,
// password masked, and where it was configured when ProxyFrom says
// ("gateway http://127.0.0.1:3128 (from gopher_proxy)").
func (o *Options) Gateway(u, p *URL) string {
	name := "gateway " + p.Redacted()
	if o.ProxyFrom != nil {
		if from := o.ProxyFrom(u); from != "" {
			name += " (from " + from + ")"
		}
	}
	return name
}

// Idle is the idle timeout in force.
func (o *Options) Idle() time.Duration {
	if o.IdleTimeout > 0 {
		return o.IdleTimeout
	}
	return DefaultIdleTimeout
}

// Request is one fetch: the URL and the inputs that belong to this fetch
// alone, in the spirit of net/http's Request. Build one with NewRequest
// or NewRequestURL, set what the fetch needs, and pass it to Client.Do
// with a context. Do never modifies the caller's Request; the driver gets
// a copy with the fields marked "set by the client" filled in.
type Request struct {
	URL *URL // parsed; Do removes the fragment before the driver sees it

	Offset int64             // resume a document from this byte (FTP REST, HTTP Range)
	Query  string            // search words for gopher type 7 and wais when the URL has none
	Form   map[string]string // Gopher+ ASK answers by field label or 1-based index
	Body   io.Reader         // message body for mailto
	Raw    bool              // deliver bytes exactly as received (no dot-unstuffing)
	// NoModTime tells the driver that Document.ModTime is not wanted, so
	// it may skip a round trip made only to learn it (FTP's MDTM): a
	// batch of many small files saves one exchange a file.
	NoModTime bool

	// Overrides of the client's settings for this request; zero keeps the
	// client's.
	MaxSize int64         // largest document accepted
	MaxTime time.Duration // the whole fetch
	Tracer  Tracer        // the protocol conversation of this request
	// Capture, when set, receives the raw bytes of this fetch for an
	// archive (see Capture); nil captures nothing.
	Capture Capture
	// Redirected, when set, is called before a driver follows a redirect
	// to another URL (HTTP's Location), with the context of the fetch;
	// an error stops the fetch with it. A batch moves the transfer's
	// per-host place to the new host here.
	Redirected func(ctx context.Context, to *URL) error

	// Options is set by the client: its own options with this request's
	// overrides applied. Drivers read the settings in force here.
	Options Options
	// Proxy is set by the client when the URL is to be fetched whole
	// through this HTTP gateway; only the http driver handles such requests.
	Proxy *URL
	// Client is set to the client that dispatched this request, so a
	// driver can resolve another scheme's URL (file:// falling back to
	// ftp://).
	Client *Client
}

// NewRequest parses rawURL into a request with no per-request inputs.
func NewRequest(rawURL string) (*Request, error) {
	u, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	return &Request{URL: u}, nil
}

// NewRequestURL is a request for a copy of u.
func NewRequestURL(u *URL) *Request {
	return &Request{URL: u.Clone()}
}

// IdleLimit is how long an exchange for r may wait for the server: r's
// Options.Idle, or DefaultIdleTimeout when there is no request (a pooled
// session closing between requests).
func (r *Request) IdleLimit() time.Duration {
	if r == nil {
		return DefaultIdleTimeout
	}
	return r.Options.Idle()
}

// Policy is the port policy in force.
func (r *Request) Policy() *PortPolicy {
	if r.Options.Policy != nil {
		return r.Options.Policy
	}
	return &PortPolicy{}
}

// CheckPort applies the port policy to a connection the driver is about
// to make for scheme (a redirect hop, an FTP data port).
func (r *Request) CheckPort(scheme string, port int) error {
	var reg *Registry
	if r.Client != nil {
		reg = r.Client.Registry()
	}
	err := r.Policy().Check(reg, scheme, port)
	if fe, ok := err.(*Error); ok {
		fe.URL = r.URL.Redacted()
	}
	return err
}

// Trace sends a line to the tracer, if there is one.
func (r *Request) Trace(dir Direction, line string) {
	if r.Options.Tracer != nil {
		r.Options.Tracer.Trace(dir, line)
	}
}

// Prompt asks the caller's prompter, or fails with ErrNoAnswer.
func (r *Request) Prompt(ctx context.Context, q Question) (string, error) {
	if q.URL == "" {
		q.URL = r.URL.Redacted()
	}
	if r.Options.Prompter == nil {
		return "", &Error{Kind: KindUsage, Op: "prompt", URL: q.URL, Part: q.Field, Offset: -1, Err: ErrNoAnswer}
	}
	return r.Options.Prompter.Prompt(ctx, q)
}

// Errorf builds an Error of kind k about this request's URL.
func (r *Request) Errorf(k Kind, op, format string, args ...any) *Error {
	e := Errorf(k, op, format, args...)
	e.URL = r.URL.Redacted()
	return e
}

// Dial connects to addr ("host:port") over TCP through the configured
// dialer, within the dial timeout. The connection it returns enforces the
// idle timeout on every read and write, and is closed when ctx ends, so a
// driver's blocking I/O always returns.
func (r *Request) Dial(ctx context.Context, addr string) (net.Conn, error) {
	d := r.Options.Dialer
	if d == nil {
		d = &net.Dialer{}
	}
	return r.dial(ctx, addr, d)
}

// DialTransfer is Dial for a connection that carries one exchange and is
// closed after it (a Gopher item, an FTP data connection). With the
// default dialer it asks for no TCP keep-alive: such a connection is
// bounded by the idle timeout, and Go's default probes would cost four
// socket options a connection, a sixth of a small Gopher item's system
// calls. A configured Options.Dialer is used as it is.
func (r *Request) DialTransfer(ctx context.Context, addr string) (net.Conn, error) {
	d := r.Options.Dialer
	if d == nil {
		d = transferDialer
	}
	return r.dial(ctx, addr, d)
}

var transferDialer = &net.Dialer{KeepAlive: -1}

func (r *Request) dial(ctx context.Context, addr string, d ContextDialer) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, r.Options.dialTimeout())
	defer cancel()
	r.Trace(DirInfo, "connecting to "+addr)
	c, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		if ctx.Err() == nil && dctx.Err() != nil {
			err = ErrTimeout
		}
		return nil, &Error{Kind: KindNetwork, Op: "dial " + addr, URL: r.URL.Redacted(), Offset: -1, Err: err}
	}
	return NewDeadlineConn(ctx, c, r.Options.Idle()), nil
}
